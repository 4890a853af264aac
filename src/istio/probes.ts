/**
 * @module istio/probes
 * Istio's probe rewrite (app_probe.go): with mutual TLS the kubelet cannot reach the app, so
 * the app's HTTP, TCP and gRPC probes and HTTP/TCP lifecycle hooks are pointed at the agent's
 * status port (`/app-health/<container>/{readyz,livez,startupz}`,
 * `/app-lifecycle/<container>/{prestopz,poststartz}`), and the originals go, as JSON, into the
 * proxy's ISTIO_KUBE_APP_PROBERS env (named ports resolved to numbers). Off with annotation
 * `sidecar.istio.io/rewriteAppHTTPProbers: "false"` or values
 * `sidecarInjectorWebhook.rewriteAppHTTPProbe: false`. As in current Istio (checked against the
 * live peer), every probe is rewritten whatever its port; the record skips only handlers already
 * pointing at the agent and named ports the container does not declare.
 */
import type { Pod } from '../inject/pod-types.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { ISTIO_PROXY, type PostProcessContext } from './istio-context.js';
import { agentStatusPort } from './mesh-config.js';

export const APP_PROBERS_ENV = 'ISTIO_KUBE_APP_PROBERS';
const REWRITE_ANNOTATION = 'sidecar.istio.io/rewriteAppHTTPProbers';

type Obj = Record<string, unknown>;

function goParseBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

function rewriteEnabled(annotations: Record<string, string>, ctx: PostProcessContext): boolean {
  if (Object.hasOwn(annotations, REWRITE_ANNOTATION)) {
    const b = goParseBool(annotations[REWRITE_ANNOTATION]);
    if (b !== undefined) return b;
  }
  const w = ctx.config.values.sidecarInjectorWebhook;
  return isPlainObject(w) && w.rewriteAppHTTPProbe === true;
}

/** The maps of a container list of the merged pod (template output: read defensively). */
function containersOf(pod: JsonObject, list: string): Obj[] {
  const items = (pod.spec as Obj)[list];
  return Array.isArray(items) ? items.filter(isPlainObject) : [];
}

/** Port as Go's intstr: a number, or a string (named or numeric text). */
function portOf(action: unknown): number | string | undefined {
  if (!isPlainObject(action)) return undefined;
  const p = action.port;
  return typeof p === 'number' || typeof p === 'string' ? p : undefined;
}

/** A named port of the container itself (Istio's DumpAppProbers looks nowhere else). */
function namedPort(c: Obj, name: string): number | undefined {
  const ports = Array.isArray(c.ports) ? (c.ports as Obj[]) : [];
  const p = ports.find((x) => isPlainObject(x) && x.name === name);
  return p !== undefined && typeof p.containerPort === 'number' ? p.containerPort : undefined;
}

/**
 * Prober as Istio records it: {httpGet|tcpSocket|grpc, timeoutSeconds} (that priority), named
 * ports resolved; undefined to skip: no handler, a name the container does not declare (a
 * numeric string is a name too, as intstr sees it), or a port that already is the agent's.
 */
function prober(c: Obj, handler: unknown, withTimeout: boolean, targetPort: number): Obj | undefined {
  if (!isPlainObject(handler)) return undefined;
  const timeout = withTimeout && typeof handler.timeoutSeconds === 'number' && handler.timeoutSeconds !== 0 ? handler.timeoutSeconds : undefined;
  const kind = isPlainObject(handler.httpGet)
    ? 'httpGet'
    : isPlainObject(handler.tcpSocket)
      ? 'tcpSocket'
      : withTimeout && isPlainObject(handler.grpc)
        ? 'grpc'
        : undefined;
  if (kind === undefined) return undefined;
  const withTimeoutOf = (action: Obj): Obj => (timeout !== undefined ? { [kind]: action, timeoutSeconds: timeout } : { [kind]: action });
  const action = handler[kind] as Obj;
  if (kind === 'grpc') {
    // GRPCAction.Service is a *string without omitempty: Go writes `"service":null` when unset.
    return withTimeoutOf({ port: typeof action.port === 'number' ? action.port : 0, service: typeof action.service === 'string' ? action.service : null });
  }
  const p = portOf(action);
  let port: number;
  if (typeof p === 'string') {
    const resolved = namedPort(c, p);
    if (resolved === undefined) return undefined;
    port = resolved;
  } else {
    port = p ?? 0;
    if (port === targetPort) return undefined; // already rewritten
  }
  return withTimeoutOf(kind === 'httpGet' ? httpGetJson(action, port) : tcpJson(action, port));
}

/** corev1.HTTPGetAction in Go's field order (path, port, host, scheme, httpHeaders). */
function httpGetJson(a: Obj, port: number): Obj {
  const out: Obj = {};
  if (typeof a.path === 'string' && a.path !== '') out.path = a.path;
  out.port = port;
  if (typeof a.host === 'string' && a.host !== '') out.host = a.host;
  if (typeof a.scheme === 'string' && a.scheme !== '') out.scheme = a.scheme;
  if (Array.isArray(a.httpHeaders) && a.httpHeaders.length > 0) out.httpHeaders = a.httpHeaders;
  return out;
}

function tcpJson(a: Obj, port: number): Obj {
  const out: Obj = { port };
  if (typeof a.host === 'string' && a.host !== '') out.host = a.host;
  return out;
}

function urls(name: string) {
  return {
    readyz: `/app-health/${name}/readyz`,
    livez: `/app-health/${name}/livez`,
    startupz: `/app-health/${name}/startupz`,
    prestopz: `/app-lifecycle/${name}/prestopz`,
    poststartz: `/app-lifecycle/${name}/poststartz`,
  };
}

/** Istio's DumpAppProbers: init containers then containers, all but the proxy. */
function dumpAppProbers(pod: JsonObject, targetPort: number): Record<string, Obj> {
  const out: Record<string, Obj> = {};
  for (const c of [...containersOf(pod, 'initContainers'), ...containersOf(pod, 'containers')]) {
    if (c.name === ISTIO_PROXY || typeof c.name !== 'string') continue;
    const u = urls(c.name);
    const add = (key: string, p: Obj | undefined) => {
      if (p !== undefined) out[key] = p;
    };
    add(u.readyz, prober(c, c.readinessProbe, true, targetPort));
    add(u.livez, prober(c, c.livenessProbe, true, targetPort));
    add(u.startupz, prober(c, c.startupProbe, true, targetPort));
    if (isPlainObject(c.lifecycle)) {
      add(u.prestopz, prober(c, c.lifecycle.preStop, false, targetPort));
      add(u.poststartz, prober(c, c.lifecycle.postStart, false, targetPort));
    }
  }
  return out;
}

function sortedJson(probers: Record<string, Obj>): string {
  const sorted: Record<string, Obj> = {};
  for (const k of Object.keys(probers).sort()) sorted[k] = probers[k];
  return JSON.stringify(sorted);
}

/** Point one probe or hook at the agent; returns the new handler or undefined to keep it. */
function convert(h: unknown, url: string, statusPort: number, allowGrpc: boolean): Obj | undefined {
  if (!isPlainObject(h)) return undefined;
  const rewrite = (action: Obj): Obj => {
    const a: Obj = { ...action, path: url, port: statusPort };
    if (a.scheme === 'HTTPS') a.scheme = 'HTTP';
    return a;
  };
  if (isPlainObject(h.httpGet)) return { ...h, httpGet: rewrite(h.httpGet) };
  if (isPlainObject(h.tcpSocket)) {
    const { tcpSocket: _t, ...rest } = h;
    return { ...rest, httpGet: { path: url, port: statusPort } };
  }
  if (allowGrpc && isPlainObject(h.grpc)) {
    const { grpc: _g, ...rest } = h;
    return { ...rest, httpGet: { path: url, port: statusPort } };
  }
  return undefined;
}

/**
 * Istio's convertProbe: every HTTP, TCP and gRPC probe and HTTP/TCP hook, whatever its port. The
 * container is the user's, shared with the pod as received (inject/cow.ts): the result is a new
 * container, or `c` itself when nothing changed.
 */
function convertContainer(c: Obj, statusPort: number): Obj {
  if (typeof c.name !== 'string') return c;
  const u = urls(c.name);
  let out = c;
  for (const [field, url] of [
    ['readinessProbe', u.readyz],
    ['livenessProbe', u.livez],
    ['startupProbe', u.startupz],
  ] as const) {
    const probe = c[field];
    if (!isPlainObject(probe)) continue;
    const next = convert(probe, url, statusPort, true);
    if (next !== undefined) out = { ...out, [field]: next };
  }
  if (isPlainObject(c.lifecycle)) {
    const lifecycle: Obj = { ...c.lifecycle };
    for (const [field, url] of [
      ['preStop', u.prestopz],
      ['postStart', u.poststartz],
    ] as const) {
      const hook = lifecycle[field];
      if (!isPlainObject(hook)) continue;
      const next = convert(hook, url, statusPort, false);
      if (next !== undefined) lifecycle[field] = next;
    }
    out = { ...out, lifecycle };
  }
  return out;
}

/** Rewrite the app's probes (in place) and record the originals on the proxy. */
export function rewriteAppProbes(pod: JsonObject, sidecar: Obj, annotations: Record<string, string>, ctx: PostProcessContext): void {
  if (!rewriteEnabled(annotations, ctx)) return;
  const meshStatusPort = agentStatusPort(ctx.mesh);
  const probers = dumpAppProbers(pod, meshStatusPort);
  if (Object.keys(probers).length > 0) {
    const env = Array.isArray(sidecar.env) ? (sidecar.env as Obj[]) : [];
    const value = sortedJson(probers);
    const at = env.findIndex((e) => isPlainObject(e) && e.name === APP_PROBERS_ENV);
    if (at >= 0) env[at] = { name: APP_PROBERS_ENV, value };
    else env.push({ name: APP_PROBERS_ENV, value });
    sidecar.env = env;
  }
  let statusPort = meshStatusPort;
  const fromAnnotation = annotations['status.sidecar.istio.io/port'];
  if (fromAnnotation !== undefined) statusPort = /^-?\d+$/.test(fromAnnotation) ? Number(fromAnnotation) : 0;
  for (const list of ['containers', 'initContainers']) {
    const items = (pod.spec as Obj)[list];
    if (!Array.isArray(items)) continue;
    // The list is the merged pod's own (the writer frame); its user items are replaced, not edited.
    for (let i = 0; i < items.length; i++) {
      const c: unknown = items[i];
      if (isPlainObject(c) && c.name !== ISTIO_PROXY) items[i] = convertContainer(c, statusPort);
    }
  }
}

/**
 * Undo Istio's rewrite on a pod whose Istio-injected proxy is being removed: every probe or hook
 * pointing at its `/app-health/...` or `/app-lifecycle/...` URL gets back the handler recorded in
 * the proxy's ISTIO_KUBE_APP_PROBERS (`probers`, its JSON). Istio itself merges the old record
 * into the new one instead; restoring the probes gives the same sidecar and lets re-injection
 * start from the app's own probes.
 */
export function restoreAppProbes(pod: Pod, probers: string): void {
  let old: unknown;
  try {
    old = JSON.parse(probers);
  } catch {
    return;
  }
  if (!isPlainObject(old)) return;
  const restore = (h: unknown, url: string): Obj | undefined => {
    const saved = old[url];
    if (!isPlainObject(h) || !isPlainObject(h.httpGet) || h.httpGet.path !== url || !isPlainObject(saved)) return undefined;
    const { httpGet: _h, ...rest } = h;
    const out: Obj = { ...rest };
    for (const kind of ['httpGet', 'tcpSocket', 'grpc']) if (isPlainObject(saved[kind])) out[kind] = saved[kind];
    return out;
  };
  for (const list of ['containers', 'initContainers'] as const) {
    for (const c of pod.spec[list] ?? []) {
      if (c.name === ISTIO_PROXY) continue;
      const u = urls(c.name);
      for (const [field, url] of [
        ['readinessProbe', u.readyz],
        ['livenessProbe', u.livez],
        ['startupProbe', u.startupz],
      ] as const) {
        const next = restore(c[field], url);
        if (next !== undefined) c[field] = next;
      }
      const lifecycle = c.lifecycle;
      if (isPlainObject(lifecycle)) {
        // A new lifecycle object: the container may share its old one (inject/undo.ts).
        let changed: Obj | undefined;
        for (const [field, url] of [
          ['preStop', u.prestopz],
          ['postStart', u.poststartz],
        ] as const) {
          const next = restore(lifecycle[field], url);
          if (next !== undefined) (changed ??= { ...lifecycle })[field] = next;
        }
        if (changed !== undefined) c.lifecycle = changed;
      }
    }
  }
}
