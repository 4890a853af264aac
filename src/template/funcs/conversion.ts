/**
 * @module template/funcs/conversion
 * Sprig's number and string conversions. `atoi` is strconv.Atoi with the error dropped (so
 * "x" is 0 and an out-of-range value is clamped); `int`, `int64`, `float64` use spf13/cast v1.5
 * rules (base prefixes, "12.00" as 12, bool as 0/1, anything unconvertible as 0).
 */
import { sprint } from '../go-fmt.js';
import { goFunc, INTERFACE, type FuncMap } from '../value.js';
import { int64, strval, toFloat64, toInt64 } from './coerce.js';
import { parseInt64 } from '../strconv.js';

/** Sprig's toDecimal: the value printed, read as octal (bad input gives 0). */
function toDecimal(v: unknown): bigint {
  const r = parseInt64(sprint([v === undefined ? null : v]), 8);
  return r.err === null ? r.value : 0n;
}

export const conversionFuncs: FuncMap = {
  atoi: goFunc(['string'], (a: string) => parseInt64(a, 10).value),
  int: goFunc([INTERFACE], (v: unknown) => toInt64(v)),
  int64: goFunc([INTERFACE], (v: unknown) => int64(toInt64(v))),
  float64: goFunc([INTERFACE], toFloat64),
  toString: goFunc([INTERFACE], (v: unknown) => strval(v === undefined ? null : v)),
  toDecimal: goFunc([INTERFACE], (v: unknown) => int64(toDecimal(v))),
};
