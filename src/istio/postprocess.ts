/**
 * @module istio/postprocess
 * Istio's post-processing (webhook.go postProcessPod), kept apart from the general pipeline
 * because it is about Istio's proxy (`istio-proxy`, its status port and agent), not sidecars
 * in general. On in Istio compatibility mode (config/compat: Istio's own ConfigMap or values is
 * detected, or `compatibility: istio`); `values.istioPostProcessing: true|false`, the older
 * explicit switch, still wins when set. Steps, in Istio's order:
 *
 * 1. cluster/network: ISTIO_META_CLUSTER_ID / ISTIO_META_NETWORK from values.global
 *    (multiCluster.clusterName, network), the webhook path (`/inject/cluster/c1/net/n1`) and the
 *    pod's `topology.istio.io/network` label are set on the proxy's env (replacing the
 *    template's, appended sorted by name), and the network becomes the pod's
 *    `topology.istio.io/network` label.
 * 2. Prometheus merge: unless disabled (`prometheus.istio.io/merge-metrics: "false"` or
 *    meshConfig.enablePrometheusMerge false) or scraping is off (`prometheus.io/scrape`
 *    false), the app's `prometheus.io/*` annotations move into the proxy's
 *    ISTIO_PROMETHEUS_ANNOTATIONS env and the annotations point at the agent (status port,
 *    /stats/prometheus).
 * 3. Probe rewrite (app_probe.go; see probes.ts).
 * 4. Istio's adjustInitContainerUser: a customised istio-proxy running as another user makes
 *    istio-init's `-u` (and istio-validation's runAsUser/Group) follow it.
 */
import type { LoadedConfig } from '../config/types.js';
import { ownItems } from '../inject/cow.js';
import type { Pod } from '../inject/pod-types.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { setOwn } from '../util/own.js';
import { ISTIO_OVERRIDES_ANNOTATION as OVERRIDES_ANNOTATION, ISTIO_PROXY, type PostProcessContext } from './istio-context.js';
import { goJson } from './go-struct.js';
import { rewriteAppProbes } from './probes.js';
import { checkScrapePorts, parseScrapeTargets, type ScrapeTarget } from './scrape.js';
import { canonicalQuantity } from './quantity.js';
import { agentStatusPort } from './mesh-config.js';

export const PROMETHEUS_ENV = 'ISTIO_PROMETHEUS_ANNOTATIONS';
const MERGE_METRICS_ANNOTATION = 'prometheus.istio.io/merge-metrics';
const NETWORK_LABEL = 'topology.istio.io/network';
const WRITTEN_CONTAINERS: ReadonlySet<string> = new Set([ISTIO_PROXY, 'istio-init', 'istio-validation']);

type Obj = Record<string, unknown>;

/** Whether the config turns Istio's post-processing on. */
export function istioPostProcessingEnabled(config: Pick<LoadedConfig, 'values' | 'compatibility'>): boolean {
  const explicit = config.values.istioPostProcessing;
  if (typeof explicit === 'boolean') return explicit;
  return config.compatibility.mode === 'istio';
}

/** Apply Istio's post-processing to the merged pod (in place). `user` is the pod before injection. */
export function applyIstioPostProcessing(pod: JsonObject, user: Pod, ctx: PostProcessContext): void {
  // The containers written below, by name: private copies even when the user, not a template, put them there.
  ownItems(pod, WRITTEN_CONTAINERS);
  const meta = pod.metadata as Obj;
  if (!isPlainObject(meta.annotations)) meta.annotations = {};
  if (!isPlainObject(meta.labels)) meta.labels = {};
  const annotations = meta.annotations as Record<string, string>;
  const sidecar = findSidecar(pod);
  clusterInfo(pod, sidecar, ctx);
  prometheusMerge(annotations, sidecar, ctx);
  if (sidecar !== undefined) rewriteAppProbes(pod, sidecar, annotations, ctx);
  adjustInitContainerUser(pod, user, ctx);
  overridesAnnotation(annotations, ctx.overrides);
}

/** Quantities as Go marshals them (`3000m` -> `3`). */
function canonicalResources(c: Record<string, unknown>): Record<string, unknown> {
  if (!isPlainObject(c.resources)) return c;
  const resources: Record<string, unknown> = { ...c.resources };
  for (const k of ['limits', 'requests']) {
    const m = resources[k];
    if (!isPlainObject(m)) continue;
    const out: Record<string, unknown> = {};
    for (const [name, q] of Object.entries(m)) setOwn(out, name, typeof q === 'string' ? canonicalQuantity(q) : q);
    resources[k] = out;
  }
  return { ...c, resources };
}

/** Istio's record of the user's customised sidecar containers (kept for tools that read it). */
function overridesAnnotation(annotations: Record<string, string>, overrides: PostProcessContext['overrides']): void {
  if (overrides.containers.length === 0 && overrides.initContainers.length === 0) return;
  const out: Record<string, unknown> = {};
  const typed = (c: Record<string, unknown>) => {
    const j = goJson('v1.Container', canonicalResources(c)) as Record<string, unknown>;
    if (j.resources !== undefined) return j;
    // Go always writes the (non-pointer) resources struct: put it where its field is.
    const withResources: Record<string, unknown> = {};
    const after = new Set([
      'resizePolicy',
      'restartPolicy',
      'volumeMounts',
      'volumeDevices',
      'livenessProbe',
      'readinessProbe',
      'startupProbe',
      'lifecycle',
      'terminationMessagePath',
      'terminationMessagePolicy',
      'imagePullPolicy',
      'securityContext',
      'stdin',
      'stdinOnce',
      'tty',
    ]);
    let placed = false;
    for (const k of Object.keys(j)) {
      if (!placed && after.has(k)) {
        withResources.resources = {};
        placed = true;
      }
      setOwn(withResources, k, j[k]);
    }
    if (!placed) withResources.resources = {};
    return withResources;
  };
  if (overrides.containers.length > 0) out.containers = overrides.containers.map(typed);
  if (overrides.initContainers.length > 0) out.initContainers = overrides.initContainers.map(typed);
  annotations[OVERRIDES_ANNOTATION] = JSON.stringify(out);
}

/** Istio's FindSidecar on the merged pod: istio-proxy in containers, else in initContainers (native sidecar). */
function findSidecar(pod: JsonObject): Obj | undefined {
  const spec = pod.spec as Obj;
  for (const list of ['containers', 'initContainers']) {
    const items = spec[list];
    if (!Array.isArray(items)) continue;
    const c = items.find((it) => isPlainObject(it) && it.name === ISTIO_PROXY);
    if (c !== undefined) return c as Obj;
  }
  return undefined;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function clusterInfo(pod: JsonObject, sidecar: Obj | undefined, ctx: PostProcessContext): void {
  const global = isPlainObject(ctx.config.values.global) ? ctx.config.values.global : {};
  const envs: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.pathParams)) envs[k] = v;
  let cluster = isPlainObject(global.multiCluster) ? str(global.multiCluster.clusterName) : '';
  let network = str(global.network);
  if (envs.ISTIO_META_CLUSTER_ID) cluster = envs.ISTIO_META_CLUSTER_ID;
  if (envs.ISTIO_META_NETWORK) network = envs.ISTIO_META_NETWORK;
  const labels = (pod.metadata as Obj).labels as Record<string, string>;
  if (Object.hasOwn(labels, NETWORK_LABEL)) network = labels[NETWORK_LABEL];
  if (cluster !== '') envs.ISTIO_META_CLUSTER_ID = cluster;
  if (network !== '') envs.ISTIO_META_NETWORK = network;
  if (Object.hasOwn(envs, 'ISTIO_META_NETWORK')) setOwn(labels, NETWORK_LABEL, envs.ISTIO_META_NETWORK);
  if (sidecar === undefined || Object.keys(envs).length === 0) return;
  const env = Array.isArray(sidecar.env) ? (sidecar.env as Obj[]) : [];
  const kept = env.filter((e) => !(isPlainObject(e) && typeof e.name === 'string' && Object.hasOwn(envs, e.name)));
  for (const k of Object.keys(envs).sort()) kept.push({ name: k, value: envs[k] });
  sidecar.env = kept;
}

/** Prometheus' SanitizeLabelName: anything but [a-zA-Z0-9_] becomes `_`. */
function sanitize(key: string): string {
  return key.replace(/[^a-zA-Z0-9_]/g, '_');
}

function goParseBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

function prometheusMerge(annotations: Record<string, string>, sidecar: Obj | undefined, ctx: PostProcessContext): void {
  // getPrometheusScrape: an explicit false turns the merge off.
  for (const k of Object.keys(annotations)) {
    if (sanitize(k) === 'prometheus_io_scrape' && goParseBool(annotations[k]) === false) return;
  }
  const explicit = Object.hasOwn(annotations, MERGE_METRICS_ANNOTATION) ? goParseBool(annotations[MERGE_METRICS_ANNOTATION]) : undefined;
  const meshValue = ctx.mesh.mesh.enablePrometheusMerge;
  const enabled = explicit ?? (typeof meshValue === 'boolean' ? meshValue : true);
  if (!enabled) return;
  const target = String(agentStatusPort(ctx.mesh));
  let scrape: string | undefined;
  let port: string | undefined;
  let path: string | undefined;
  for (const k of Object.keys(annotations)) {
    const s = sanitize(k);
    if (s === 'prometheus_io_port') port ??= annotations[k];
    else if (s === 'prometheus_io_scrape') scrape = annotations[k];
    else if (s === 'prometheus_io_path') path = annotations[k];
  }
  if (port === target) return;
  // Several scrape targets ("8080:/metrics,9100:/custom"): the first sets port and path too.
  let targets: ScrapeTarget[] = [];
  for (const k of Object.keys(annotations)) {
    if (sanitize(k) !== 'prometheus_istio_io_scrape_targets') continue;
    targets = parseScrapeTargets(annotations[k]) ?? [];
    delete annotations[k];
  }
  if (targets.length > 0) {
    port = targets[0].port;
    path = targets[0].path;
  }
  checkScrapePorts(targets, port, target);
  if (sidecar !== undefined && (scrape || port || path || targets.length > 0)) {
    // Istio's PrometheusScrapeConfiguration, in its field order.
    // scrape, path and port have no omitempty: always written, "" when unset.
    const cfg: Record<string, unknown> = { scrape: scrape ?? '', path: path ?? '', port: port ?? '' };
    if (targets.length > 0) cfg.targets = targets;
    const env = Array.isArray(sidecar.env) ? (sidecar.env as Obj[]) : [];
    env.push({ name: PROMETHEUS_ENV, value: JSON.stringify(cfg) });
    sidecar.env = env;
  }
  for (const k of Object.keys(annotations)) {
    const s = sanitize(k);
    if (s === 'prometheus_io_port' || s === 'prometheus_io_scrape' || s === 'prometheus_io_path') delete annotations[k];
  }
  annotations['prometheus.io/port'] = target;
  annotations['prometheus.io/path'] = '/stats/prometheus';
  annotations['prometheus.io/scrape'] = 'true';
}

function adjustInitContainerUser(pod: JsonObject, user: Pod, ctx: PostProcessContext): void {
  // The user's own istio-proxy (a customisation), found as Istio's FindSidecar looks: containers first.
  const mine = user.spec.containers.find((c) => c.name === ISTIO_PROXY) ?? user.spec.initContainers?.find((c) => c.name === ISTIO_PROXY);
  const sc = mine !== undefined && isPlainObject(mine.securityContext) ? mine.securityContext : undefined;
  if (sc === undefined || (sc.runAsUser === undefined && sc.runAsGroup === undefined)) return;
  const spec = pod.spec as Obj;
  const inits = Array.isArray(spec.initContainers) ? (spec.initContainers as Obj[]) : [];
  const init = inits.find((c) => c.name === 'istio-init') ?? inits.find((c) => c.name === 'istio-validation');
  if (init === undefined) return;
  const annotations = (pod.metadata as Obj).annotations as Record<string, string>;
  const tproxy = ctx.proxy.interceptionMode === 'TPROXY' || annotations['sidecar.istio.io/interceptionMode'] === 'TPROXY';
  if (tproxy && sc.runAsUser !== undefined) {
    const sidecar = findSidecar(pod);
    if (sidecar !== undefined && isPlainObject(sidecar.securityContext)) sidecar.securityContext.runAsUser = 0;
  }
  if (!tproxy && init.name === 'istio-validation') {
    const isc = isPlainObject(init.securityContext) ? init.securityContext : (init.securityContext = {});
    if (sc.runAsUser !== undefined) (isc as Obj).runAsUser = sc.runAsUser;
    if (sc.runAsGroup !== undefined) (isc as Obj).runAsGroup = sc.runAsGroup;
  }
  if (typeof sc.runAsUser !== 'number' || sc.runAsUser === 0) return;
  const args = Array.isArray(init.args) ? (init.args as unknown[]) : [];
  const i = args.indexOf('-u');
  if (i >= 0 && i + 1 < args.length) args[i + 1] = String(sc.runAsUser);
}
