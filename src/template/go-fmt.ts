/**
 * @module template/go-fmt
 * Go's fmt package for template values: `Sprint` (what `{{.x}}` and `print` write), `Sprintln`
 * and `Sprintf` with every verb, flag, width, precision and argument index, including Go's
 * in-band mistake markers (`%!d(string=x)`, `%!(EXTRA ...)`, `%!s(MISSING)`, ...). Templates
 * print through this, so map and slice rendering (`map[a:1 b:2]`, `[1 2]`) and float64
 * rendering (`1e+06`) must be byte-for-byte Go's. The machinery is in fmt-state.ts,
 * printer.ts and printf.ts.
 */

import { Printer } from './printer.js';
import { doPrintf } from './printf.js';
import { isGoObject } from './value.js';

/** Go's `fmt.Sprint` of one value (`%v`): what `{{.}}` prints for a valid value. */
export function formatValue(v: unknown): string {
  // Fast paths for the values templates print most.
  switch (typeof v) {
    case 'string':
      return v;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return BigInt.asIntN(64, v).toString();
    case 'number':
      {
        // JavaScript's shortest digits are Go's; both print these magnitudes without exponent.
        const abs = Math.abs(v);
        if (abs >= 1e-4 && abs < 1e6) return String(v);
        if (v === 0) return Object.is(v, -0) ? '-0' : '0';
      }
      break;
    case 'undefined':
      return '<nil>';
  }
  const p = new Printer();
  p.printArg(v, 'v');
  return p.buf;
}

/**
 * What `{{.}}` writes for a valid value: fmt.Sprint, except that a pointer to a struct is
 * printed as the struct itself (text/template dereferences pointers before printing).
 */
export function formatForTemplate(v: unknown): string {
  if (isGoObject(v) && v.goType.startsWith('*')) {
    const p = new Printer();
    p.derefTop = true;
    p.printArg(v, 'v');
    return p.buf;
  }
  return formatValue(v);
}

/** Go's `fmt.Sprint`: operands printed with %v; spaces between operands when neither is a string. */
export function sprint(args: readonly unknown[]): string {
  let out = '';
  let prevString = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const isString = typeof arg === 'string';
    if (i > 0 && !isString && !prevString) out += ' ';
    out += formatValue(arg);
    prevString = isString;
  }
  return out;
}

/** Go's `fmt.Sprintln`: operands printed with %v, always space-separated, newline at the end. */
export function sprintln(args: readonly unknown[]): string {
  let out = '';
  for (let i = 0; i < args.length; i++) {
    if (i > 0) out += ' ';
    out += formatValue(args[i]);
  }
  return out + '\n';
}

/** Go's `fmt.Sprintf`. */
export function sprintf(format: string, args: readonly unknown[]): string {
  // `printf "%v" x`, common in templates, is Go's Sprint of one operand: the same printArg(x, 'v').
  if (format === '%v' && args.length === 1) return formatValue(args[0]);
  const p = new Printer();
  doPrintf(p, format, args);
  return p.buf;
}
