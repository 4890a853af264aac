/**
 * @module inject/istio-probes
 * Istio's probe rewrite (app_probe.go): with mutual TLS the kubelet cannot reach the app, so
 * the app's HTTP, TCP and gRPC probes and HTTP/TCP lifecycle hooks are pointed at the agent's
 * status port (`/app-health/<container>/{readyz,livez,startupz}`,
 * `/app-lifecycle/<container>/{prestopz,poststartz}`), and the originals go, as JSON, into the
 * proxy's ISTIO_KUBE_APP_PROBERS env (named ports resolved to numbers). Off with annotation
 * `sidecar.istio.io/rewriteAppHTTPProbers: "false"` or values
 * `sidecarInjectorWebhook.rewriteAppHTTPProbe: false`. Ports excluded from interception
 * (`traffic.sidecar.istio.io/includeInboundPorts` / `excludeInboundPorts`) are left alone.
 */
import { isPlainObject, type JsonObject } from '../util/json.js';
import type { PostProcessContext } from './istio-postprocess.js';
import { ISTIO_PROXY } from './istio-postprocess.js';

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

function containersOf(pod: JsonObject, list: string): Obj[] {
  const items = (pod.spec as Obj)[list];
  return Array.isArray(items) ? (items.filter(isPlainObject) as Obj[]) : [];
}

/** Port as Go's intstr: a number, or a string (named or numeric text). */
function portOf(action: unknown): number | string | undefined {
  if (!isPlainObject(action)) return undefined;
  const p = action.port;
  return typeof p === 'number' || typeof p === 'string' ? p : undefined;
}

/** Istio's inclusion map from the pod's include/exclude inbound-port annotations. */
function portMap(annotations: Record<string, string>): Map<number, boolean> {
  const include = annotations['traffic.sidecar.istio.io/includeInboundPorts'] ?? '';
  const exclude = annotations['traffic.sidecar.istio.io/excludeInboundPorts'] ?? '';
  const parse = (s: string) => {
    const t = s.trim();
    return /^\d+$/.test(t) && Number(t) <= 65535 ? Number(t) : 0;
  };
  const ports = new Map<number, boolean>();
  if (include !== '' && include !== '*') {
    for (const p of include.split(',')) if (parse(p) !== 0) ports.set(parse(p), true);
    return ports;
  }
  if (exclude !== '') for (const p of exclude.split(',')) if (parse(p) !== 0) ports.set(parse(p), false);
  return ports;
}

function isPortIncluded(port: number, ports: Map<number, boolean>): boolean {
  const v = ports.get(port);
  if (v !== undefined) return v;
  for (const val of ports.values()) if (val) return false;
  return true;
}

/** intstr IntVal: numbers are ints; strings have IntVal 0. */
function intVal(p: number | string | undefined): number {
  return typeof p === 'number' ? p : 0;
}

function namedPort(pod: JsonObject, name: string, container: string): number | undefined {
  for (const list of ['containers', 'initContainers']) {
    const c = containersOf(pod, list).find((x) => x.name === container);
    if (c === undefined) continue;
    const ports = Array.isArray(c.ports) ? (c.ports as Obj[]) : [];
    const p = ports.find((x) => isPlainObject(x) && x.name === name);
    return p !== undefined && typeof p.containerPort === 'number' && p.containerPort > 0 ? p.containerPort : undefined;
  }
  return undefined;
}

/** Prober as Istio stores it: {httpGet|tcpSocket|grpc, timeoutSeconds}, named ports resolved; undefined to skip. */
function prober(pod: JsonObject, handler: unknown, container: string, ports: Map<number, boolean>, withTimeout: boolean): Obj | undefined {
  if (!isPlainObject(handler)) return undefined;
  const timeout = withTimeout && typeof handler.timeoutSeconds === 'number' && handler.timeoutSeconds !== 0 ? handler.timeoutSeconds : undefined;
  if (withTimeout && isPlainObject(handler.grpc) && !isPlainObject(handler.httpGet) && !isPlainObject(handler.tcpSocket)) {
    const port = typeof handler.grpc.port === 'number' ? handler.grpc.port : 0;
    if (!isPortIncluded(port, ports)) return undefined;
    const grpc: Obj = { port };
    if (typeof handler.grpc.service === 'string') grpc.service = handler.grpc.service;
    return timeout !== undefined ? { grpc, timeoutSeconds: timeout } : { grpc };
  }
  const kind = isPlainObject(handler.httpGet) ? 'httpGet' : isPlainObject(handler.tcpSocket) ? 'tcpSocket' : undefined;
  if (kind === undefined) return undefined;
  const action = handler[kind] as Obj;
  const p = portOf(action);
  let port: number;
  if (typeof p === 'string') {
    const resolved = namedPort(pod, p, container) ?? (/^-?\d+$/.test(p) ? Number(p) : undefined);
    if (resolved === undefined || !isPortIncluded(resolved, ports)) return undefined;
    port = resolved;
  } else {
    port = p ?? 0;
    if (!isPortIncluded(port, ports)) return undefined;
  }
  const out: Obj = kind === 'httpGet' ? httpGetJson(action, port) : tcpJson(action, port);
  return timeout !== undefined ? { [kind]: out, timeoutSeconds: timeout } : { [kind]: out };
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

/** Istio's DumpAppProbers: "" when there is nothing to record. */
function dumpAppProbers(pod: JsonObject, ports: Map<number, boolean>): Record<string, Obj> {
  const out: Record<string, Obj> = {};
  for (const c of [...containersOf(pod, 'initContainers'), ...containersOf(pod, 'containers')]) {
    if (c.name === ISTIO_PROXY || typeof c.name !== 'string') continue;
    const u = urls(c.name);
    const add = (key: string, p: Obj | undefined) => {
      if (p !== undefined) out[key] = p;
    };
    add(u.readyz, prober(pod, c.readinessProbe, c.name, ports, true));
    add(u.livez, prober(pod, c.livenessProbe, c.name, ports, true));
    add(u.startupz, prober(pod, c.startupProbe, c.name, ports, true));
    if (isPlainObject(c.lifecycle)) {
      add(u.prestopz, prober(pod, c.lifecycle.preStop, c.name, ports, false));
      add(u.poststartz, prober(pod, c.lifecycle.postStart, c.name, ports, false));
    }
  }
  return out;
}

function sortedJson(probers: Record<string, Obj>): string {
  const sorted: Record<string, Obj> = {};
  for (const k of Object.keys(probers).sort()) sorted[k] = probers[k];
  return JSON.stringify(sorted);
}

/** The handler's port for shouldPatch*: IntVal of httpGet/tcpSocket port, or the gRPC port. */
function handlerPort(h: Obj): number {
  if (isPlainObject(h.httpGet)) return intVal(portOf(h.httpGet));
  if (isPlainObject(h.tcpSocket)) return intVal(portOf(h.tcpSocket));
  if (isPlainObject(h.grpc) && typeof h.grpc.port === 'number') return h.grpc.port;
  return 0;
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

function convertContainer(c: Obj, statusPort: number, ports: Map<number, boolean>): void {
  if (typeof c.name !== 'string') return;
  const u = urls(c.name);
  for (const [field, url] of [['readinessProbe', u.readyz], ['livenessProbe', u.livez], ['startupProbe', u.startupz]] as const) {
    const probe = c[field];
    if (!isPlainObject(probe)) continue;
    if (ports.size > 0 && !isPortIncluded(handlerPort(probe), ports)) continue;
    const next = convert(probe, url, statusPort, true);
    if (next !== undefined) c[field] = next;
  }
  if (isPlainObject(c.lifecycle)) {
    const lifecycle: Obj = { ...c.lifecycle };
    for (const [field, url] of [['preStop', u.prestopz], ['postStart', u.poststartz]] as const) {
      const hook = lifecycle[field];
      if (!isPlainObject(hook)) continue;
      if (!isPortIncluded(handlerPort(hook), ports)) continue;
      const next = convert(hook, url, statusPort, false);
      if (next !== undefined) lifecycle[field] = next;
    }
    c.lifecycle = lifecycle;
  }
}

/** Rewrite the app's probes (in place) and record the originals on the proxy. */
export function rewriteAppProbes(pod: JsonObject, sidecar: Obj, annotations: Record<string, string>, ctx: PostProcessContext): void {
  if (!rewriteEnabled(annotations, ctx)) return;
  const ports = portMap(annotations);
  const probers = dumpAppProbers(pod, ports);
  if (Object.keys(probers).length > 0) {
    const env = Array.isArray(sidecar.env) ? (sidecar.env as Obj[]) : [];
    const value = sortedJson(probers);
    const at = env.findIndex((e) => isPlainObject(e) && e.name === APP_PROBERS_ENV);
    if (at >= 0) env[at] = { name: APP_PROBERS_ENV, value };
    else env.push({ name: APP_PROBERS_ENV, value });
    sidecar.env = env;
  }
  let statusPort = typeof ctx.mesh.proxy.statusPort === 'number' ? ctx.mesh.proxy.statusPort : 15020;
  const fromAnnotation = annotations['status.sidecar.istio.io/port'];
  if (fromAnnotation !== undefined) statusPort = /^-?\d+$/.test(fromAnnotation) ? Number(fromAnnotation) : 0;
  for (const list of ['containers', 'initContainers']) {
    for (const c of containersOf(pod, list)) if (c.name !== ISTIO_PROXY) convertContainer(c, statusPort, ports);
  }
}

/**
 * Undo Istio's rewrite on a pod whose Istio-injected proxy is being removed: every probe or hook
 * pointing at its `/app-health/...` or `/app-lifecycle/...` URL gets back the handler recorded in
 * the proxy's ISTIO_KUBE_APP_PROBERS (`probers`, its JSON). Istio itself merges the old record
 * into the new one instead; restoring the probes gives the same sidecar and lets re-injection
 * start from the app's own probes.
 */
export function restoreAppProbes(pod: JsonObject, probers: string): void {
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
  for (const list of ['containers', 'initContainers']) {
    for (const c of containersOf(pod, list)) {
      if (typeof c.name !== 'string' || c.name === ISTIO_PROXY) continue;
      const u = urls(c.name);
      for (const [field, url] of [['readinessProbe', u.readyz], ['livenessProbe', u.livez], ['startupProbe', u.startupz]] as const) {
        const next = restore(c[field], url);
        if (next !== undefined) c[field] = next;
      }
      const lifecycle = c.lifecycle;
      if (isPlainObject(lifecycle)) {
        for (const [field, url] of [['preStop', u.prestopz], ['postStart', u.poststartz]] as const) {
          const next = restore(lifecycle[field], url);
          if (next !== undefined) lifecycle[field] = next;
        }
      }
    }
  }
}
