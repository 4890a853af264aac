/**
 * @module inject/istio-probes
 * Istio's probe rewrite (app_probe.go). Placeholder until implemented.
 */
import type { JsonObject } from '../util/json.js';
import type { PostProcessContext } from './istio-postprocess.js';

export function rewriteAppProbes(pod: JsonObject, sidecar: Record<string, unknown>, annotations: Record<string, string>, ctx: PostProcessContext): void {
  void pod; void sidecar; void annotations; void ctx;
}
