/**
 * @module template/funcs/injector
 * Istio's injection template functions (pkg/kube/inject/template.go), which Istio registers on
 * top of Sprig so they win on name clashes: `contains` takes (needle, haystack), `indent` leaves
 * the first line alone, `toYaml` is sigs.k8s.io/yaml, `omit` works on map[string]string.
 * Semantics come from Istio's source; the Go oracle has plain Sprig, so tests for these are
 * derived from that source. `env` reads the process environment only when the config allows it.
 */
import { sprint, sprintf } from '../go-fmt.js';
import { goFunc, GoFuncError, GoNumber, INTERFACE, isGoObject, newGoMap, taggedGoType, type FuncMap, type GoObject } from '../value.js';
import { ifaceResult, isGoComplex, isNil } from './coerce.js';
import { hasOwn } from './dicts.js';
import { setOwn } from '../../util/own.js';
import { goJsonUnmarshal } from './json-decode.js';
import { isNilContainer, nilMap } from './nil.js';
import { goJsonMarshal, JsonMarshalError } from './json-encode.js';
import { MAX_RESULT_BYTES } from './strings.js';
import { goToLower, goTrimSpace } from './unicode.js';
import { goYamlMarshal } from './yaml.js';

export interface InjectorOptions {
  /** Register a working `env`; otherwise `env` exists (so templates parse) but fails when called. */
  readonly allowEnv?: boolean;
  /** The environment `env` reads (default: process.env). */
  readonly env?: Record<string, string | undefined>;
}

const STRING_MAP = 'map[string]string';

type StrMap = Record<string, unknown> | null;

/** A struct field, or undefined when the value is not a struct that has it. */
function field(obj: unknown, name: string): unknown {
  if (!isGoObject(obj)) return undefined;
  const v = obj.getField(name);
  return typeof v === 'symbol' ? undefined : v;
}

function intOf(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (v instanceof GoNumber) return typeof v.value === 'bigint' ? v.value : BigInt(Math.trunc(v.value));
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  return 0n;
}

/** Go's time.Duration.String(). */
export function formatGoDuration(d: bigint): string {
  if (d === 0n) return '0s';
  const neg = d < 0n;
  let u = neg ? -d : d;
  let out: string;
  if (u < 1_000_000_000n) {
    // Sub-second: one unit with a fraction (ns, µs, ms).
    const [unit, scale] = u < 1000n ? ['ns', 1n] : u < 1_000_000n ? ['µs', 1000n] : ['ms', 1_000_000n];
    out = fraction(u, scale) + unit;
  } else {
    const secs = fraction(u % 60_000_000_000n, 1_000_000_000n) + 's';
    u /= 60_000_000_000n;
    if (u === 0n) out = secs;
    else {
      const mins = (u % 60n).toString() + 'm' + secs;
      u /= 60n;
      out = u === 0n ? mins : u.toString() + 'h' + mins;
    }
  }
  return neg ? '-' + out : out;
}

function fraction(v: bigint, scale: bigint): string {
  const whole = (v / scale).toString();
  let frac = (v % scale)
    .toString()
    .padStart(scale.toString().length - 1, '0')
    .replace(/0+$/, '');
  if (scale === 1n) frac = '';
  return frac === '' ? whole : whole + '.' + frac;
}

/** durationpb.Duration.AsDuration (saturating at the int64 range) then String(). */
function formatDuration(d: GoObject | null): string {
  if (d === null) return '0s';
  const secs = intOf(field(d, 'Seconds'));
  const nanos = intOf(field(d, 'Nanos'));
  const MAX = (1n << 63n) - 1n;
  const MIN = -(1n << 63n);
  let total = secs * 1_000_000_000n + nanos;
  if (total > MAX) total = MAX;
  if (total < MIN) total = MIN;
  return formatGoDuration(total);
}

/**
 * Istio's indent: every line but the first gets the padding, which Istio builds with
 * Sprintf("% <n>s", "") (so a negative n also pads, left-justified, and 0 pads nothing).
 */
function indent(spaces: bigint, source: string): string {
  if (spaces > BigInt(MAX_RESULT_BYTES) || -spaces > BigInt(MAX_RESULT_BYTES)) {
    throw new GoFuncError(`indent of ${spaces} spaces is too large`);
  }
  const pad = sprintf(`% ${spaces}s`, ['']);
  return source
    .split('\n')
    .map((line, i) => (i > 0 ? pad + line : line))
    .join('\n');
}

function annotation(meta: GoObject, name: string, defaultValue: unknown): string {
  const annotations = field(meta, 'Annotations') as StrMap | undefined;
  if (annotations && hasOwn(annotations, name)) return String(annotations[name]);
  return sprint([defaultValue === undefined ? null : defaultValue]);
}

function marshalOr(v: unknown, fallback: string): string {
  try {
    return goJsonMarshal(v);
  } catch (e) {
    if (e instanceof JsonMarshalError) return fallback;
    throw e;
  }
}

function fromJSON(j: string): unknown {
  const r = goJsonUnmarshal(j);
  return r.error !== undefined ? '{}' : ifaceResult(r.value);
}

function toYaml(value: unknown): string {
  try {
    return goYamlMarshal(value);
  } catch (e) {
    if (e instanceof JsonMarshalError) return '';
    throw e;
  }
}

/** Istio's excludeInboundPort: add the status port to a comma-separated list unless present. */
function excludeInboundPort(port: unknown, excluded: string): string {
  const portStr = goTrimSpace(sprint([port === undefined ? null : port]));
  if (portStr.length === 0 || portStr === '0') return excluded;
  const out: string[] = [];
  for (const p of excluded.split(',')) {
    if (p === portStr) return excluded;
    const t = goTrimSpace(p);
    if (t.length > 0) out.push(t);
  }
  out.push(portStr);
  return out.join(',');
}

/** Container ports (TCP only: UDP and SCTP skipped), comma-separated. */
function containerPorts(containers: unknown, include: (c: unknown) => boolean): string {
  const parts: string[] = [];
  for (const c of Array.isArray(containers) ? containers : []) {
    if (!include(c)) continue;
    const ports = field(c, 'Ports');
    for (const p of Array.isArray(ports) ? ports : []) {
      const proto = field(p, 'Protocol');
      if (proto === 'UDP' || proto === 'SCTP') continue;
      parts.push(BigInt.asIntN(32, intOf(field(p, 'ContainerPort'))).toString());
    }
  }
  return parts.join(',');
}

/** Istio's appendMultusNetwork: add the CNI network to a k8s.v1.cni.cncf.io/networks value. */
export function appendMultusNetwork(existing: string, network: string): string {
  if (existing === '') return network;
  const i = existing.lastIndexOf(']');
  if (i !== -1) {
    const r = goJsonUnmarshal(existing);
    const nets = r.value;
    if (r.error !== undefined || !Array.isArray(nets) || nets.some((n) => n !== null && (typeof n !== 'object' || Array.isArray(n)))) {
      return existing;
    }
    const slash = network.indexOf('/');
    const ns = slash < 0 ? '' : network.slice(0, slash);
    const name = slash < 0 ? network : network.slice(slash + 1);
    for (const n of nets as (Record<string, unknown> | null)[]) {
      if (n !== null && n.name === name) {
        const nns = n.namespace ?? '';
        if (nns === ns) return existing;
      }
    }
    const entry = ns === '' ? `, {"name": "${name}"}` : `, {"name": "${name}", "namespace": "${ns}"}`;
    return existing.slice(0, i) + entry + existing.slice(i);
  }
  for (const n of existing.split(',')) if (goTrimSpace(n) === network) return existing;
  return existing + ', ' + network;
}

function strMap(): Record<string, unknown> {
  return newGoMap(STRING_MAP);
}

/** Istio's mergeMaps: later maps win; no maps gives a nil map. */
function mergeMaps(...maps: StrMap[]): Record<string, unknown> | null {
  if (maps.length === 0) return nilMap(STRING_MAP);
  const res = strMap();
  for (const m of maps) if (m !== null) for (const k of Object.keys(m)) setOwn(res, k, m[k]);
  return res;
}

function strdict(...v: string[]): Record<string, unknown> {
  const d = strMap();
  for (let i = 0; i < v.length; i += 2) setOwn(d, v[i], i + 1 >= v.length ? '' : v[i + 1]);
  return d;
}

function omit(dict: StrMap, ...keys: string[]): Record<string, unknown> {
  const res = strMap();
  if (dict === null) return res;
  const drop = new Set(keys);
  for (const k of Object.keys(dict)) if (!drop.has(k)) setOwn(res, k, dict[k]);
  return res;
}

/** Go's `case map[string]any` (untagged maps only; structs, numbers and funcs excluded). */
const isPlainMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  !(v instanceof GoNumber) &&
  !isGoObject(v) &&
  typeof (v as { call?: unknown }).call !== 'function' &&
  taggedGoType(v) === undefined &&
  !isGoComplex(v);

/** Istio's omitNil: drops nil values from map[string]interface{} and []interface{}, recursively. */
export function omitNil(v: unknown): unknown {
  return omitNilInternal(v)[0];
}

function omitNilInternal(v: unknown): [unknown, boolean] {
  if (isNil(v)) return [null, true];
  if (Array.isArray(v) && taggedGoType(v) === undefined) {
    for (let i = 0; i < v.length; i++) {
      if (!omitNilInternal(v[i])[1]) continue;
      const out = v.slice(0, i);
      for (let j = i; j < v.length; j++) {
        const f = omitNil(v[j]);
        if (!isNil(f)) out.push(f);
      }
      return out.length === 0 ? [null, true] : [out, true];
    }
    return [v, false];
  }
  if (isPlainMap(v)) {
    for (const val of Object.values(v)) {
      if (!omitNilInternal(val)[1]) continue;
      const out = newGoMap();
      for (const k of Object.keys(v)) {
        const f = omitNil(v[k]);
        if (!isNil(f)) setOwn(out, k, f);
      }
      return Object.keys(out).length === 0 ? [null, true] : [out, true];
    }
    return [v, false];
  }
  return [v, false];
}

/** protoToJSON: the message's JSON view (its toJSON(), expected to be protojson-shaped and default-cleaned). */
function protoToJSON(v: unknown): string {
  if (isNil(v)) return '{}';
  try {
    return goJsonMarshal(v, { escapeHTML: false });
  } catch (e) {
    if (e instanceof JsonMarshalError) return '{}';
    throw e;
  }
}

/**
 * The last mesh config's JSON, and whether it asks for OTel semantic-convention service
 * attributes. The mesh is the config's, the same on every render: reading the answer back
 * saves parsing its whole JSON again (the marshal stays, so it is always the current mesh).
 */
let lastMesh: { json: string; enabled: boolean } | undefined;

/** Whether `mesh` (its encoding/json view) has an OpenTelemetry provider with OTEL_SEMANTIC_CONVENTIONS enrichment. */
function otelEnrichment(mesh: unknown): boolean {
  let json: string;
  try {
    json = goJsonMarshal(mesh);
  } catch (e) {
    if (e instanceof JsonMarshalError) return false;
    throw e;
  }
  if (lastMesh !== undefined && lastMesh.json === json) return lastMesh.enabled;
  let view: unknown;
  try {
    view = goJsonUnmarshal(json).value;
  } catch (e) {
    if (!(e instanceof JsonMarshalError)) throw e;
    view = null;
  }
  const providers = (view as { extensionProviders?: unknown } | null)?.extensionProviders;
  const enabled =
    Array.isArray(providers) &&
    providers.some(
      (p) =>
        (p as { opentelemetry?: { serviceAttributeEnrichment?: unknown } } | null)?.opentelemetry?.serviceAttributeEnrichment === 'OTEL_SEMANTIC_CONVENTIONS',
    );
  lastMesh = { json, enabled };
  return enabled;
}

/** An image reference's tag or digest ("repo:1.0" -> "1.0", "repo@sha256:..." -> "sha256:..."). */
function imageVersion(image: string): string {
  const at = image.indexOf('@');
  if (at >= 0) return image.slice(at + 1);
  const colon = image.lastIndexOf(':');
  return colon > image.lastIndexOf('/') ? image.slice(colon + 1) : '';
}

/**
 * otelResourceAttributes (Istio 1.29+): OTEL_RESOURCE_ATTRIBUTES for the proxy when a mesh
 * OpenTelemetry provider asks for OTel semantic-convention service attributes, else "".
 * Istio's source was not available; this follows the behaviour described in Istio PR #59207 and
 * the hello-otel-semconv golden (service.namespace, service.version, service.instance.id, each
 * from its resource.opentelemetry.io/* annotation first).
 */
function otelResourceAttributes(mesh: unknown, annotations: StrMap, labels: StrMap, namespace: string, containers: unknown): string {
  if (!otelEnrichment(mesh)) return '';
  const get = (m: StrMap, k: string): string => (m !== null && hasOwn(m, k) ? String(m[k]) : '');
  const list = Array.isArray(containers) ? containers : [];
  const single = list.length === 1 ? list[0] : undefined;
  const attrs: [string, string][] = [
    ['service.namespace', get(annotations, 'resource.opentelemetry.io/service.namespace') || namespace],
    [
      'service.version',
      get(annotations, 'resource.opentelemetry.io/service.version') ||
        get(labels, 'app.kubernetes.io/version') ||
        (single !== undefined ? imageVersion(String(field(single, 'Image') ?? '')) : ''),
    ],
    [
      'service.instance.id',
      get(annotations, 'resource.opentelemetry.io/service.instance.id') ||
        (single !== undefined && namespace !== '' ? `${namespace}.$(POD_NAME).${String(field(single, 'Name') ?? '')}` : ''),
    ],
  ];
  return attrs
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

const S = 'string';

function envFunc(options: InjectorOptions): FuncMap['env'] {
  if (options.allowEnv !== true) {
    return goFunc([S, S], (): never => {
      throw new GoFuncError("env is disabled: templates may not read the injector's environment unless the config enables it (allowEnv)");
    });
  }
  const env = options.env ?? process.env;
  return goFunc([S, S], (key: string, def: string) => {
    const val = Object.hasOwn(env, key) ? env[key] : undefined;
    return val === undefined || val === '' ? def : val;
  });
}

const BASE: FuncMap = {
  formatDuration: goFunc(['*durationpb.Duration'], formatDuration),
  isset: goFunc([STRING_MAP, S], (m: StrMap, key: string) => hasOwn(m, key)),
  excludeInboundPort: goFunc([INTERFACE, S], excludeInboundPort),
  includeInboundPorts: goFunc(['[]v1.Container'], (cs: unknown) => containerPorts(cs, () => true)),
  applicationPorts: goFunc(['[]v1.Container'], (cs: unknown) => containerPorts(cs, (c) => field(c, 'Name') !== 'istio-proxy')),
  kubevirtInterfaces: goFunc([S], (s: string) => s),
  excludeInterfaces: goFunc([S], (s: string) => s),
  annotation: goFunc(['v1.ObjectMeta', S, INTERFACE], annotation),
  valueOrDefault: goFunc([INTERFACE, INTERFACE], (value: unknown, def: unknown) => ifaceResult(value === '' || isNil(value) ? def : value)),
  toJSON: goFunc([STRING_MAP], (m: StrMap) => (m === null || isNilContainer(m) ? '{}' : marshalOr(m, '{}'))),
  fromJSON: goFunc([S], fromJSON),
  structToJSON: goFunc([INTERFACE], (v: unknown) => (isNil(v) ? '{}' : marshalOr(v, '{}'))),
  protoToJSON: goFunc([INTERFACE], protoToJSON),
  toYaml: goFunc([INTERFACE], toYaml),
  indent: goFunc(['int', S], indent),
  directory: goFunc([S], (p: string) => p.slice(0, p.lastIndexOf('/') + 1)),
  contains: goFunc([S, S], (needle: string, haystack: string) => haystack.includes(needle)),
  toLower: goFunc([S], goToLower),
  appendMultusNetwork: goFunc([S, S], appendMultusNetwork),
  omit: goFunc([STRING_MAP], omit, S),
  strdict: goFunc([], strdict, S),
  toJsonMap: goFunc([], (...maps: StrMap[]) => marshalOr(mergeMaps(...maps), ''), STRING_MAP),
  mergeMaps: goFunc([], mergeMaps, STRING_MAP),
  omitNil: goFunc([INTERFACE], (v: unknown) => ifaceResult(omitNil(v))),
  otelResourceAttributes: goFunc([INTERFACE, STRING_MAP, STRING_MAP, S, '[]v1.Container'], otelResourceAttributes),
};

/** Istio's function map; `env` per the options. */
export function buildInjectorFuncs(options: InjectorOptions = {}): FuncMap {
  return { ...BASE, env: envFunc(options) };
}
