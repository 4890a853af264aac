/**
 * @module config/compat
 * Which behaviour a config asks for: Istio's (probe rewriting, the Prometheus merge, native
 * sidecars decided from Istio's values) or ours alone. A user who points `--config` at Istio's
 * own `istio-sidecar-injector` ConfigMap must get Istio's behaviour with no extra keys, so the
 * mode is detected from the config itself; an explicit `compatibility: istio | none` wins.
 *
 * Detection, in order (the first that applies decides, and its reason is kept for `explain`
 * and the serve start-up log):
 * 1. `compatibility:` in the config;
 * 2. the config is a ConfigMap named `istio-sidecar-injector` (or `istio-sidecar-injector-REV`,
 *    a revisioned install);
 * 3. the values are shaped like Istio's: `global.proxy` is a map (every Istio chart writes it).
 */
import { isPlainObject, type JsonObject } from '../util/json.js';

export type CompatibilityMode = 'istio' | 'none';
export const COMPATIBILITY_MODES: readonly CompatibilityMode[] = ['istio', 'none'];

export interface Compatibility {
  mode: CompatibilityMode;
  /** `explicit`: the `compatibility` key; `detected`: from the config's shape; `default`: nothing pointed at Istio. */
  source: 'explicit' | 'detected' | 'default';
  /** What decided it: the key, the ConfigMap's name (lost when only its data is mounted), the values, or nothing. */
  basis: 'key' | 'configmap-name' | 'values' | 'none';
  /** One sentence: why this mode (shown by `explain` and logged by `serve`). */
  reason: string;
}

/** Istio's ConfigMap name, with an optional revision suffix. */
const ISTIO_CONFIGMAP = /^istio-sidecar-injector(-[a-z0-9]([-a-z0-9]*[a-z0-9])?)?$/;

export interface CompatibilityInput {
  explicit?: CompatibilityMode;
  /** metadata.name when the config came from a ConfigMap manifest. */
  configMapName?: string;
  values: JsonObject;
}

export function detectCompatibility(input: CompatibilityInput): Compatibility {
  if (input.explicit !== undefined) {
    return { mode: input.explicit, source: 'explicit', basis: 'key', reason: `the config says compatibility: ${input.explicit}` };
  }
  if (input.configMapName !== undefined && ISTIO_CONFIGMAP.test(input.configMapName)) {
    return { mode: 'istio', source: 'detected', basis: 'configmap-name', reason: `the config is Istio's ConfigMap "${input.configMapName}"` };
  }
  const global = input.values.global;
  if (isPlainObject(global) && isPlainObject(global.proxy)) {
    return { mode: 'istio', source: 'detected', basis: 'values', reason: "the values are shaped like Istio's (values.global.proxy is set)" };
  }
  return {
    mode: 'none',
    source: 'default',
    basis: 'none',
    reason: "nothing in the config is Istio's (no istio-sidecar-injector ConfigMap, no values.global.proxy)",
  };
}

/**
 * `.NativeSidecars` as istiod decides it from what its ConfigMap carries: the chart copies
 * istiod's `env` into `values.pilot.env`, and `ENABLE_NATIVE_SIDECARS` there is the switch
 * (`true`/`false`; `auto` or absent: on, Istio's default since 1.27, when every kubelet is
 * >= 1.33: we cannot look at nodes from the config, so `auto` counts as on, and the pod
 * annotation `sidecar.istio.io/nativeSidecar` still overrides per pod inside Istio's template).
 */
export function istioNativeSidecars(values: JsonObject): { value: boolean; reason: string } {
  const pilot = values.pilot;
  const env = isPlainObject(pilot) && isPlainObject(pilot.env) ? pilot.env : {};
  const raw = Object.hasOwn(env, 'ENABLE_NATIVE_SIDECARS') ? env.ENABLE_NATIVE_SIDECARS : undefined;
  const text = typeof raw === 'string' ? raw.trim().toLowerCase() : typeof raw === 'boolean' ? String(raw) : undefined;
  if (text === 'false') return { value: false, reason: 'values.pilot.env.ENABLE_NATIVE_SIDECARS is false' };
  if (text === 'true') return { value: true, reason: 'values.pilot.env.ENABLE_NATIVE_SIDECARS is true' };
  if (text === 'auto') return { value: true, reason: 'values.pilot.env.ENABLE_NATIVE_SIDECARS is auto (counted as on: Kubernetes >= 1.33 is assumed)' };
  return { value: true, reason: "values.pilot.env.ENABLE_NATIVE_SIDECARS is not set (Istio's default: on)" };
}

/** The Helm chart's own template instead of its rendered output: `{{` at the top level. */
export function looksLikeHelmTemplate(text: string): boolean {
  return /^\{\{/m.test(text) || /\{\{-?[^}]*\.(Release|Chart|Files)\./.test(text);
}
