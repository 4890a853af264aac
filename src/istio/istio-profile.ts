/**
 * @module istio/istio-profile
 * Istio emulation as a profile: what the pipeline does beyond the general injection so that
 * Istio's own templates and values behave as under Istio. Bound to one loaded config; its state
 * (the mesh config, whether post-processing is on) is computed here once, at load.
 *
 * - validate: Istio's check of the annotations that steer injection (validate.ts);
 * - templateFields: the rest of Istio's SidecarTemplateData (template-data.ts), with the pod's
 *   proxy config (mesh default + `proxy.istio.io/config`, parsed once per pod);
 * - order: holdApplicationUntilProxyStarts (proxy config or values.global.proxy) puts the proxy
 *   first; `sidecar.istio.io/init-containers-before-proxy` names user init containers to run
 *   before the native sidecar proxy; Istio's CNI check `istio-validation` leads the init containers;
 * - postProcess: Istio's post-processing, when the config turns it on (postprocess.ts);
 * - strip: what Istio changed besides the items its status lists (istio-strip.ts);
 * - restore: with post-processing on, what it changed on our own injection and recorded on the
 *   proxy (the app's probes, its Prometheus annotations), given back when the proxy is removed.
 */
import type { LoadedConfig } from '../config/types.js';
import type { Profile } from '../inject/profile-hooks.js';
import { isPlainObject } from '../util/json.js';
import { agentStatusPort, inboundTrafficPolicyMode, meshSettings, podProxyConfig, PROXY_CONFIG_ANNOTATION } from './mesh-config.js';
import { applyIstioPostProcessing, istioPostProcessingEnabled } from './postprocess.js';
import { restoreIstioPostProcessing, stripIstioInjection } from './istio-strip.js';
import { istioTemplateFields } from './template-data.js';
import { validateIstioAnnotations } from './validate-annotations.js';

/** The Istio profile for `config`. Throws ConfigError when values.meshConfig is invalid (the load fails). */
export function istioProfile(config: LoadedConfig): Profile {
  const mesh = meshSettings(config);
  const inbound = inboundTrafficPolicyMode(mesh.mesh);
  const postProcessing = istioPostProcessingEnabled(config);
  return {
    name: 'istio',
    strip: stripIstioInjection,
    ...(postProcessing ? { restore: restoreIstioPostProcessing(agentStatusPort(mesh)) } : {}),
    validate: validateIstioAnnotations,
    forPod(input) {
      const annotations = input.annotations;
      const proxy = podProxyConfig(mesh, Object.hasOwn(annotations, PROXY_CONFIG_ANNOTATION) ? annotations[PROXY_CONFIG_ANNOTATION] : undefined);
      return {
        templateFields: (core) =>
          istioTemplateFields(core, input, {
            values: config.values,
            proxyConfig: proxy.object,
            proxyConfigJson: proxy.json,
            meshConfig: mesh.meshObject,
            inboundTrafficPolicyMode: inbound,
          }),
        holdFirst: holdApplicationUntilProxyStarts(proxy.json, config),
        initBeforeSidecar: initContainersBeforeProxy,
        leadingInitContainers: LEADING_INIT_CONTAINERS,
        postProcess: postProcessing
          ? (merged, user, overrides) => applyIstioPostProcessing(merged, user, { config, mesh, proxy: proxy.json, pathParams: input.pathParams, overrides })
          : undefined,
      };
    },
  };
}

/** Istio's annotation: user init containers to run before the native sidecar proxy. */
const INIT_BEFORE_PROXY_ANNOTATION = 'sidecar.istio.io/init-containers-before-proxy';

/** Istio's CNI validation init container: first, so it holds everything until the network is ready. */
const LEADING_INIT_CONTAINERS: readonly string[] = Object.freeze(['istio-validation']);

/** The names in the (merged) pod's init-containers-before-proxy annotation, trimmed, each once. */
function initContainersBeforeProxy(annotations: Readonly<Record<string, unknown>>): readonly string[] {
  const v = Object.hasOwn(annotations, INIT_BEFORE_PROXY_ANNOTATION) ? annotations[INIT_BEFORE_PROXY_ANNOTATION] : undefined;
  if (typeof v !== 'string' || v === '') return [];
  return [
    ...new Set(
      v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
}

/**
 * Istio's rule for putting the proxy first: holdApplicationUntilProxyStarts in the pod's proxy
 * config (mesh default + `proxy.istio.io/config` annotation) or in values.global.proxy.
 */
function holdApplicationUntilProxyStarts(proxy: Readonly<Record<string, unknown>>, config: Pick<LoadedConfig, 'values'>): boolean {
  if (proxy.holdApplicationUntilProxyStarts === true) return true;
  const g = config.values.global;
  const p = isPlainObject(g) ? g.proxy : undefined;
  return isPlainObject(p) && p.holdApplicationUntilProxyStarts === true;
}
