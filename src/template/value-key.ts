/**
 * @module template/value-key
 * A string that tells Go values apart exactly as far as a template can observe them, for the
 * injection core's render memo (two values with one key render the same). It is injective on
 * what it accepts: every part is self-delimiting (strings JSON-quoted, numbers tagged, -0 kept
 * apart from 0, the Go type tags of typed lists and maps and the nil marker included), and it
 * gives up (undefined) on anything it cannot describe: functions, and Go objects that do not
 * offer a `memoKey` (a struct view answers with its type and the JSON behind it).
 */
import { GO_NIL } from './funcs/nil.js';
import { GO_OBJECT, GoComplex, GoNumber, NO_FIELD, taggedGoType, type GoObject } from './value.js';

class Unkeyable extends Error {}

/** The key of `value`, or undefined when it holds something that cannot be keyed. */
export function valueKey(value: unknown): string | undefined {
  try {
    return key(value);
  } catch (err) {
    // Deeper than the stack allows: not keyed (the caller renders instead).
    if (err instanceof Unkeyable || err instanceof RangeError) return undefined;
    throw err;
  }
}

/**
 * Whether JSON text holds a number token 0: the only place a -0 could hide (JSON.stringify writes
 * it as 0). Native `indexOf` hops over the text; a regular expression with a leading alternation
 * scanned it character by character (it showed in profiles).
 */
function hasZeroToken(text: string): boolean {
  if (text === '0') return true;
  for (const lead of [':0', ',0', '[0']) {
    for (let i = text.indexOf(lead); i !== -1; i = text.indexOf(lead, i + 2)) {
      const next = text.charCodeAt(i + 2);
      if (next === 0x2c || next === 0x5d || next === 0x7d || Number.isNaN(next)) return true; // , ] } or the end
    }
  }
  return false;
}

/** Whether a -0 is anywhere in `json` (a walk that builds nothing, for the rare text with a 0 in it). */
function hasNegativeZero(json: unknown): boolean {
  const stack: unknown[] = [json];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (Object.is(v, -0)) return true;
    } else if (typeof v === 'object' && v !== null) {
      for (const item of Object.values(v)) stack.push(item);
    }
  }
  return false;
}

/**
 * The key of a plain JSON value (the JSON behind a Go struct view): JSON.stringify, which is
 * native and a few times faster than {@link valueKey}, whenever that is exact. It is not when
 * the value holds a -0 (0 and -0 print differently in a template but stringify alike) or
 * something JSON cannot write (a bigint); those take the exact walk. Each form has its own
 * prefix, and which one a value takes depends on the value alone, so keys stay injective.
 */
export function jsonKey(json: unknown): string | undefined {
  let text: string | undefined;
  try {
    text = JSON.stringify(json);
  } catch {
    text = undefined; // a bigint, or too deep: the exact walk decides
  }
  if (text !== undefined && (!hasZeroToken(text) || !hasNegativeZero(json))) return `J${text}`;
  const k = valueKey(json);
  return k === undefined ? undefined : `W${k}`;
}

/**
 * The key of what `fields[from..]` reaches from `value` as a template's field chain would: the
 * walk follows fields and map entries and stops before a method, a missing entry or anything
 * else, keying the value reached (which decides the rest of the chain, error or not) and how far
 * it got.
 */
export function chainKey(value: unknown, fields: readonly string[], from: number): string | undefined {
  let v = value;
  let i = from;
  for (; i < fields.length; i++) {
    const next = step(v, fields[i]);
    if (next === STOP) break;
    v = next;
  }
  const k = valueKey(v);
  return k === undefined ? undefined : `${i}${k}`;
}

const STOP = Symbol('stop');

function step(v: unknown, name: string): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return STOP;
  if ((v as Partial<GoObject>)[GO_OBJECT] === true) {
    const obj = v as GoObject;
    if (obj.getMethod(name) !== undefined) return STOP;
    const f = obj.getField(name);
    return f === NO_FIELD ? STOP : f;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return STOP;
  if (typeof (v as { call?: unknown }).call === 'function') return STOP; // a GoFunc
  return Object.hasOwn(v, name) ? (v as Record<string, unknown>)[name] : STOP;
}

function key(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Object.is(v, -0) ? 'd-0' : `d${v}`;
    case 'boolean':
      return v ? 't' : 'f';
    case 'bigint':
      return `i${v}`;
    case 'undefined':
      return 'u';
    case 'object':
      break;
    default:
      throw new Unkeyable();
  }
  if (v === null) return 'n';
  if (Array.isArray(v)) {
    let out = `[${typeMark(v)}`;
    for (let i = 0; i < v.length; i++) out += `${key(v[i])},`;
    return `${out}]`;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if ((v as Partial<GoObject>)[GO_OBJECT] === true) {
    const obj = v as GoObject;
    const k = obj.memoKey?.();
    if (k === undefined) throw new Unkeyable();
    return `o${JSON.stringify(obj.goType)}${k}`;
  }
  if (proto === Object.prototype || proto === null) {
    // A GoFunc is a plain object with `call`: a function value cannot be keyed.
    if (typeof (v as { call?: unknown }).call === 'function') throw new Unkeyable();
    const rec = v as Record<string, unknown>;
    let out = `{${typeMark(rec)}`;
    for (const k in rec) if (Object.hasOwn(rec, k)) out += `${JSON.stringify(k)}:${key(rec[k])},`;
    return `${out}}`;
  }
  if (v instanceof GoNumber) return `g${v.goType}:${key(v.value)}`;
  if (v instanceof GoComplex) return `c${key(v.re)}${key(v.im)}`;
  throw new Unkeyable();
}

/** The Go type tag and the nil marker, if any, closed by `|`. */
function typeMark(v: object): string {
  const tag = taggedGoType(v);
  const nil = (v as { [GO_NIL]?: boolean })[GO_NIL] === true;
  return `${tag === undefined ? '' : JSON.stringify(tag)}${nil ? 'nil' : ''}|`;
}
