/**
 * @module template/funcs/math
 * Sprig's integer arithmetic (every operand goes through cast.ToInt64; results are Go int64 and
 * wrap on overflow), float rounding helpers, and the integer sequences `until`, `untilStep`, `seq`.
 */
import { goFunc, GoFuncError, GoNumber, INTERFACE, withGoType, type FuncMap } from '../value.js';
import { int64, toFloat64, toInt64 } from './coerce.js';

/** Most elements a sequence function may build (Go would allocate; we refuse clearly). */
const MAX_SEQUENCE = 1 << 20;

function divide(a: unknown, b: unknown, op: 'div' | 'mod'): GoNumber {
  const x = toInt64(a);
  const y = toInt64(b);
  if (y === 0n) throw new GoFuncError('runtime error: integer divide by zero');
  // BigInt division truncates toward zero like Go; MinInt64 / -1 wraps back to MinInt64.
  return int64(op === 'div' ? x / y : x % y);
}

function maxOf(a: unknown, ...rest: unknown[]): GoNumber {
  let m = toInt64(a);
  for (const b of rest) {
    const v = toInt64(b);
    if (v > m) m = v;
  }
  return int64(m);
}

function minOf(a: unknown, ...rest: unknown[]): GoNumber {
  let m = toInt64(a);
  for (const b of rest) {
    const v = toInt64(b);
    if (v < m) m = v;
  }
  return int64(m);
}

/** Sprig's round: `round 3.14159 2` = 3.14; the optional third argument is the rounding point. */
function round(a: unknown, p: bigint, ...rOpt: number[]): number {
  const roundOn = rOpt.length > 0 ? rOpt[0] : 0.5;
  const val = toFloat64(a);
  const pow = Math.pow(10, Number(p));
  const digit = pow * val;
  const frac = Number.isFinite(digit) ? digit - Math.trunc(digit) : Number.isNaN(digit) ? NaN : 0;
  const r = frac >= roundOn ? Math.ceil(digit) : Math.floor(digit);
  return r / pow;
}

/** Sprig's untilStep, as a Go []int. */
function untilStep(start: bigint, stop: bigint, step: bigint): bigint[] {
  const out: bigint[] = [];
  const push = (i: bigint): void => {
    if (out.length >= MAX_SEQUENCE) {
      throw new GoFuncError(`sequence would have more than ${MAX_SEQUENCE} elements`);
    }
    out.push(i);
  };
  if (stop < start) {
    if (step >= 0n) return withGoType(out, '[]int');
    for (let i = start; i > stop; i += step) push(i);
    return withGoType(out, '[]int');
  }
  if (step <= 0n) return withGoType(out, '[]int');
  for (let i = start; i < stop; i += step) push(i);
  return withGoType(out, '[]int');
}

function seq(...params: bigint[]): string {
  let start: bigint;
  let end: bigint;
  let step: bigint;
  switch (params.length) {
    case 1:
      start = 1n;
      end = params[0];
      step = end < start ? -1n : 1n;
      return untilStep(start, end + step, step).join(' ');
    case 2:
      start = params[0];
      end = params[1];
      step = end < start ? -1n : 1n;
      return untilStep(start, end + step, step).join(' ');
    case 3: {
      start = params[0];
      end = params[2];
      step = params[1];
      let increment = 1n;
      if (end < start) {
        increment = -1n;
        if (step > 0n) return '';
      }
      return untilStep(start, end + increment, step).join(' ');
    }
    default:
      return '';
  }
}

export const mathFuncs: FuncMap = {
  add1: goFunc([INTERFACE], (i: unknown) => int64(toInt64(i) + 1n)),
  add: goFunc([], (...xs: unknown[]) => int64(xs.reduce<bigint>((acc, x) => BigInt.asIntN(64, acc + toInt64(x)), 0n)), INTERFACE),
  sub: goFunc([INTERFACE, INTERFACE], (a: unknown, b: unknown) => int64(toInt64(a) - toInt64(b))),
  div: goFunc([INTERFACE, INTERFACE], (a: unknown, b: unknown) => divide(a, b, 'div')),
  mod: goFunc([INTERFACE, INTERFACE], (a: unknown, b: unknown) => divide(a, b, 'mod')),
  mul: goFunc(
    [INTERFACE],
    (a: unknown, ...rest: unknown[]) => int64(rest.reduce<bigint>((acc, x) => BigInt.asIntN(64, acc * toInt64(x)), toInt64(a))),
    INTERFACE,
  ),
  max: goFunc([INTERFACE], maxOf, INTERFACE),
  biggest: goFunc([INTERFACE], maxOf, INTERFACE),
  min: goFunc([INTERFACE], minOf, INTERFACE),
  maxf: goFunc([INTERFACE], (a: unknown, ...r: unknown[]) => r.reduce<number>((m, b) => goMax(m, toFloat64(b)), toFloat64(a)), INTERFACE),
  minf: goFunc([INTERFACE], (a: unknown, ...r: unknown[]) => r.reduce<number>((m, b) => goMin(m, toFloat64(b)), toFloat64(a)), INTERFACE),
  floor: goFunc([INTERFACE], (a: unknown) => Math.floor(toFloat64(a))),
  ceil: goFunc([INTERFACE], (a: unknown) => Math.ceil(toFloat64(a))),
  round: goFunc([INTERFACE, 'int'], round, 'float64'),
  until: goFunc(['int'], (count: bigint) => untilStep(0n, count, count < 0n ? -1n : 1n)),
  untilStep: goFunc(['int', 'int', 'int'], untilStep),
  seq: goFunc([], seq, 'int'),
};

/** math.Max: +Inf wins over NaN, NaN over the rest, +0 beats -0. */
function goMax(x: number, y: number): number {
  if (x === Infinity || y === Infinity) return Infinity;
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  return Math.max(x, y);
}

function goMin(x: number, y: number): number {
  if (x === -Infinity || y === -Infinity) return -Infinity;
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  return Math.min(x, y);
}
