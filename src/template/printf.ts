/**
 * @module template/printf
 * Go's Printf format parsing (doPrintf): flags, width, precision, `*` arguments, explicit
 * argument indexes `%[n]`, and the mistakes reported in-band: `%!d(MISSING)`,
 * `%!(EXTRA type=value)`, `%!(BADWIDTH)`, `%!(BADPREC)`, `%!(NOVERB)`, `%!v(BADINDEX)`.
 */

import { INT_BITS, UNSIGNED, clearFlags } from './fmt-state.js';
import type { Printer } from './printer.js';
import { GoNumber, goTypeName } from './value.js';

export function doPrintf(p: Printer, format: string, a: readonly unknown[]): void {
  const end = format.length;
  let argNum = 0;
  let afterIndex = false;
  let reordered = false;
  let goodArgNum = true;
  const f = p.f;

  /** Go's argNumber: an explicit `[n]` index at format[i], if any. */
  const argNumber = (num: number, i: number): [number, number, boolean] => {
    if (i >= end || format[i] !== '[') return [num, i, false];
    reordered = true;
    const [index, wid, ok] = parseArgNumber(format, i);
    if (ok && index >= 0 && index < a.length) return [index, i + wid, true];
    goodArgNum = false;
    return [num, i + wid, ok];
  };

  let i = 0;
  formatLoop: while (i < end) {
    goodArgNum = true;
    const lasti = i;
    while (i < end && format.charCodeAt(i) !== 37 /* % */) i++;
    if (i > lasti) p.buf += format.slice(lasti, i);
    if (i >= end) break;
    i++; // skip %
    clearFlags(f);
    simpleFormat: for (; i < end; i++) {
      const c = format[i];
      switch (c) {
        case '#':
          f.sharp = true;
          break;
        case '0':
          f.zero = !f.minus;
          break;
        case '+':
          f.plus = true;
          break;
        case '-':
          f.minus = true;
          f.zero = false;
          break;
        case ' ':
          f.space = true;
          break;
        default:
          if (c >= 'a' && c <= 'z' && argNum < a.length) {
            if (c === 'v') {
              f.sharpV = f.sharp;
              f.sharp = false;
              f.plusV = f.plus;
              f.plus = false;
            }
            p.printArg(a[argNum], c);
            argNum++;
            i++;
            continue formatLoop;
          }
          break simpleFormat;
      }
    }

    [argNum, i, afterIndex] = argNumber(argNum, i);

    if (i < end && format[i] === '*') {
      i++;
      [f.wid, f.widPresent, argNum] = intFromArg(a, argNum);
      if (!f.widPresent) p.buf += '%!(BADWIDTH)';
      if (f.wid < 0) {
        f.wid = -f.wid;
        f.minus = true;
        f.zero = false;
      }
      afterIndex = false;
    } else {
      [f.wid, f.widPresent, i] = parsenum(format, i, end);
      if (afterIndex && f.widPresent) goodArgNum = false;
    }

    if (i + 1 < end && format[i] === '.') {
      i++;
      if (afterIndex) goodArgNum = false;
      [argNum, i, afterIndex] = argNumber(argNum, i);
      if (i < end && format[i] === '*') {
        i++;
        [f.prec, f.precPresent, argNum] = intFromArg(a, argNum);
        if (f.prec < 0) {
          f.prec = 0;
          f.precPresent = false;
        }
        if (!f.precPresent) p.buf += '%!(BADPREC)';
        afterIndex = false;
      } else {
        [f.prec, f.precPresent, i] = parsenum(format, i, end);
        if (!f.precPresent) {
          f.prec = 0;
          f.precPresent = true;
        }
      }
    }

    if (!afterIndex) [argNum, i, afterIndex] = argNumber(argNum, i);

    if (i >= end) {
      p.buf += '%!(NOVERB)';
      break;
    }

    const cp = format.codePointAt(i) as number;
    const verb = String.fromCodePoint(cp);
    i += verb.length;

    if (verb === '%') {
      p.buf += '%';
    } else if (!goodArgNum) {
      p.buf += '%!' + verb + '(BADINDEX)';
    } else if (argNum >= a.length) {
      p.buf += '%!' + verb + '(MISSING)';
    } else {
      if (verb === 'v') {
        f.sharpV = f.sharp;
        f.sharp = false;
        f.plusV = f.plus;
        f.plus = false;
      }
      p.printArg(a[argNum], verb);
      argNum++;
    }
  }

  if (!reordered && argNum < a.length) {
    clearFlags(f);
    p.buf += '%!(EXTRA ';
    for (let k = argNum; k < a.length; k++) {
      if (k > argNum) p.buf += ', ';
      const arg = a[k];
      if (arg === null || arg === undefined) {
        p.buf += '<nil>';
      } else {
        p.buf += goTypeName(arg) + '=';
        p.printArg(arg, 'v');
      }
    }
    p.buf += ')';
  }
}

const TOO_LARGE = 1e6;

/** Go's parsenum: [value, present, next index]. */
function parsenum(s: string, start: number, end: number): [number, boolean, number] {
  if (start >= end) return [0, false, end];
  let num = 0;
  let isnum = false;
  let i = start;
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    if (num > TOO_LARGE || num < -TOO_LARGE) return [0, false, end];
    num = num * 10 + (c - 48);
    isnum = true;
  }
  return [num, isnum, i];
}

/** Go's parseArgNumber on format[i] === '[': [index, bytes consumed, ok]. */
function parseArgNumber(format: string, i: number): [number, number, boolean] {
  if (format.length - i < 3) return [0, 1, false];
  for (let j = i + 1; j < format.length; j++) {
    if (format[j] === ']') {
      const [width, ok, newi] = parsenum(format, i + 1, j);
      if (!ok || newi !== j) return [0, j - i + 1, false];
      return [width - 1, j - i + 1, true];
    }
  }
  return [0, 1, false];
}

/** Go's intFromArg: an int-typed argument for `*` width or precision. */
function intFromArg(a: readonly unknown[], argNum: number): [number, boolean, number] {
  let num = 0;
  let isInt = false;
  let next = argNum;
  if (argNum < a.length) {
    const v = a[argNum];
    let big: bigint | undefined;
    if (typeof v === 'bigint') big = v;
    else if (v instanceof GoNumber && typeof v.value === 'bigint') {
      const bits = INT_BITS[v.goType] ?? 64;
      big = UNSIGNED.has(v.goType) ? BigInt.asUintN(bits, v.value) : BigInt.asIntN(bits, v.value);
      if (UNSIGNED.has(v.goType) && big >= 1n << 63n) big = undefined;
    }
    if (big !== undefined && big >= -(1n << 63n) && big < 1n << 63n) {
      num = Number(big);
      isInt = true;
    }
    next = argNum + 1;
    if (num > TOO_LARGE || num < -TOO_LARGE) {
      num = 0;
      isInt = false;
    }
  }
  return [num, isInt, next];
}
