/**
 * @module istio/istio-strip
 * The Istio profile's strip hook: a pod injected by Istio (a status without an undo record)
 * has lost the items the status lists; put back what Istio is known to have changed besides.
 * The app probes Istio rewrote get back their originals from the removed proxy's
 * ISTIO_KUBE_APP_PROBERS, and the user's own sidecar customisations saved in Istio's
 * `proxy.istio.io/overrides` annotation are put back (Istio's reinsertOverrides), so the next
 * injection sees them.
 */
import { InjectionError } from '../errors.js';
import type { Container, Pod } from '../inject/pod-types.js';
import type { RemovedItems } from '../inject/profile-hooks.js';
import { isPlainObject } from '../util/json.js';
import { ISTIO_OVERRIDES_ANNOTATION, ISTIO_PROXY } from './istio-context.js';
import { PROMETHEUS_ENV } from './postprocess.js';
import { APP_PROBERS_ENV, restoreAppProbes } from './probes.js';

/** Restore (in place) what Istio changed on `pod`, whose Istio-injected items were `removed`. */
export function stripIstioInjection(pod: Pod, removed: RemovedItems): void {
  const probers = removedProxyEnv(removed, APP_PROBERS_ENV);
  if (probers !== undefined) restoreAppProbes(pod, probers);
  reinsertIstioOverrides(pod);
}

/**
 * The profile's `restore` hook: on our own injection (format 2), give back what Istio's
 * post-processing changed and recorded on the proxy it added: the app's probes
 * (ISTIO_KUBE_APP_PROBERS) and its Prometheus annotations (ISTIO_PROMETHEUS_ANNOTATIONS), so the
 * status annotation need not carry them. `statusPort`: the agent port the merge points at.
 */
export function restoreIstioPostProcessing(statusPort: number): (pod: Pod, removed: RemovedItems) => void {
  return (pod, removed) => {
    const probers = removedProxyEnv(removed, APP_PROBERS_ENV);
    if (probers !== undefined) restoreAppProbes(pod, probers);
    restorePrometheus(pod, removedProxyEnv(removed, PROMETHEUS_ENV), String(statusPort));
  };
}

const PROMETHEUS_KEYS = ['scrape', 'path', 'port'] as const;

/**
 * Undo Istio's metrics merge (postprocess.ts prometheusMerge), which set prometheus.io/port,
 * path and scrape to the agent's and kept the app's values, when it had any, in the proxy's env.
 * Only annotations still holding the merge's values are touched. The merge also reads and
 * deletes other spellings of these keys (`prometheus_io_port`, ...) and the scrape-targets
 * annotation: what this does not give back exactly, the undo record carries.
 */
function restorePrometheus(pod: Pod, saved: string | undefined, statusPort: string): void {
  const annotations = pod.metadata?.annotations;
  if (annotations === null || annotations === undefined) return;
  const merged: Record<(typeof PROMETHEUS_KEYS)[number], string> = { scrape: 'true', path: '/stats/prometheus', port: statusPort };
  if (!PROMETHEUS_KEYS.every((k) => annotations[`prometheus.io/${k}`] === merged[k])) return;
  let app: unknown;
  try {
    app = saved === undefined ? {} : JSON.parse(saved);
  } catch {
    return;
  }
  if (!isPlainObject(app)) return;
  const next = { ...annotations };
  for (const k of PROMETHEUS_KEYS) {
    const v = app[k];
    if (typeof v === 'string' && v !== '') next[`prometheus.io/${k}`] = v;
    else delete next[`prometheus.io/${k}`];
  }
  pod.metadata!.annotations = next;
}

/** The value of env var `name` on the removed proxy (containers first, as Istio looks). */
function removedProxyEnv(removed: RemovedItems, name: string): string | undefined {
  for (const list of [removed.containers, removed.initContainers]) {
    const proxy = list.find((c) => c.name === ISTIO_PROXY);
    if (proxy === undefined) continue;
    const env = Array.isArray(proxy.env) ? proxy.env : [];
    const e = env.find((x) => isPlainObject(x) && x.name === name);
    if (isPlainObject(e) && typeof e.value === 'string') return e.value;
  }
  return undefined;
}

/** Istio's reinsertOverrides: append saved user containers the pod no longer has. */
function reinsertIstioOverrides(pod: Pod): void {
  const annotations = pod.metadata?.annotations;
  const text =
    annotations !== null && annotations !== undefined && Object.hasOwn(annotations, ISTIO_OVERRIDES_ANNOTATION)
      ? annotations[ISTIO_OVERRIDES_ANNOTATION]
      : undefined;
  if (typeof text !== 'string') return;
  let saved: unknown;
  try {
    saved = JSON.parse(text);
  } catch {
    throw new InjectionError(
      'SI_INJECT_STATUS',
      `annotation ${ISTIO_OVERRIDES_ANNOTATION} is not valid JSON; remove it (it only records sidecar customisations for re-injection)`,
    );
  }
  if (!isPlainObject(saved)) return;
  const spec = pod.spec;
  for (const list of ['containers', 'initContainers'] as const) {
    const items = saved[list];
    if (!Array.isArray(items)) continue;
    const current: Container[] = spec[list] ?? [];
    const names = new Set(current.map((c) => c.name));
    for (const c of items) {
      if (isPlainObject(c) && typeof c.name === 'string' && c.name !== '' && !names.has(c.name)) {
        current.push(c as Container);
        names.add(c.name);
      }
    }
    if (current.length > 0) spec[list] = current;
  }
}
