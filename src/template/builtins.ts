/**
 * @module template/builtins
 * Go's predefined template functions (text/template funcs.go) as GoFuncs, with the same
 * signatures, so calls go through the same argument checks as user functions and fail with
 * Go's messages (`error calling index: index out of range: 5`). `and` and `or` short-circuit
 * in the executor; here they only define the arity.
 */

import { isTrue } from './truth.js';
import { sprint, sprintf, sprintln } from './go-fmt.js';
import { byteLength, fromUtf8, isAscii, isPrint, utf8Bytes } from './quote.js';
import { Kind, REFLECT_VALUE, floatValue, indirectTypeName, intValue, kindOf, mapElemType, prepareArg, uintValue } from './reflect-kinds.js';
import {
  GoComplex,
  GoFuncError,
  GoNumber,
  INTERFACE,
  goTypeName,
  isGoFuncValue,
  taggedGoType,
  withGoType,
  zeroValue,
  type FuncMap,
  type GoFunc,
} from './value.js';

const RV = REFLECT_VALUE;

function fail(message: string): never {
  throw new GoFuncError(message);
}

/** A nil interface unwraps to an invalid value (Go's indirectInterface). */
function indirectInterface(v: unknown): unknown {
  return v === null ? undefined : v;
}

function fn(params: readonly string[], call: (...args: never[]) => unknown, variadic?: string): GoFunc {
  return variadic === undefined ? { params, call } : { params, variadic, call };
}

// ---- len, index, slice ------------------------------------------------------------------

function length(item: unknown): bigint {
  if (item === null) fail('len of nil pointer');
  switch (kindOf(item)) {
    case Kind.String:
      return BigInt(byteLength(item as string));
    case Kind.Slice:
      return BigInt((item as unknown[]).length);
    case Kind.Map: {
      let n = 0;
      for (const key in item as object) if (Object.hasOwn(item as object, key)) n++;
      return BigInt(n);
    }
    case Kind.Invalid:
      // Go calls Type() on the invalid value and recovers reflect's panic.
      fail('reflect: call of reflect.Value.Type on zero Value');
  }
  fail(`len of type ${indirectTypeName(item)}`);
}

/** Go's indexArg: an integer index in [0, cap]. */
function indexArg(index: unknown, cap: number): number {
  let x: bigint;
  switch (kindOf(index)) {
    case Kind.Int:
      x = intValue(index);
      break;
    case Kind.Uint:
      x = BigInt.asIntN(64, uintValue(index));
      break;
    case Kind.Invalid:
      fail('cannot index slice/array with nil');
    default:
      fail(`cannot index slice/array with type ${goTypeName(index)}`);
  }
  if (x < 0n || x > BigInt(cap)) fail(`index out of range: ${x}`);
  return Number(x);
}

function index(item: unknown, ...indexes: unknown[]): unknown {
  item = indirectInterface(item);
  if (item === undefined) fail('index of untyped nil');
  for (let idx of indexes) {
    idx = indirectInterface(idx);
    // A nil (or missing, which is a nil interface{}) element cannot be indexed further.
    if (item === null || item === undefined) fail('index of nil pointer');
    switch (kindOf(item)) {
      case Kind.Slice: {
        const a = item as unknown[];
        const x = indexArg(idx, a.length);
        // Go 1.19 lets x == len through to reflect, which panics.
        if (x === a.length) fail('reflect: slice index out of range');
        item = a[x];
        break;
      }
      case Kind.String: {
        const s = item as string;
        const bytes = isAscii(s) ? undefined : utf8Bytes(s);
        const n = bytes === undefined ? s.length : bytes.length;
        const x = indexArg(idx, n);
        if (x === n) fail('reflect: string index out of range');
        item = new GoNumber('uint8', BigInt(bytes === undefined ? s.charCodeAt(x) : bytes[x]));
        break;
      }
      case Kind.Map: {
        const m = item as Record<string, unknown>;
        let key: unknown;
        try {
          key = prepareArg(idx, 'string');
        } catch (err) {
          fail((err as Error).message);
        }
        item = key !== null && Object.hasOwn(m, key as string) ? m[key as string] : zeroValue(mapElemType(m));
        break;
      }
      default:
        fail(`can't index item of type ${indirectTypeName(item)}`);
    }
  }
  return item;
}

function slice(item: unknown, ...indexes: unknown[]): unknown {
  item = indirectInterface(item);
  if (item === undefined) fail('slice of untyped nil');
  if (indexes.length > 3) fail(`too many slice indexes: ${indexes.length}`);
  let len: number;
  let bytes: Uint8Array | undefined;
  switch (kindOf(item)) {
    case Kind.String:
      if (indexes.length === 3) fail('cannot 3-index slice a string');
      bytes = utf8Bytes(item as string);
      len = bytes.length;
      break;
    case Kind.Slice:
      len = (item as unknown[]).length;
      break;
    default:
      fail(`can't slice item of type ${indirectTypeName(item)}`);
  }
  // Our slices have no spare capacity: cap == len.
  const idx = [0, len, len];
  indexes.forEach((x, i) => {
    idx[i] = indexArg(indirectInterface(x), len);
  });
  if (idx[0] > idx[1]) fail(`invalid slice index: ${idx[0]} > ${idx[1]}`);
  if (indexes.length === 3 && idx[1] > idx[2]) fail(`invalid slice index: ${idx[1]} > ${idx[2]}`);
  if (bytes !== undefined) return fromUtf8(bytes.subarray(idx[0], idx[1]));
  const a = item as unknown[];
  const out = a.slice(idx[0], idx[1]);
  const tag = taggedGoType(a);
  return tag === undefined ? out : withGoType(out, tag);
}

// ---- comparisons ------------------------------------------------------------------------

const enum Basic {
  Invalid,
  Bool,
  Int,
  Uint,
  Float,
  String,
  Complex,
}

function basicKind(v: unknown): Basic {
  switch (kindOf(v)) {
    case Kind.Bool:
      return Basic.Bool;
    case Kind.Int:
      return Basic.Int;
    case Kind.Uint:
      return Basic.Uint;
    case Kind.Float:
      return Basic.Float;
    case Kind.String:
      return Basic.String;
    case Kind.Complex:
      return Basic.Complex;
    default:
      return Basic.Invalid;
  }
}

const BAD_COMPARISON_TYPE = 'invalid type for comparison';
const BAD_COMPARISON = 'incompatible types for comparison';

/** Go's string order: by code point (UTF-8 bytes), not UTF-16 units. */
function lessString(a: string, b: string): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        const fx = x <= 0xdfff ? x + 0x2000 : x - 0x800;
        const fy = y <= 0xdfff ? y + 0x2000 : y - 0x800;
        return fx < fy;
      }
      return x < y;
    }
  }
  return a.length < b.length;
}

function isComparable(v: unknown): boolean {
  const k = kindOf(v);
  return k !== Kind.Slice && k !== Kind.Map && k !== Kind.Func;
}

function eq(arg1: unknown, ...arg2: unknown[]): boolean {
  arg1 = indirectInterface(arg1);
  if (arg2.length === 0) fail('missing argument for comparison');
  const k1 = basicKind(arg1);
  for (let arg of arg2) {
    arg = indirectInterface(arg);
    const k2 = basicKind(arg);
    let truth = false;
    if (k1 !== k2) {
      if (k1 === Basic.Int && k2 === Basic.Uint) truth = intValue(arg1) >= 0n && intValue(arg1) === uintValue(arg);
      else if (k1 === Basic.Uint && k2 === Basic.Int) truth = intValue(arg) >= 0n && uintValue(arg1) === intValue(arg);
      else if (arg1 !== undefined && arg !== undefined) fail(BAD_COMPARISON);
    } else {
      switch (k1) {
        case Basic.Bool:
          truth = arg1 === arg;
          break;
        case Basic.Float:
          truth = floatValue(arg1) === floatValue(arg);
          break;
        case Basic.Int:
          truth = intValue(arg1) === intValue(arg);
          break;
        case Basic.Uint:
          truth = uintValue(arg1) === uintValue(arg);
          break;
        case Basic.String:
          truth = arg1 === arg;
          break;
        case Basic.Complex: {
          const a = arg1 as GoComplex;
          const b = arg as GoComplex;
          truth = a.re === b.re && a.im === b.im;
          break;
        }
        default: {
          // Neither is a basic kind: nil, maps, slices, structs, pointers, funcs.
          const ka = kindOf(arg1);
          const kb = kindOf(arg);
          if (ka !== Kind.Invalid && kb !== Kind.Invalid && ka !== kb) {
            fail(`non-comparable types ${sprintf('%s', [arg1])}: ${goTypeName(arg1)}, ${goTypeName(arg)}: ${sprintf('%v', [arg])}`);
          }
          if (arg1 === undefined || arg === undefined) {
            truth = arg1 === arg;
          } else {
            if (!isComparable(arg)) fail(`non-comparable type ${sprintf('%s', [arg])}: ${goTypeName(arg)}`);
            truth = arg1 === arg;
          }
        }
      }
    }
    if (truth) return true;
  }
  return false;
}

function lt(arg1: unknown, arg2: unknown): boolean {
  arg1 = indirectInterface(arg1);
  const k1 = basicKind(arg1);
  if (k1 === Basic.Invalid) fail(BAD_COMPARISON_TYPE);
  arg2 = indirectInterface(arg2);
  const k2 = basicKind(arg2);
  if (k2 === Basic.Invalid) fail(BAD_COMPARISON_TYPE);
  if (k1 !== k2) {
    if (k1 === Basic.Int && k2 === Basic.Uint) return intValue(arg1) < 0n || intValue(arg1) < uintValue(arg2);
    if (k1 === Basic.Uint && k2 === Basic.Int) return intValue(arg2) >= 0n && uintValue(arg1) < intValue(arg2);
    fail(BAD_COMPARISON);
  }
  switch (k1) {
    case Basic.Float:
      return floatValue(arg1) < floatValue(arg2);
    case Basic.Int:
      return intValue(arg1) < intValue(arg2);
    case Basic.Uint:
      return uintValue(arg1) < uintValue(arg2);
    case Basic.String:
      return lessString(arg1 as string, arg2 as string);
    default:
      fail(BAD_COMPARISON_TYPE);
  }
}

function le(a: unknown, b: unknown): boolean {
  return lt(a, b) || eq(a, b);
}

// ---- call -------------------------------------------------------------------------------

function call(f: unknown, ...args: unknown[]): unknown {
  f = indirectInterface(f);
  if (f === undefined) fail('call of nil');
  if (!isGoFuncValue(f)) fail(`non-function of type ${goTypeName(f)}`);
  const numIn = f.params.length;
  if (f.variadic !== undefined) {
    if (args.length < numIn) fail(`wrong number of args: got ${args.length} want at least ${numIn}`);
  } else if (args.length !== numIn) {
    fail(`wrong number of args: got ${args.length} want ${numIn}`);
  }
  const argv = args.map((arg, i) => {
    const t = i < numIn ? f.params[i] : (f.variadic as string);
    try {
      return prepareArg(indirectInterface(arg), t);
    } catch (err) {
      fail(`arg ${i}: ${(err as Error).message}`);
    }
  });
  return (f.call as (...a: unknown[]) => unknown)(...argv);
}

// ---- escapers ---------------------------------------------------------------------------

/** Go's evalArgs: one string as is, anything else through Sprint with `<no value>` for nil. */
function evalArgs(args: unknown[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  return sprint(args.map((a) => (a === undefined || a === null ? '<no value>' : a)));
}

const HTML_ESCAPES: Record<string, string> = { '"': '&#34;', "'": '&#39;', '&': '&amp;', '<': '&lt;', '>': '&gt;', '\0': '\ufffd' };

function htmlEscape(s: string): string {
  return s.replace(/["'&<>\0]/g, (c) => HTML_ESCAPES[c]);
}

const JS_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '"': '\\"',
  '<': '\\u003C',
  '>': '\\u003E',
  '&': '\\u0026',
  '=': '\\u003D',
};

function jsEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (cp < 0x80) {
      const e = JS_ESCAPES[ch];
      if (e !== undefined) out += e;
      else if (cp < 0x20) out += '\\u00' + cp.toString(16).toUpperCase().padStart(2, '0');
      else out += ch;
    } else if (isPrint(cp)) {
      out += ch;
    } else {
      out += '\\u' + (cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp).toString(16).toUpperCase().padStart(4, '0');
    }
  }
  return out;
}

/** Go's url.QueryEscape. */
function queryEscape(s: string): string {
  let out = '';
  for (const b of utf8Bytes(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (b === 0x20) out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Go's predefined functions. `and`/`or` are evaluated specially by the executor. */
export const BUILTINS: FuncMap = Object.freeze({
  and: fn([RV], (a: unknown, ...rest: unknown[]) => (rest.length === 0 ? a : rest[rest.length - 1]), RV),
  or: fn([RV], (a: unknown, ...rest: unknown[]) => (rest.length === 0 ? a : rest[rest.length - 1]), RV),
  not: fn([RV], (a: unknown) => !isTrue(indirectInterface(a))),
  call: fn([RV], call, RV),
  html: fn([], (...args: unknown[]) => htmlEscape(evalArgs(args)), INTERFACE),
  js: fn([], (...args: unknown[]) => jsEscape(evalArgs(args)), INTERFACE),
  urlquery: fn([], (...args: unknown[]) => queryEscape(evalArgs(args)), INTERFACE),
  index: fn([RV], index, RV),
  slice: fn([RV], slice, RV),
  len: fn([RV], length),
  print: fn([], (...args: unknown[]) => sprint(args), INTERFACE),
  printf: fn(['string'], (format: string, ...args: unknown[]) => sprintf(format, args), INTERFACE),
  println: fn([], (...args: unknown[]) => sprintln(args), INTERFACE),
  eq: fn([RV], eq, RV),
  ne: fn([RV, RV], (a: unknown, b: unknown) => !eq(a, b)),
  lt: fn([RV, RV], lt),
  le: fn([RV, RV], le),
  gt: fn([RV, RV], (a: unknown, b: unknown) => !le(a, b)),
  ge: fn([RV, RV], (a: unknown, b: unknown) => !lt(a, b)),
});
