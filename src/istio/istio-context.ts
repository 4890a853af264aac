/**
 * @module istio/istio-context
 * Names and the per-pod context the Istio profile's modules share (kept apart so that
 * post-processing, probe rewriting and strip import it, not each other).
 */
import type { LoadedConfig } from '../config/types.js';
import type { Overrides } from '../inject/profile-hooks.js';
import type { MeshSettings } from './mesh-config.js';

/** Istio's proxy container. */
export const ISTIO_PROXY = 'istio-proxy';

/** Istio's record of user containers that customised injected ones (JSON {containers, initContainers}). */
export const ISTIO_OVERRIDES_ANNOTATION = 'proxy.istio.io/overrides';

export interface PostProcessContext {
  config: LoadedConfig;
  mesh: MeshSettings;
  /** The pod's proxy config (protojson). */
  proxy: Readonly<Record<string, unknown>>;
  /** Key/value pairs from the webhook path. */
  pathParams: Readonly<Record<string, string>>;
  /** User containers that customised injected ones (merge.ts), for Istio's overrides annotation. */
  overrides: Overrides;
}
