/**
 * @module istio/go-struct
 * Go struct views over Kubernetes JSON, so templates written for Istio (`.Spec.Containers`,
 * `$c.Name`, `.ObjectMeta.Annotations`) see what Go's `text/template` sees on corev1 types:
 * Go field names, zero values for absent fields (`""`, `false`, `0`, empty typed maps), and an
 * error for a field the type does not have. Views are lazy and cached per field: a template
 * touches a handful of fields of a pod, so converting the whole pod up front would be waste.
 *
 * Deliberate differences from Go, all invisible to sane templates:
 * - pointers to scalars (`*int64`) are seen as the scalar, not printed as an address;
 * - nil maps and slices of a known type are empty tagged containers, so `index` of a missing
 *   annotation gives `""` as Go does for a nil `map[string]string`; they marshal as `{}`/`[]`.
 * - named string types (`v1.PullPolicy`) are plain strings; `resource.Quantity` and
 *   `intstr.IntOrString` are their JSON form.
 */
import { GO_OBJECT, NO_FIELD, GoNumber, withGoType, type GoFunc, type GoNumberType, type GoObject } from '../template/value.js';
import { jsonKey } from '../template/value-key.js';
import { isPlainObject } from '../util/json.js';
import { setOwn } from '../util/own.js';
import { GATEWAY_STRUCTS } from './gateway-structs.js';
import { K8S_STRUCTS, type StructSchema } from './k8s-structs.js';

/** The struct types views know (and so `*T`, `[]T` of them), by Go type name. */
const STRUCTS: readonly StructSchema[] = [...K8S_STRUCTS, ...GATEWAY_STRUCTS];
const SCHEMAS = new Map<string, StructSchema>(STRUCTS.map((s) => [s.goType, s]));
/** Each struct's fields by Go name: the JSON name, and the field type's viewer (made on first use). */
interface FieldView {
  readonly json: string;
  view(json: unknown): unknown;
}
const FIELD_INDEX = new Map<string, Map<string, FieldView>>(
  STRUCTS.map((s) => [s.goType, new Map(s.fields.map(([goName, jsonName, goType]) => [goName, fieldView(jsonName, goType)]))]),
);

function fieldView(jsonName: string, goType: string): FieldView {
  let viewer: Viewer | undefined;
  return { json: jsonName, view: (json) => (viewer ??= viewerOf(goType))(json) };
}

const INT_TYPES = new Set<string>(['int8', 'int16', 'int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32', 'uint64']);

/** Types whose values stay as their JSON form. */
const OPAQUE_TYPES = new Set(['resource.Quantity', 'intstr.IntOrString', 'interface {}', 'runtime.RawExtension']);

/**
 * Convert a JSON value to what Go would hold in a field of `goType`. `undefined` (absent in
 * JSON) and `null` become the type's zero value.
 */
export function viewAs(goType: string, json: unknown): unknown {
  return viewerOf(goType)(json);
}

/** Converts JSON to one Go type: the type's name is taken apart once, not on every field read. */
type Viewer = (json: unknown) => unknown;

/** By Go type name; the names are those of the schemas (and their `*`, `[]`, `map` forms): a bounded set. */
const VIEWERS = new Map<string, Viewer>();

function viewerOf(goType: string): Viewer {
  let viewer = VIEWERS.get(goType);
  if (viewer === undefined) {
    viewer = makeViewer(goType);
    VIEWERS.set(goType, viewer);
  }
  return viewer;
}

function makeViewer(goType: string): Viewer {
  if (goType.startsWith('*')) {
    const inner = goType.slice(1);
    const schema = SCHEMAS.get(inner);
    if (schema !== undefined) return (json) => (json === undefined || json === null ? null : new StructView(schema, goType, asObject(json)));
    const view = viewerOf(inner);
    return (json) => (json === undefined || json === null ? null : view(json));
  }
  if (goType === 'string') return (json) => (typeof json === 'string' ? json : json === undefined || json === null ? '' : String(json));
  if (goType === 'bool') return (json) => json === true;
  if (goType === 'float64') return (json) => (typeof json === 'number' ? json : 0);
  if (goType === 'int') return toBigInt;
  if (INT_TYPES.has(goType)) return (json) => new GoNumber(goType as GoNumberType, toBigInt(json));
  if (OPAQUE_TYPES.has(goType)) return (json) => (json === undefined ? null : json);
  if (goType.startsWith('[]')) {
    const view = viewerOf(goType.slice(2));
    return (json) => withGoType(Array.isArray(json) ? json.map((item) => view(item)) : [], goType);
  }
  if (goType.startsWith('map[string]')) {
    const view = viewerOf(goType.slice('map[string]'.length));
    return (json) => {
      const out = Object.create(null) as Record<string, unknown>;
      if (isPlainObject(json)) for (const k of Object.keys(json)) out[k] = view(json[k]);
      return withGoType(out, goType);
    };
  }
  const schema = SCHEMAS.get(goType);
  if (schema) return (json) => new StructView(schema, goType, asObject(json));
  // A struct type we have no schema for: a generic view that maps Go names to JSON names.
  return (json) => (isPlainObject(json) ? new GenericStructView(goType, json) : null);
}

function asObject(json: unknown): Record<string, unknown> {
  return isPlainObject(json) ? json : {};
}

function toBigInt(json: unknown): bigint {
  if (typeof json === 'number' && Number.isInteger(json)) return BigInt(json);
  if (typeof json === 'string' && /^-?\d+$/.test(json)) return BigInt(json);
  return 0n;
}

/** A struct (or pointer to struct) backed by its JSON object. */
class StructView implements GoObject {
  readonly [GO_OBJECT] = true as const;
  #cache: Map<string, unknown> | undefined;

  constructor(
    readonly schema: StructSchema,
    readonly goType: string,
    readonly json: Record<string, unknown>,
  ) {}

  getField(name: string): unknown {
    const spec = FIELD_INDEX.get(this.schema.goType)!.get(name);
    if (!spec) return NO_FIELD;
    const cache = (this.#cache ??= new Map());
    const cached = cache.get(name);
    if (cached !== undefined || cache.has(name)) return cached;
    const value = spec.view(Object.hasOwn(this.json, spec.json) ? this.json[spec.json] : undefined);
    cache.set(name, value);
    return value;
  }

  getMethod(): GoFunc | undefined {
    // corev1's String methods have pointer receivers and print Go syntax nobody templates on;
    // leaving them out keeps `{{ .Spec }}` printing fields, as a value of the struct does in Go.
    return undefined;
  }

  fieldNames(): readonly string[] {
    return this.schema.fields.map((f) => f[0]);
  }

  /** encoding/json's view: fields in declaration order, maps sorted (toJson, structToJSON). */
  toJSON(): unknown {
    return goJson(this.schema.goType, this.json);
  }

  /** The view is a function of its type (keyed by the caller) and its JSON. */
  memoKey(): string | undefined {
    return jsonKey(this.json);
  }
}

/**
 * JSON of a value of `goType` as encoding/json would order it: struct fields in declaration
 * order (fields the schema does not know follow, in their order), map keys sorted.
 */
export function goJson(goType: string, json: unknown): unknown {
  if (json === null || typeof json !== 'object') return json;
  if (goType.startsWith('*')) return goJson(goType.slice(1), json);
  if (Array.isArray(json)) return goType.startsWith('[]') ? json.map((v) => goJson(goType.slice(2), v)) : json;
  const obj = json as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const put = (k: string, v: unknown) => setOwn(out, k, v);
  if (goType.startsWith('map[string]')) {
    const elem = goType.slice('map[string]'.length);
    for (const k of Object.keys(obj).sort()) put(k, goJson(elem, obj[k]));
    return out;
  }
  const plan = jsonPlanOf(goType);
  if (plan === undefined) return obj;
  for (const { jsonName, fieldType, always } of plan.fields) {
    const v = obj[jsonName];
    if (!Object.hasOwn(obj, jsonName) || v === undefined || v === null) {
      // A nil pointer without omitempty is written as null.
      if (always && fieldType.startsWith('*')) put(jsonName, null);
      continue;
    }
    if (!always && omittedWhenEmpty(fieldType, v)) continue;
    put(jsonName, goJson(fieldType, v));
  }
  for (const k of Object.keys(obj)) if (!plan.known.has(k)) put(k, obj[k]);
  return out;
}

/** A struct's fields as goJson writes them, worked out once per type (not per value printed). */
interface JsonPlan {
  readonly fields: readonly { readonly jsonName: string; readonly fieldType: string; readonly always: boolean }[];
  /** The JSON names the schema knows; other keys follow them. */
  readonly known: ReadonlySet<string>;
}

const JSON_PLANS = new Map<string, JsonPlan>();

function jsonPlanOf(goType: string): JsonPlan | undefined {
  let plan = JSON_PLANS.get(goType);
  if (plan === undefined) {
    const schema = SCHEMAS.get(goType);
    if (schema === undefined) return undefined;
    const fields = schema.fields.map(([, jsonName, fieldType]) => ({ jsonName, fieldType, always: ALWAYS_WRITTEN.has(`${goType}.${jsonName}`) }));
    plan = { fields, known: new Set(fields.map((f) => f.jsonName)) };
    JSON_PLANS.set(goType, plan);
  }
  return plan;
}

/**
 * Fields of the Kubernetes types whose JSON tag has no `omitempty` (all others have it): Go
 * writes them even when zero or nil.
 */
const ALWAYS_WRITTEN = new Set([
  'v1.Container.name',
  'v1.EphemeralContainer.name',
  'v1.EnvVar.name',
  'v1.ContainerPort.containerPort',
  'v1.VolumeMount.name',
  'v1.VolumeMount.mountPath',
  'v1.HTTPGetAction.port',
  'v1.TCPSocketAction.port',
  'v1.GRPCAction.port',
  'v1.GRPCAction.service',
  'v1.HTTPHeader.name',
  'v1.HTTPHeader.value',
  'v1.Volume.name',
  'v1.LocalObjectReference.name',
  'v1.SeccompProfile.type',
]);

/** encoding/json's omitempty: false, 0, "", and empty slices and maps are left out; pointers and structs are not. */
function omittedWhenEmpty(goType: string, v: unknown): boolean {
  if (goType.startsWith('*') || goType === 'intstr.IntOrString' || goType === 'resource.Quantity') return false;
  if (goType.startsWith('[]')) return Array.isArray(v) && v.length === 0;
  if (goType.startsWith('map[')) return isPlainObject(v) && Object.keys(v).length === 0;
  if (goType === 'string') return v === '';
  if (goType === 'bool') return v === false;
  if (INT_TYPES.has(goType) || goType === 'int' || goType.startsWith('float')) return v === 0;
  return false;
}

/** Go field name for a JSON name where Kubernetes' Go types use an initialism. */
const INITIALISMS: Record<string, string> = {
  apiVersion: 'APIVersion',
  uid: 'UID',
  tty: 'TTY',
  hostIP: 'HostIP',
  hostIPs: 'HostIPs',
  podIP: 'PodIP',
  podIPs: 'PodIPs',
  hostPID: 'HostPID',
  hostIPC: 'HostIPC',
  fsGroup: 'FSGroup',
  fsGroupChangePolicy: 'FSGroupChangePolicy',
  seLinuxOptions: 'SELinuxOptions',
  httpGet: 'HTTPGet',
  tcpSocket: 'TCPSocket',
  grpc: 'GRPC',
  dnsPolicy: 'DNSPolicy',
  dnsConfig: 'DNSConfig',
  setHostnameAsFQDN: 'SetHostnameAsFQDN',
  os: 'OS',
  ip: 'IP',
  path: 'Path',
  gmsaCredentialSpec: 'GMSACredentialSpec',
  gmsaCredentialSpecName: 'GMSACredentialSpecName',
  iscsi: 'ISCSI',
  nfs: 'NFS',
  rbd: 'RBD',
  csi: 'CSI',
  fc: 'FC',
  cephfs: 'CephFS',
  hostUsers: 'HostUsers',
  url: 'URL',
};
const JSON_NAME_OF = new Map(Object.entries(INITIALISMS).map(([json, go]) => [go, json]));

function jsonNameFor(goName: string): string {
  return JSON_NAME_OF.get(goName) ?? goName.charAt(0).toLowerCase() + goName.slice(1);
}

function inferType(json: unknown): string {
  if (typeof json === 'string') return 'string';
  if (typeof json === 'boolean') return 'bool';
  if (typeof json === 'number') return Number.isInteger(json) ? 'int64' : 'float64';
  if (Array.isArray(json)) return '[]interface {}';
  return 'interface {}';
}

/**
 * A struct whose schema we do not carry (rarely used corev1 types): fields are found by Go name
 * through the JSON name, typed by their JSON value; absent fields are invalid (`<no value>`).
 */
class GenericStructView implements GoObject {
  readonly [GO_OBJECT] = true as const;

  constructor(
    readonly goType: string,
    readonly json: Record<string, unknown>,
  ) {}

  getField(name: string): unknown {
    if (!/^[A-Z]/.test(name)) return NO_FIELD;
    const key = jsonNameFor(name);
    if (!Object.hasOwn(this.json, key)) return undefined;
    const value = this.json[key];
    if (isPlainObject(value)) return new GenericStructView(`${this.goType}.${name}`, value);
    if (Array.isArray(value)) {
      return withGoType(
        value.map((v) => (isPlainObject(v) ? new GenericStructView(`${this.goType}.${name}`, v) : v)),
        '[]interface {}',
      );
    }
    return viewAs(inferType(value), value);
  }

  getMethod(): GoFunc | undefined {
    return undefined;
  }

  fieldNames(): readonly string[] {
    return Object.keys(this.json).map((k) => INITIALISMS[k] ?? k.charAt(0).toUpperCase() + k.slice(1));
  }

  toJSON(): unknown {
    return this.json;
  }

  memoKey(): string | undefined {
    return jsonKey(this.json);
  }
}
