/**
 * @module template/funcs/coerce
 * Sprig's loose conversions, shared by most function files: `strval` (fmt's %v for non-strings),
 * spf13/cast's `ToInt64`/`ToFloat64` (errors become 0, exactly as Sprig ignores them), Sprig's
 * `empty`, and reflect.DeepEqual over the Go value model. The oracle's cast is v1.5.0.
 */
import { formatValue } from '../go-fmt.js';
import { GoNumber, goTypeName, isGoFuncValue, isGoObject } from '../value.js';
import { float64ToInt64, parseFloat64, parseInt64 } from '../strconv.js';

/** A Go complex128 (template constants like `1i`), recognised through its Go type name. */
export function isGoComplex(v: unknown): v is { re: number; im: number } {
  return typeof v === 'object' && v !== null && goTypeName(v) === 'complex128';
}

export function isNil(v: unknown): v is null | undefined {
  return v === null || v === undefined;
}

/** A Go `interface{}` result that is nil: the engine's pipeline turns it into "no value". */
export function ifaceResult(v: unknown): unknown {
  return v === null ? undefined : v;
}

/** Go's int64 overflow wrap-around. */
function wrap64(n: bigint): bigint {
  return BigInt.asIntN(64, n);
}

export function int64(n: bigint): GoNumber {
  return new GoNumber('int64', wrap64(n));
}

/** Sprig's strval: strings as they are, everything else through fmt's %v. */
export function strval(v: unknown): string {
  if (typeof v === 'string') return v;
  return formatValue(v);
}

/** cast's trimZeroDecimal: "12.00" -> "12", anything else unchanged. */
function trimZeroDecimal(s: string): string {
  let foundZero = false;
  for (let i = s.length; i > 0; i--) {
    const c = s[i - 1];
    if (c === '.') {
      if (foundZero) return s.slice(0, i - 1);
    } else if (c === '0') {
      foundZero = true;
    } else {
      return s;
    }
  }
  return s;
}

/** cast.ToInt64E with the error dropped (0), as Sprig's toInt64/add/... use it. Also cast.ToInt. */
export function toInt64(v: unknown): bigint {
  switch (typeof v) {
    case 'bigint':
      return v;
    case 'number':
      return float64ToInt64(v);
    case 'boolean':
      return v ? 1n : 0n;
    case 'string': {
      const r = parseInt64(trimZeroDecimal(v), 0);
      return r.err === null ? r.value : 0n;
    }
    case 'object':
      if (v instanceof GoNumber) return typeof v.value === 'bigint' ? wrap64(v.value) : float64ToInt64(v.value);
      return 0n;
    default:
      return 0n;
  }
}

/** cast.ToFloat64E with the error dropped (0). */
export function toFloat64(v: unknown): number {
  switch (typeof v) {
    case 'number':
      return v;
    case 'bigint':
      return Number(v);
    case 'boolean':
      return v ? 1 : 0;
    case 'string': {
      const r = parseFloat64(v);
      return r.err === null ? r.value : 0;
    }
    case 'object':
      if (v instanceof GoNumber) return Number(v.value);
      return 0;
    default:
      return 0;
  }
}

/** Sprig's `empty`: the zero value of its type (structs are never empty). */
export function isEmpty(v: unknown): boolean {
  switch (typeof v) {
    case 'undefined':
      return true;
    case 'string':
      return v.length === 0;
    case 'boolean':
      return !v;
    case 'number':
      return v === 0;
    case 'bigint':
      return v === 0n;
    case 'object':
      if (v === null) return true;
      if (v instanceof GoNumber) return typeof v.value === 'bigint' ? v.value === 0n : v.value === 0;
      if (isGoComplex(v)) return v.re === 0 && v.im === 0;
      if (Array.isArray(v)) return v.length === 0;
      if (isGoObject(v) || isGoFuncValue(v)) return false;
      return Object.keys(v).length === 0;
    default:
      return false;
  }
}

/** reflect.DeepEqual over the value model: types must match exactly (int vs int64 differ). */
export function goDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  if (goTypeName(a) !== goTypeName(b)) return false;
  if (isNil(a) || isNil(b)) return isNil(a) && isNil(b);
  if (typeof a === 'number') return a === b;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof GoNumber) return b instanceof GoNumber && a.value === b.value;
  if (isGoComplex(a)) return isGoComplex(b) && a.re === b.re && a.im === b.im;
  if (isGoObject(a) || isGoObject(b)) {
    return isGoObject(a) && isGoObject(b) && goDeepEqual(a.toJSON(), b.toJSON());
  }
  if (isGoFuncValue(a) || isGoFuncValue(b)) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!goDeepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  for (const k of keys) {
    if (!Object.hasOwn(bo, k) || !goDeepEqual(ao[k], bo[k])) return false;
  }
  return true;
}

/** Go's reflect.Kind name of a value for Sprig's "Cannot ... on type %s" messages. */
export function kindForError(v: unknown): string {
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && !isGoObject(v) && !(v instanceof GoNumber) && !isGoComplex(v)) {
    return isGoFuncValue(v) ? 'func' : 'map';
  }
  if (isGoObject(v)) return v.goType.startsWith('*') ? 'ptr' : 'struct';
  const t = goTypeName(v);
  return t === '<nil>' ? 'invalid' : t;
}

/** A Go map value (plain or tagged object, not a struct/number/func). */
export function isGoMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoNumber) && !isGoComplex(v) && !isGoObject(v) && !isGoFuncValue(v);
}
