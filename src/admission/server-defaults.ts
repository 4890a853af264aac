/**
 * @module admission/server-defaults
 * Server defaults that the CLI shows in `--help` without loading the server itself.
 */
export const DEFAULT_PORT = 9443;
export const DEFAULT_DRAIN_DELAY_MS = 0;
export const DEFAULT_GRACE_MS = 15_000;
/** Rounds of the request path run at start (see warmup.ts; ready after the first). */
export const DEFAULT_WARMUP_ROUNDS = 500;

/**
 * What to answer when injection was wanted but failed: deny the pod, or allow it without a
 * sidecar (with a warning). One type for the handler, `serve --on-error` and the install options.
 */
export const ON_ERROR_MODES = ['deny', 'allow'] as const;
export type OnError = (typeof ON_ERROR_MODES)[number];
