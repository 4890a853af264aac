/**
 * @module istio/proto
 * Protobuf messages as Go templates see them: Istio hands its templates `*meshconfig.ProxyConfig`
 * and `*meshconfig.MeshConfig`, generated Go structs with Go field names, nil-safe `GetX`
 * getters, wrapper messages (`.HoldApplicationUntilProxyStarts.GetValue`), enums that print
 * their name (`.InterceptionMode`, `.InterceptionMode.String`) and durations. Here a message is
 * a lazy view over its protojson form (camelCase keys, enum names, durations as "45s"), which
 * is also what `toJSON()` returns, so `protoToJSON` prints protojson as Istio does.
 *
 * Differences from Go, invisible to the templates we know: a nil message is a {@link NilMessage}
 * (methods work on it as on a Go nil pointer, but `{{if}}` sees a struct, i.e. true); fields
 * of message types this file has no schema for are their raw JSON.
 */
import { GO_OBJECT, NO_FIELD, GoNumber, withGoType, type GoFunc, type GoObject } from '../template/value.js';
import { jsonKey } from '../template/value-key.js';
import { isPlainObject } from '../util/json.js';
import { setOwn } from '../util/own.js';

type ProtoKind =
  | 'string'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'bool'
  | 'duration'
  | 'bool-wrapper'
  | 'int32-wrapper'
  | 'uint32-wrapper'
  | 'string-wrapper'
  | 'map'
  | 'repeated-string'
  | 'json'
  | { enum: EnumType }
  | { message: () => MessageSchema };

export interface EnumType {
  /** Go type name, e.g. `v1alpha1.ProxyConfig_InboundInterceptionMode`. */
  readonly goType: string;
  /** Value names by number. */
  readonly names: Readonly<Record<number, string>>;
}

/** [GoName, jsonName, kind] in .proto declaration order (protojson prints in that order). */
export type ProtoField = readonly [goName: string, jsonName: string, kind: ProtoKind];

export interface MessageSchema {
  /** Go type of the struct, without the pointer: `v1alpha1.ProxyConfig`. */
  readonly goType: string;
  readonly fields: readonly ProtoField[];
}

const INDEX = new WeakMap<MessageSchema, Map<string, ProtoField>>();

function fieldIndex(schema: MessageSchema): Map<string, ProtoField> {
  let idx = INDEX.get(schema);
  if (idx === undefined) {
    idx = new Map();
    for (const f of schema.fields) {
      idx.set(f[0], f);
      idx.set(`Get${f[0]}`, f);
    }
    INDEX.set(schema, idx);
  }
  return idx;
}

/** A non-nil message: a view over its protojson object. */
export class ProtoMessage implements GoObject {
  readonly [GO_OBJECT] = true as const;
  readonly goType: string;
  #cache: Map<string, unknown> | undefined;
  #printedCache: unknown;

  constructor(
    readonly schema: MessageSchema,
    readonly json: Record<string, unknown>,
    /** What toJSON() returns (default: `json`); ProxyConfig prints its default-cleaned form. */
    private readonly printed?: () => unknown,
  ) {
    this.goType = `*${schema.goType}`;
  }

  getField(name: string): unknown {
    const f = fieldIndex(this.schema).get(name);
    if (f === undefined || f[0] !== name) return NO_FIELD;
    return this.value(f);
  }

  getMethod(name: string): GoFunc | undefined {
    if (!name.startsWith('Get')) return undefined;
    const f = fieldIndex(this.schema).get(name);
    if (f === undefined) return undefined;
    return { params: [], call: () => this.value(f) };
  }

  fieldNames(): readonly string[] {
    return this.schema.fields.map((f) => f[0]);
  }

  /** Messages are immutable, so their JSON is computed once (templates may print them many times). */
  toJSON(): unknown {
    if (this.printed === undefined) return this.json;
    if (this.#printedCache === undefined) this.#printedCache = this.printed();
    return this.#printedCache;
  }

  /**
   * Type and JSON decide everything a template sees, `printed` included: it is only given for
   * the mesh and proxy config, where it is a function of the JSON (Istio's default-cleaned form).
   */
  memoKey(): string | undefined {
    return jsonKey(this.json);
  }

  private value(f: ProtoField): unknown {
    const cache = (this.#cache ??= new Map());
    if (cache.has(f[0])) return cache.get(f[0]);
    const raw = Object.hasOwn(this.json, f[1]) ? this.json[f[1]] : undefined;
    const v = viewProto(f[2], raw);
    cache.set(f[0], v);
    return v;
  }
}

/** A nil `*Message`: getters answer zero values, as Go's generated getters do on nil receivers. */
class NilMessage implements GoObject {
  readonly [GO_OBJECT] = true as const;
  readonly goType: string;

  constructor(readonly schema: MessageSchema) {
    this.goType = `*${schema.goType}`;
  }

  getField(): unknown {
    return NO_FIELD;
  }

  getMethod(name: string): GoFunc | undefined {
    if (!name.startsWith('Get')) return undefined;
    const f = fieldIndex(this.schema).get(name);
    if (f === undefined) return undefined;
    return { params: [], call: () => viewProto(f[2], undefined) };
  }

  /** A nil message of a type: the type (the caller's part of the key) is all there is. */
  memoKey(): string {
    return '';
  }

  fieldNames(): readonly string[] {
    return [];
  }

  toJSON(): unknown {
    return null;
  }
}

/** An enum value: prints (and `.String` returns) its name; `.Number` its number. */
class EnumValue implements GoObject {
  readonly [GO_OBJECT] = true as const;
  readonly goType: string;

  constructor(
    readonly type: EnumType,
    readonly number: number,
  ) {
    this.goType = type.goType;
  }

  get name(): string {
    return this.type.names[this.number] ?? String(this.number);
  }

  getField(): unknown {
    return NO_FIELD;
  }

  getMethod(name: string): GoFunc | undefined {
    if (name === 'String') return { params: [], call: () => this.name };
    if (name === 'Number') return { params: [], call: () => new GoNumber('int32', BigInt(this.number)) };
    return undefined;
  }

  fieldNames(): readonly string[] {
    return [];
  }

  toJSON(): unknown {
    return this.name;
  }

  /** The enum's type is the caller's part of the key; its number picks the name. */
  memoKey(): string {
    return String(this.number);
  }
}

const WRAPPERS: Record<string, { goType: string; valueKind: ProtoKind }> = {
  'bool-wrapper': { goType: 'wrapperspb.BoolValue', valueKind: 'bool' },
  'int32-wrapper': { goType: 'wrapperspb.Int32Value', valueKind: 'int32' },
  'uint32-wrapper': { goType: 'wrapperspb.UInt32Value', valueKind: 'uint32' },
  'string-wrapper': { goType: 'wrapperspb.StringValue', valueKind: 'string' },
};

const WRAPPER_SCHEMAS = new Map<string, MessageSchema>();

function wrapperSchema(kind: string): MessageSchema {
  let s = WRAPPER_SCHEMAS.get(kind);
  if (s === undefined) {
    const w = WRAPPERS[kind];
    s = { goType: w.goType, fields: [['Value', 'value', w.valueKind]] };
    WRAPPER_SCHEMAS.set(kind, s);
  }
  return s;
}

const DURATION_SCHEMA: MessageSchema = {
  goType: 'durationpb.Duration',
  fields: [
    ['Seconds', 'seconds', 'int64'],
    ['Nanos', 'nanos', 'int32'],
  ],
};

/** The Go value of a field of `kind` whose protojson value is `raw` (undefined when unset). */
function viewProto(kind: ProtoKind, raw: unknown): unknown {
  if (typeof kind === 'object') {
    if ('enum' in kind) return new EnumValue(kind.enum, enumNumber(kind.enum, raw));
    const schema = kind.message();
    return isPlainObject(raw) ? new ProtoMessage(schema, raw) : new NilMessage(schema);
  }
  switch (kind) {
    case 'string':
      return typeof raw === 'string' ? raw : '';
    case 'bool':
      return raw === true;
    case 'int32':
    case 'uint32':
    case 'int64':
      return new GoNumber(kind, toBigInt(raw));
    case 'duration': {
      if (typeof raw !== 'string') return new NilMessage(DURATION_SCHEMA);
      const nanos = parseProtoDuration(raw) ?? 0n;
      return new ProtoMessage(DURATION_SCHEMA, { seconds: Number(nanos / 1_000_000_000n), nanos: Number(nanos % 1_000_000_000n) }, () => raw);
    }
    case 'bool-wrapper':
    case 'int32-wrapper':
    case 'uint32-wrapper':
    case 'string-wrapper': {
      const schema = wrapperSchema(kind);
      if (raw === undefined || raw === null) return new NilMessage(schema);
      // protojson writes a wrapper as its bare value
      return new ProtoMessage(schema, { value: raw }, () => raw);
    }
    case 'map': {
      const m = Object.create(null) as Record<string, unknown>;
      if (isPlainObject(raw)) for (const k of Object.keys(raw)) m[k] = typeof raw[k] === 'string' ? raw[k] : String(raw[k]);
      return withGoType(m, 'map[string]string');
    }
    case 'repeated-string':
      return withGoType(Array.isArray(raw) ? raw.map((s) => (typeof s === 'string' ? s : String(s))) : [], '[]string');
    case 'json':
      return raw === undefined ? null : raw;
  }
}

function toBigInt(raw: unknown): bigint {
  if (typeof raw === 'number' && Number.isInteger(raw)) return BigInt(raw);
  if (typeof raw === 'string' && /^-?\d+$/.test(raw)) return BigInt(raw);
  return 0n;
}

function enumNumber(type: EnumType, raw: unknown): number {
  if (typeof raw === 'number' && Number.isInteger(raw)) return raw;
  if (typeof raw === 'string') {
    for (const [n, name] of Object.entries(type.names)) if (name === raw) return Number(n);
  }
  return 0;
}

/** protojson's Duration text (`"45s"`, `"1.500s"`, `"-3s"`) to nanoseconds; undefined if malformed. */
export function parseProtoDuration(text: string): bigint | undefined {
  const m = /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (m === null) return undefined;
  const nanos = BigInt(m[2]) * 1_000_000_000n + BigInt((m[3] ?? '').padEnd(9, '0') || '0');
  return m[1] === '-' ? -nanos : nanos;
}

/** protojson's canonical Duration text: seconds with 0, 3, 6 or 9 fraction digits. */
export function formatProtoDuration(nanos: bigint): string {
  const neg = nanos < 0n;
  const abs = neg ? -nanos : nanos;
  const secs = abs / 1_000_000_000n;
  let frac = (abs % 1_000_000_000n).toString().padStart(9, '0');
  if (frac.endsWith('000000')) frac = frac.slice(0, 3);
  else if (frac.endsWith('000')) frac = frac.slice(0, 6);
  const text = frac === '000' ? `${secs}s` : `${secs}.${frac}s`;
  return neg ? `-${text}` : text;
}

/**
 * Check a protojson object against a schema and put it in canonical form: enums as names,
 * durations canonical, numbers for ints, unknown fields kept (they may be newer Istio fields).
 * Returns problems as `field: message` strings; an empty list means valid.
 */
export function normalizeProto(schema: MessageSchema, raw: Record<string, unknown>, path = ''): { value: Record<string, unknown>; problems: string[] } {
  const problems: string[] = [];
  const byJson = new Map<string, ProtoField>();
  for (const f of schema.fields) {
    byJson.set(f[1], f);
    // protojson also accepts the original snake_case names
    byJson.set(
      f[1].replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      f,
    );
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    const f = byJson.get(key);
    const at = path === '' ? key : `${path}.${key}`;
    if (f === undefined) {
      setOwn(out, key, value);
      continue;
    }
    if (value === null) continue; // protojson: null means unset
    const kind = f[2];
    const bad = (want: string) => problems.push(`${at}: must be ${want}, got ${JSON.stringify(value)}`);
    if (typeof kind === 'object') {
      if ('enum' in kind) {
        const known = Object.values(kind.enum.names);
        if (typeof value === 'string' && known.includes(value)) out[f[1]] = value;
        else if (typeof value === 'number' && Number.isInteger(value)) out[f[1]] = kind.enum.names[value] ?? value;
        else bad(`one of ${known.join(', ')}`);
      } else if (isPlainObject(value)) {
        const inner = normalizeProto(kind.message(), value, at);
        problems.push(...inner.problems);
        out[f[1]] = inner.value;
      } else bad('a map');
      continue;
    }
    switch (kind) {
      case 'string':
      case 'string-wrapper':
        if (typeof value === 'string') out[f[1]] = value;
        else bad('a string');
        break;
      case 'bool':
      case 'bool-wrapper':
        if (typeof value === 'boolean') out[f[1]] = value;
        else bad('true or false');
        break;
      case 'int32':
      case 'uint32':
      case 'int64':
      case 'int32-wrapper':
      case 'uint32-wrapper': {
        const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
        if (typeof n === 'number' && Number.isInteger(n) && (!kind.startsWith('uint') || n >= 0)) out[f[1]] = n;
        else bad(kind.startsWith('uint') ? 'a non-negative integer' : 'an integer');
        break;
      }
      case 'duration': {
        const nanos = typeof value === 'string' ? parseProtoDuration(value) : undefined;
        if (nanos !== undefined) out[f[1]] = formatProtoDuration(nanos);
        else bad('a duration in seconds such as "45s" or "1.5s"');
        break;
      }
      case 'map':
        if (isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string')) out[f[1]] = { ...value };
        else bad('a map of strings');
        break;
      case 'repeated-string':
        if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out[f[1]] = [...value];
        else bad('a list of strings');
        break;
      case 'json':
        out[f[1]] = value;
        break;
    }
  }
  return { value: out, problems };
}

/**
 * protojson of a message: fields in declaration order, zero values of scalars and enums
 * omitted (wrappers and messages are printed when set, even to zero), unknown fields last.
 */
export function protoJson(schema: MessageSchema, json: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const known = new Set<string>();
  for (const [, name, kind] of schema.fields) {
    known.add(name);
    if (!Object.hasOwn(json, name)) continue;
    const v = json[name];
    if (v === undefined || v === null) continue;
    if (typeof kind === 'object') {
      if ('enum' in kind) {
        if (enumNumber(kind.enum, v) !== 0) out[name] = v;
      } else if (isPlainObject(v)) out[name] = protoJson(kind.message(), v);
      continue;
    }
    if ((kind === 'string' && v === '') || (kind === 'bool' && v === false) || ((kind === 'int32' || kind === 'uint32' || kind === 'int64') && v === 0))
      continue;
    if ((kind === 'map' && isPlainObject(v) && Object.keys(v).length === 0) || (kind === 'repeated-string' && Array.isArray(v) && v.length === 0)) continue;
    if (kind === 'map' && isPlainObject(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) setOwn(sorted, k, v[k]);
      out[name] = sorted;
      continue;
    }
    out[name] = v;
  }
  for (const k of Object.keys(json)) if (!known.has(k)) setOwn(out, k, json[k]);
  return out;
}
