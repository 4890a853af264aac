/**
 * @module errors
 * The one catalogue of errors this product reports. Every error a user can see carries a
 * stable `code` (documented, safe to match on in scripts and alerts), an exit status for the
 * CLI and an HTTP status for the webhook. Messages say what went wrong and what to do.
 *
 * Add new codes here, never ad-hoc `new Error()` at a boundary a user can see.
 */

/** code -> [CLI exit status, HTTP status, one-line summary for docs]. */
const CATALOGUE = {
  // Usage and input (CLI)
  SI_USAGE: [2, 400, 'the command line is wrong'],
  SI_FILE_READ: [2, 500, 'a file could not be read'],
  SI_FILE_WRITE: [1, 500, 'a file could not be written'],
  SI_INPUT_YAML: [5, 400, 'an input document is not valid YAML or JSON'],
  SI_INPUT_OBJECT: [5, 400, 'an input document is not a Kubernetes object of the expected shape'],
  SI_INPUT_LIMIT: [5, 413, 'an input exceeds a safety limit (size, depth, aliases)'],

  // Templates (Go text/template engine)
  SI_TEMPLATE_PARSE: [3, 500, 'a template does not parse'],
  SI_TEMPLATE_EXEC: [3, 500, 'a template failed while rendering'],

  // Config
  SI_CONFIG_READ: [4, 500, 'the injector config could not be read'],
  SI_CONFIG_INVALID: [4, 500, 'the injector config is invalid'],

  // Injection core
  SI_INJECT_TEMPLATE_MISSING: [6, 500, 'a requested injection template is not defined'],
  SI_INJECT_RENDER_OUTPUT: [6, 500, 'a template rendered something that is not a pod overlay'],
  SI_INJECT_MERGE: [6, 500, 'the rendered sidecar could not be merged into the pod'],
  SI_INJECT_IMAGE: [6, 500, 'a template rendered a container image holding <nil> or <no value> (a value missing from the values)'],
  SI_INJECT_ANNOTATION: [6, 400, 'a pod annotation has an invalid value'],
  SI_INJECT_CONFLICT: [6, 400, 'the pod conflicts with the sidecar (name or port)'],
  SI_INJECT_STATUS: [6, 400, 'the sidecar status annotation cannot be read'],
  SI_INJECT_LIMIT: [6, 400, 'the pod is over a per-request limit of the injector'],
  SI_PATCH: [6, 500, 'the JSON patch could not be built'],

  // Policy mode (MutatingAdmissionPolicy compiler)
  SI_POLICY_UNSUPPORTED: [4, 500, 'the config uses something a MutatingAdmissionPolicy cannot express; use the webhook for this config'],

  // Admission webhook
  SI_ADMISSION_METHOD: [1, 405, 'the webhook only accepts POST'],
  SI_ADMISSION_NOT_FOUND: [1, 404, 'no such path'],
  SI_ADMISSION_CONTENT_TYPE: [1, 415, 'the webhook only accepts application/json'],
  SI_ADMISSION_BODY_TOO_LARGE: [1, 413, 'the request body is over the limit'],
  SI_ADMISSION_BAD_REQUEST: [1, 400, 'the request is not a valid AdmissionReview'],
  SI_ADMISSION_TIMEOUT: [1, 504, 'the request did not finish within its deadline'],
  SI_INTERNAL: [1, 500, 'a bug: an unexpected internal error'],
  SI_LISTEN_FAILED: [2, 500, 'the port to listen on is in use or not allowed (choose another with --port)'],

  // Certificates and cluster
  SI_CERT_INVALID: [7, 500, 'a certificate or key is missing, unreadable, expired or mismatched'],
  SI_CERT_GENERATE: [7, 500, 'a certificate could not be generated'],
  SI_CLUSTER_CONFIG: [8, 500, 'no usable in-cluster credentials'],
  SI_CLUSTER_REQUEST: [8, 502, 'a Kubernetes API request failed'],
  SI_CLUSTER_WEBHOOK_MISSING: [8, 500, 'the webhook configuration holds none of the webhooks whose caBundle we manage'],

  // Self-healing (status, restart)
  SI_HEAL_DRIFT: [9, 500, 'status found pods with a stale or missing sidecar'],
  SI_HEAL_RESTART_STALLED: [10, 500, 'restart stopped: a rollout did not progress within --timeout, or a restart failed'],

  // Revision rollouts (rollout)
  SI_ROLLOUT_REFUSED: [2, 400, 'rollout refused before changing anything: no single injector serves the target, or a namespace is not on the source revision'],
  SI_ROLLOUT_ROLLED_BACK: [10, 500, 'rollout stopped: new pods did not become ready with the new sidecar within --timeout; the namespace was moved back'],
} as const satisfies Record<string, readonly [number, number, string]>;

export type ErrorCode = keyof typeof CATALOGUE;

export interface ErrorInfo {
  readonly code: ErrorCode;
  readonly exitCode: number;
  readonly httpStatus: number;
  readonly summary: string;
}

/** The catalogue as data, for docs and for tests that check every code is reachable. */
export function errorInfo(code: ErrorCode): ErrorInfo {
  const [exitCode, httpStatus, summary] = CATALOGUE[code];
  return { code, exitCode, httpStatus, summary };
}

export function allErrorCodes(): ErrorCode[] {
  return Object.keys(CATALOGUE) as ErrorCode[];
}

/** Where in a user's input an error is: file, document index (0-based), line and column (1-based). */
export interface SourceLocation {
  file?: string;
  document?: number;
  line?: number;
  column?: number;
}

export interface InjectorErrorOptions {
  cause?: unknown;
  location?: SourceLocation;
  /** Machine-readable extras (never secrets); shown in JSON logs. */
  details?: Record<string, unknown>;
}

/** Base class of every error this product reports on purpose. */
export class InjectorError extends Error {
  readonly code: ErrorCode;
  readonly location: SourceLocation | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: InjectorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.location = options.location;
    this.details = options.details;
  }

  get exitCode(): number {
    return CATALOGUE[this.code][0];
  }

  get httpStatus(): number {
    return CATALOGUE[this.code][1];
  }

  /** `file: document 2, line 14: message`: the prefix names where, when known. */
  describe(): string {
    const where = formatLocation(this.location);
    return where ? `${where}: ${this.message}` : this.message;
  }
}

/** `file: document 2, line 14, column 3` (each part only when known). */
export function formatLocation(loc: SourceLocation | undefined): string {
  if (!loc) return '';
  const parts: string[] = [];
  if (loc.document !== undefined) parts.push(`document ${loc.document + 1}`);
  if (loc.line !== undefined) parts.push(loc.column !== undefined ? `line ${loc.line}, column ${loc.column}` : `line ${loc.line}`);
  const where = parts.join(', ');
  if (loc.file === undefined) return where;
  return where === '' ? loc.file : `${loc.file}: ${where}`;
}

/** Errors from the Go text/template engine. Messages follow Go's `template: NAME:LINE:COL: ...`. */
export class TemplateError extends InjectorError {
  constructor(code: 'SI_TEMPLATE_PARSE' | 'SI_TEMPLATE_EXEC', message: string, options?: InjectorErrorOptions) {
    super(code, message, options);
  }
}

/** Invalid or unreadable injector configuration. */
export class ConfigError extends InjectorError {}

/** Bad user input to the CLI (manifests, flags, files). */
export class InputError extends InjectorError {}

/** Failures while injecting one pod (render, merge, patch). */
export class InjectionError extends InjectorError {}

/** Malformed admission requests; `httpStatus` is what the webhook answers. */
export class AdmissionError extends InjectorError {}

/** Certificate generation, loading and validation. */
export class CertError extends InjectorError {}

/** Talking to the Kubernetes API. */
export class ClusterError extends InjectorError {}

/** Wrap anything thrown into an InjectorError, keeping ours as they are. */
export function toInjectorError(err: unknown): InjectorError {
  if (err instanceof InjectorError) return err;
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    return new InjectorError('SI_INPUT_LIMIT', 'input is nested too deeply to process', { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new InjectorError('SI_INTERNAL', `internal error: ${message}`, { cause: err });
}
