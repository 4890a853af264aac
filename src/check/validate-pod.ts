/**
 * @module check/validate-pod
 * What the API server would refuse in an injected pod (k8s.io/kubernetes pkg/apis/core/validation,
 * the parts a sidecar can break): required container fields, unique container, volume and port
 * names, ports in range, resource quantities and requests <= limits, volume mounts naming a volume
 * of the pod, unique mount paths, env var names, probes with exactly one handler, init containers'
 * restartPolicy. Each problem names the field path (`spec.containers[name=proxy].image`) and the
 * container it is about, so `config check` can point at the template line that made it.
 */
import { isPlainObject } from '../util/json.js';

export interface PodProblem {
  /** `spec.containers[name=x].image` style path. */
  field: string;
  message: string;
  /** The container (or volume) the problem is about, for locating it in a template. */
  item?: string;
}

type Obj = Record<string, unknown>;
const LISTS = ['initContainers', 'containers'] as const;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const IANA_SVC_NAME = /^(?=.*[a-z])[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?\d+)?$/;
const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe'] as const;
const HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];

export function podProblems(pod: unknown): PodProblem[] {
  const out: PodProblem[] = [];
  if (!isPlainObject(pod) || !isPlainObject(pod.spec)) return [{ field: 'spec', message: 'Required value: the pod has no spec' }];
  const spec = pod.spec;
  const volumes = new Set<string>();
  if (Array.isArray(spec.volumes)) {
    spec.volumes.forEach((v: unknown, i) => {
      const name = isPlainObject(v) && typeof v.name === 'string' ? v.name : undefined;
      const field = `spec.volumes[${name !== undefined ? `name=${name}` : i}]`;
      if (name === undefined || name === '') return void out.push({ field: `${field}.name`, message: 'Required value' });
      if (!DNS1123_LABEL.test(name) || name.length > 63)
        out.push({ field: `${field}.name`, message: `Invalid value: "${name}": must be a DNS-1123 label`, item: name });
      if (volumes.has(name)) out.push({ field: `${field}.name`, message: `Duplicate value: "${name}"`, item: name });
      volumes.add(name);
    });
  }
  if (!Array.isArray(spec.containers) || spec.containers.length === 0)
    out.push({ field: 'spec.containers', message: 'Required value: a pod needs at least one container' });
  const names = new Set<string>();
  for (const list of LISTS) {
    const items = spec[list];
    if (!Array.isArray(items)) continue;
    items.forEach((c: unknown, i) => {
      if (!isPlainObject(c)) return void out.push({ field: `spec.${list}[${i}]`, message: 'Invalid value: not a map' });
      const name = typeof c.name === 'string' ? c.name : '';
      const field = `spec.${list}[${name !== '' ? `name=${name}` : i}]`;
      const at = (f: string, message: string) => out.push({ field: `${field}.${f}`, message, ...(name !== '' ? { item: name } : {}) });
      if (name === '') at('name', 'Required value');
      else if (!DNS1123_LABEL.test(name) || name.length > 63) at('name', `Invalid value: "${name}": must be a DNS-1123 label`);
      else if (names.has(name)) at('name', `Duplicate value: "${name}"`);
      names.add(name);
      if (typeof c.image !== 'string' || c.image.trim() === '') at('image', 'Required value');
      if (list === 'initContainers' && c.restartPolicy !== undefined && c.restartPolicy !== 'Always')
        at('restartPolicy', `Unsupported value: "${String(c.restartPolicy)}": supported values: "Always"`);
      if (list === 'containers' && c.restartPolicy !== undefined) at('restartPolicy', 'Forbidden: may only be set for init containers');
      containerPorts(c, at);
      resources(c, at);
      mounts(c, volumes, at);
      envNames(c, at);
      for (const p of PROBES) probe(c[p], p, at);
    });
  }
  return out;
}

type At = (field: string, message: string) => void;

function containerPorts(c: Obj, at: At): void {
  if (!Array.isArray(c.ports)) return;
  const portNames = new Set<string>();
  const seen = new Set<string>();
  c.ports.forEach((p: unknown, i) => {
    if (!isPlainObject(p)) return void at(`ports[${i}]`, 'Invalid value: not a map');
    const port = p.containerPort;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
      at(`ports[${i}].containerPort`, `Invalid value: ${JSON.stringify(port ?? null)}: must be between 1 and 65535, inclusive`);
    if (p.hostPort !== undefined && (typeof p.hostPort !== 'number' || p.hostPort < 0 || p.hostPort > 65535))
      at(`ports[${i}].hostPort`, 'Invalid value: must be between 0 and 65535');
    const protocol = p.protocol ?? 'TCP';
    if (typeof protocol !== 'string' || !PROTOCOLS.includes(protocol))
      at(`ports[${i}].protocol`, `Unsupported value: ${JSON.stringify(protocol)}: supported values: "SCTP", "TCP", "UDP"`);
    const key = `${String(port)}/${String(protocol)}`;
    if (seen.has(key)) at(`ports[${i}]`, `Duplicate value: containerPort ${key} twice in one container`);
    seen.add(key);
    if (p.name !== undefined) {
      const n = String(p.name);
      if (n.length > 15 || !IANA_SVC_NAME.test(n) || n.includes('--'))
        at(`ports[${i}].name`, `Invalid value: "${n}": must be an IANA_SVC_NAME (at most 15 lower-case letters, digits and "-", with a letter)`);
      else if (portNames.has(n)) at(`ports[${i}].name`, `Duplicate value: "${n}"`);
      portNames.add(n);
    }
  });
}

/** A quantity's value for comparison (decimal and binary suffixes; exponents approximated): `2` and `2000m` are equal. */
export function quantityValue(q: string): number | undefined {
  const m = /^([+-]?\d*\.?\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/.exec(q);
  if (m === null) return undefined;
  const bin: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
  const dec: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
  const s = m[2] ?? '';
  return Number(m[1]) * (bin[s] ?? dec[s]);
}

function resources(c: Obj, at: At): void {
  if (c.resources === undefined || c.resources === null) return;
  if (!isPlainObject(c.resources)) return void at('resources', 'Invalid value: not a map');
  const parsed: Record<string, Record<string, number>> = {};
  for (const kind of ['requests', 'limits']) {
    const m = c.resources[kind];
    if (m === undefined || m === null) continue;
    if (!isPlainObject(m)) {
      at(`resources.${kind}`, 'Invalid value: not a map');
      continue;
    }
    parsed[kind] = {};
    for (const [name, v] of Object.entries(m)) {
      const text = typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '';
      if (!QUANTITY.test(text)) {
        at(`resources.${kind}.${name}`, `Invalid value: ${JSON.stringify(v)}: must be a quantity such as 100m, 128Mi or 1`);
        continue;
      }
      const n = quantityValue(text);
      if (n !== undefined && n < 0) at(`resources.${kind}.${name}`, 'Invalid value: must be greater than or equal to 0');
      if (n !== undefined) parsed[kind][name] = n;
    }
  }
  for (const [name, req] of Object.entries(parsed.requests ?? {})) {
    const lim = parsed.limits?.[name];
    if (lim !== undefined && req > lim) at(`resources.requests.${name}`, `Invalid value: must be less than or equal to ${name} limit`);
  }
}

function mounts(c: Obj, volumes: ReadonlySet<string>, at: At): void {
  if (!Array.isArray(c.volumeMounts)) return;
  const paths = new Set<string>();
  c.volumeMounts.forEach((m: unknown, i) => {
    if (!isPlainObject(m)) return void at(`volumeMounts[${i}]`, 'Invalid value: not a map');
    const name = typeof m.name === 'string' ? m.name : '';
    if (name === '') at(`volumeMounts[${i}].name`, 'Required value');
    else if (!volumes.has(name)) at(`volumeMounts[${i}].name`, `Not found: "${name}" (no volume of that name in the pod)`);
    const path = typeof m.mountPath === 'string' ? m.mountPath : '';
    if (path === '') at(`volumeMounts[${i}].mountPath`, 'Required value');
    else if (paths.has(path)) at(`volumeMounts[${i}].mountPath`, `Invalid value: "${path}": must be unique`);
    paths.add(path);
  });
}

function envNames(c: Obj, at: At): void {
  if (!Array.isArray(c.env)) return;
  c.env.forEach((e: unknown, i) => {
    const name = isPlainObject(e) && typeof e.name === 'string' ? e.name : '';
    // Kubernetes >= 1.30: any printable ASCII but "=".
    if (name === '') at(`env[${i}].name`, 'Required value');
    else if (!/^[\x20-\x3c\x3e-\x7e]+$/.test(name)) at(`env[${i}].name`, `Invalid value: "${name}": printable ASCII characters except "="`);
  });
}

function probe(p: unknown, field: string, at: At): void {
  if (p === undefined || p === null) return;
  if (!isPlainObject(p)) return void at(field, 'Invalid value: not a map');
  const handlers = HANDLERS.filter((h) => p[h] !== undefined && p[h] !== null);
  if (handlers.length !== 1)
    at(
      field,
      handlers.length === 0
        ? 'Required value: must specify a handler type (exec, httpGet, tcpSocket or grpc)'
        : `Forbidden: may not specify more than 1 handler type (${handlers.join(', ')})`,
    );
}
