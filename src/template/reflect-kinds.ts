/**
 * @module template/reflect-kinds
 * Go's reflect kinds over our value model (value.ts): which values are maps, slices, structs,
 * numbers of which signedness, which types can be nil, and how template constants and
 * arguments convert to a parameter's Go type. The executor and the built-ins share these so
 * `wrong type for value; expected int; got float64` comes out the same everywhere.
 */

import {
  elementType,
  GoComplex,
  GoNumber,
  INTERFACE,
  MAP_OF_INTERFACE,
  SLICE_OF_INTERFACE,
  goTypeName,
  isGoFuncValue,
  isGoObject,
  taggedGoType,
} from './value.js';

export const REFLECT_VALUE = 'reflect.Value';

export const enum Kind {
  Invalid,
  Bool,
  Int,
  Uint,
  Float,
  String,
  Slice,
  Map,
  Struct,
  Pointer,
  Func,
  Complex,
}

const UINT_TYPES = new Set(['uint', 'uint8', 'uint16', 'uint32', 'uint64', 'uintptr']);
const INT_TYPES = new Set(['int', 'int8', 'int16', 'int32', 'int64']);
const BITS: Record<string, number> = {
  int: 64,
  int8: 8,
  int16: 16,
  int32: 32,
  int64: 64,
  uint: 64,
  uint8: 8,
  uint16: 16,
  uint32: 32,
  uint64: 64,
  uintptr: 64,
};

/** reflect.Kind of a value; null and undefined are Invalid (a nil interface unwraps to invalid). */
export function kindOf(v: unknown): Kind {
  switch (typeof v) {
    case 'boolean':
      return Kind.Bool;
    case 'string':
      return Kind.String;
    case 'number':
      return Kind.Float;
    case 'bigint':
      return Kind.Int;
    case 'object':
      if (v === null) return Kind.Invalid;
      if (Array.isArray(v)) return Kind.Slice;
      if (v instanceof GoNumber) {
        if (typeof v.value === 'number') return Kind.Float;
        return UINT_TYPES.has(v.goType) ? Kind.Uint : Kind.Int;
      }
      if (v instanceof GoComplex) return Kind.Complex;
      if (isGoObject(v)) return v.goType.startsWith('*') ? Kind.Pointer : Kind.Struct;
      if (isGoFuncValue(v)) return Kind.Func;
      return Kind.Map;
    default:
      return Kind.Invalid;
  }
}

/** The Go type of a value after Go's `indirect` (a pointer to a struct shows the struct type). */
export function indirectTypeName(v: unknown): string {
  if (isGoObject(v) && v.goType.startsWith('*')) return v.goType.slice(1);
  return goTypeName(v);
}

/** Signed integer value of an Int-kind value, wrapped to its width. */
export function intValue(v: unknown): bigint {
  if (typeof v === 'bigint') return BigInt.asIntN(64, v);
  const n = v as GoNumber;
  return BigInt.asIntN(BITS[n.goType] ?? 64, n.value as bigint);
}

/** Unsigned integer value of a Uint-kind value, wrapped to its width. */
export function uintValue(v: unknown): bigint {
  const n = v as GoNumber;
  return BigInt.asUintN(BITS[n.goType] ?? 64, n.value as bigint);
}

/** Float value of a Float-kind value. */
export function floatValue(v: unknown): number {
  return typeof v === 'number' ? v : ((v as GoNumber).value as number);
}

/** Map element type of a map value. */
export function mapElemType(m: object): string {
  const tag = taggedGoType(m);
  if (tag === undefined || tag === MAP_OF_INTERFACE) return INTERFACE;
  return elementType(tag);
}

/** Slice element type of an array value. */
export function sliceElemType(a: readonly unknown[]): string {
  const tag = taggedGoType(a);
  if (tag === undefined || tag === SLICE_OF_INTERFACE) return INTERFACE;
  return elementType(tag);
}

const TYPE_KINDS = new Map<string, Kind | 'interface' | 'reflect'>();

/** Kind of a Go type name (for parameter types); memoised, parameter types repeat. */
export function typeKind(t: string): Kind | 'interface' | 'reflect' {
  let k = TYPE_KINDS.get(t);
  if (k === undefined) {
    k = computeTypeKind(t);
    if (TYPE_KINDS.size < 10_000) TYPE_KINDS.set(t, k);
  }
  return k;
}

function computeTypeKind(t: string): Kind | 'interface' | 'reflect' {
  if (t === REFLECT_VALUE) return 'reflect';
  if (t === INTERFACE || t === 'any') return 'interface';
  if (t === 'bool') return Kind.Bool;
  if (t === 'string') return Kind.String;
  if (t === 'float64' || t === 'float32') return Kind.Float;
  if (INT_TYPES.has(t)) return Kind.Int;
  if (UINT_TYPES.has(t)) return Kind.Uint;
  if (t.startsWith('[]')) return Kind.Slice;
  if (t.startsWith('map[')) return Kind.Map;
  if (t.startsWith('*')) return Kind.Pointer;
  if (t.startsWith('func')) return Kind.Func;
  return Kind.Struct;
}

/** Go's canBeNil for a parameter type. */
export function canBeNil(t: string): boolean {
  const k = typeKind(t);
  return k === 'reflect' || k === 'interface' || k === Kind.Slice || k === Kind.Map || k === Kind.Pointer || k === Kind.Func;
}

/** The nil of a nillable parameter type: invalid for reflect.Value, null otherwise. */
export function nilOf(t: string): unknown {
  return t === REFLECT_VALUE ? undefined : null;
}

/** An integer constant stored in a parameter of integer type `t` (reflect's SetInt/SetUint truncate). */
export function intOfType(v: bigint, t: string): unknown {
  if (t === 'int') return BigInt.asIntN(64, v);
  const bits = BITS[t] ?? 64;
  return new GoNumber(t as never, UINT_TYPES.has(t) ? BigInt.asUintN(bits, v) : BigInt.asIntN(bits, v));
}

/** A float constant stored in a parameter of float type `t`. */
export function floatOfType(v: number, t: string): unknown {
  return t === 'float32' ? new GoNumber('float32', Math.fround(v)) : v;
}

/** Whether `v` (non-nil) may be passed for a parameter of type `t` without conversion. */
export function assignable(v: unknown, t: string): boolean {
  const name = goTypeName(v);
  if (name === t) return true;
  // One dereference or address-of, as Go's validateType allows for struct pointers.
  if (isGoObject(v)) return t === '*' + name || '*' + t === name;
  return false;
}

/** Go's prepareArg (used by `index` and `call`): nil, assignable, or int-to-int conversion. */
export function prepareArg(v: unknown, t: string): unknown {
  if (v === undefined || v === null) {
    if (!canBeNil(t)) throw new Error(`value is nil; should be of type ${t}`);
    return nilOf(t);
  }
  const k = typeKind(t);
  if (k === 'interface' || k === 'reflect' || assignable(v, t)) return v;
  const vk = kindOf(v);
  if ((vk === Kind.Int || vk === Kind.Uint) && (k === Kind.Int || k === Kind.Uint)) {
    return intOfType(vk === Kind.Int ? intValue(v) : uintValue(v), t);
  }
  throw new Error(`value has type ${goTypeName(v)}; should be ${t}`);
}
