/**
 * @module template/fmt-state
 * The formatting half of Go's fmt package (format.go): flags, width and precision, padding
 * (which counts runes), and how strings, booleans, integers, floats and complex numbers are
 * written for each verb. The value-walking half (maps, slices, structs, mistakes) is
 * printer.ts, which extends this class.
 */

import { formatFloat } from './format-float.js';
import { canBackquote, quote, quoteRune, quoteToAscii, runeCount, truncateRunes, utf8Bytes, isPrint } from './quote.js';
import type { GoComplex } from './value.js';

export interface Flags {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  plusV: boolean;
  sharpV: boolean;
  widPresent: boolean;
  precPresent: boolean;
  wid: number;
  prec: number;
}

function newFlags(): Flags {
  return {
    plus: false,
    minus: false,
    sharp: false,
    space: false,
    zero: false,
    plusV: false,
    sharpV: false,
    widPresent: false,
    precPresent: false,
    wid: 0,
    prec: 0,
  };
}

export function clearFlags(f: Flags): void {
  f.plus = f.minus = f.sharp = f.space = f.zero = f.plusV = f.sharpV = false;
  f.widPresent = f.precPresent = false;
  f.wid = f.prec = 0;
}

export const UNSIGNED = new Set<string>(['uint', 'uint8', 'uint16', 'uint32', 'uint64', 'uintptr']);
export const INT_BITS: Record<string, number> = {
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
const U64 = 1n << 64n;
export const LDIGITS = '0123456789abcdefx';
const UDIGITS = '0123456789ABCDEFX';
/** Go's `fmt` state plus the per-kind formatting of pp (fmtInteger, fmtFloat, fmtString, ...). */
export abstract class FmtState {
  buf = '';
  f: Flags = newFlags();
  protected erroring = false;

  // ---- padding ----------------------------------------------------------------------------

  protected writePadding(n: number): void {
    if (n <= 0) return;
    this.buf += (this.f.zero ? '0' : ' ').repeat(n);
  }

  /** Go's fmt.pad: width counts runes. */
  pad(s: string): void {
    const f = this.f;
    if (!f.widPresent || f.wid === 0) {
      this.buf += s;
      return;
    }
    const width = f.wid - runeCount(s);
    if (!f.minus) {
      this.writePadding(width);
      this.buf += s;
    } else {
      this.buf += s;
      this.writePadding(width);
    }
  }

  // ---- strings ----------------------------------------------------------------------------

  protected fmtS(s: string): void {
    if (this.f.precPresent) s = truncateRunes(s, this.f.prec);
    this.pad(s);
  }

  protected fmtQ(s: string): void {
    if (this.f.precPresent) s = truncateRunes(s, this.f.prec);
    if (this.f.sharp && canBackquote(s)) {
      this.pad('`' + s + '`');
      return;
    }
    this.pad(this.f.plus ? quoteToAscii(s) : quote(s));
  }

  protected fmtSx(s: string, digits: string): void {
    const f = this.f;
    const b = utf8Bytes(s);
    let length = b.length;
    if (f.precPresent && f.prec < length) length = f.prec;
    let width = 2 * length;
    if (width > 0) {
      if (f.space) {
        if (f.sharp) width *= 2;
        width += length - 1;
      } else if (f.sharp) {
        width += 2;
      }
    } else {
      if (f.widPresent) this.writePadding(f.wid);
      return;
    }
    if (f.widPresent && f.wid > width && !f.minus) this.writePadding(f.wid - width);
    let out = '';
    if (f.sharp) out += '0' + digits[16];
    for (let i = 0; i < length; i++) {
      if (f.space && i > 0) {
        out += ' ';
        if (f.sharp) out += '0' + digits[16];
      }
      out += digits[b[i] >> 4] + digits[b[i] & 15];
    }
    this.buf += out;
    if (f.widPresent && f.wid > width && f.minus) this.writePadding(f.wid - width);
  }

  protected fmtString(s: string, verb: string, value: unknown): void {
    switch (verb) {
      case 'v':
        if (this.f.sharpV) this.fmtQ(s);
        else this.fmtS(s);
        return;
      case 's':
        this.fmtS(s);
        return;
      case 'x':
        this.fmtSx(s, LDIGITS);
        return;
      case 'X':
        this.fmtSx(s, UDIGITS);
        return;
      case 'q':
        this.fmtQ(s);
        return;
      default:
        this.badVerb(verb, value);
    }
  }

  // ---- booleans ---------------------------------------------------------------------------

  protected fmtBool(v: boolean, verb: string): void {
    if (verb === 't' || verb === 'v') this.pad(v ? 'true' : 'false');
    else this.badVerb(verb, v);
  }

  // ---- integers ---------------------------------------------------------------------------

  /** Go's fmt.fmtInteger: `u` is the value (negative allowed only when signed). */
  protected fmtIntegerBase(value: bigint, base: number, isSigned: boolean, verb: string, digits: string): void {
    const f = this.f;
    const negative = isSigned && value < 0n;
    let u = negative ? -value : value;
    let prec = 0;
    if (f.precPresent) {
      prec = f.prec;
      if (prec === 0 && u === 0n) {
        const oldZero = f.zero;
        f.zero = false;
        this.writePadding(f.wid);
        f.zero = oldZero;
        return;
      }
    } else if (f.zero && f.widPresent) {
      prec = f.wid;
      if (negative || f.plus || f.space) prec--;
    }
    let s = u.toString(base);
    if (digits === UDIGITS) s = s.toUpperCase();
    if (prec > s.length) s = '0'.repeat(prec - s.length) + s;
    if (f.sharp) {
      if (base === 2) s = '0b' + s;
      else if (base === 8) {
        if (s[0] !== '0') s = '0' + s;
      } else if (base === 16) s = '0' + digits[16] + s;
    }
    if (verb === 'O') s = '0o' + s;
    if (negative) s = '-' + s;
    else if (f.plus) s = '+' + s;
    else if (f.space) s = ' ' + s;
    const oldZero = f.zero;
    f.zero = false;
    this.pad(s);
    f.zero = oldZero;
    u = 0n;
  }

  protected fmtC(u: bigint): void {
    const cp = u > 0x10ffffn || (u >= 0xd800n && u <= 0xdfffn) ? 0xfffd : Number(u);
    this.pad(String.fromCodePoint(cp));
  }

  protected fmtQc(u: bigint): void {
    const cp = u > 0x10ffffn ? 0xfffd : Number(u);
    this.pad(quoteRune(cp, this.f.plus));
  }

  protected fmtUnicode(u: bigint): void {
    const f = this.f;
    let prec = 4;
    if (f.precPresent && f.prec > 4) prec = f.prec;
    let hex = u.toString(16).toUpperCase();
    if (hex.length < prec) hex = '0'.repeat(prec - hex.length) + hex;
    let s = 'U+' + hex;
    if (f.sharp && u <= 0x10ffffn && isPrint(Number(u))) s += " '" + String.fromCodePoint(Number(u)) + "'";
    const oldZero = f.zero;
    f.zero = false;
    this.pad(s);
    f.zero = oldZero;
  }

  /** Go's pp.fmtInteger. `value` is the signed value or the unsigned value. */
  protected fmtInteger(value: bigint, isSigned: boolean, verb: string, original: unknown): void {
    const asUnsigned = value < 0n ? value + U64 : value;
    switch (verb) {
      case 'v':
        if (this.f.sharpV && !isSigned) {
          const oldSharp = this.f.sharp;
          this.f.sharp = true;
          this.fmtIntegerBase(value, 16, false, 'v', LDIGITS);
          this.f.sharp = oldSharp;
        } else {
          this.fmtIntegerBase(value, 10, isSigned, verb, LDIGITS);
        }
        return;
      case 'd':
        this.fmtIntegerBase(value, 10, isSigned, verb, LDIGITS);
        return;
      case 'b':
        this.fmtIntegerBase(value, 2, isSigned, verb, LDIGITS);
        return;
      case 'o':
      case 'O':
        this.fmtIntegerBase(value, 8, isSigned, verb, LDIGITS);
        return;
      case 'x':
        this.fmtIntegerBase(value, 16, isSigned, verb, LDIGITS);
        return;
      case 'X':
        this.fmtIntegerBase(value, 16, isSigned, verb, UDIGITS);
        return;
      case 'c':
        this.fmtC(asUnsigned);
        return;
      case 'q':
        this.fmtQc(asUnsigned);
        return;
      case 'U':
        this.fmtUnicode(asUnsigned);
        return;
      default:
        this.badVerb(verb, original);
    }
  }

  // ---- floats -----------------------------------------------------------------------------

  /** Go's fmt.fmtFloat: sign handling, `#` and zero padding around strconv's digits. */
  protected fmtFloatRaw(v: number, size: 32 | 64, verb: string, prec: number): void {
    const f = this.f;
    if (f.precPresent) prec = f.prec;
    let num = formatFloat(v, verb, prec, size);
    if (num[0] === '-' || num[0] === '+') {
      // keep
    } else {
      num = '+' + num;
    }
    if (f.space && num[0] === '+' && !f.plus) num = ' ' + num.slice(1);
    if (num[1] === 'I' || num[1] === 'N') {
      const oldZero = f.zero;
      f.zero = false;
      if (num[1] === 'N' && !f.space && !f.plus) num = num.slice(1);
      this.pad(num);
      f.zero = oldZero;
      return;
    }
    if (f.sharp && verb !== 'b') {
      let digits = 0;
      switch (verb) {
        case 'v':
        case 'g':
        case 'G':
        case 'x':
          digits = prec;
          if (digits === -1) digits = 6;
      }
      let tail = '';
      let hasDecimalPoint = false;
      let sawNonzeroDigit = false;
      for (let i = 1; i < num.length; i++) {
        const c = num[i];
        if (c === '.') {
          hasDecimalPoint = true;
        } else if (c === 'p' || c === 'P') {
          tail = num.slice(i);
          num = num.slice(0, i);
          break;
        } else if ((c === 'e' || c === 'E') && verb !== 'x' && verb !== 'X') {
          tail = num.slice(i);
          num = num.slice(0, i);
          break;
        } else {
          if (c !== '0') sawNonzeroDigit = true;
          if (sawNonzeroDigit) digits--;
        }
      }
      if (!hasDecimalPoint) {
        if (num.length === 2 && num[1] === '0') digits--;
        num += '.';
      }
      while (digits > 0) {
        num += '0';
        digits--;
      }
      num += tail;
    }
    if (f.plus || num[0] !== '+') {
      if (f.zero && f.widPresent && f.wid > num.length) {
        this.buf += num[0];
        this.writePadding(f.wid - num.length);
        this.buf += num.slice(1);
        return;
      }
      this.pad(num);
      return;
    }
    this.pad(num.slice(1));
  }

  protected fmtFloat(v: number, size: 32 | 64, verb: string, original: unknown): void {
    switch (verb) {
      case 'v':
        this.fmtFloatRaw(v, size, 'g', -1);
        return;
      case 'b':
      case 'g':
      case 'G':
      case 'x':
      case 'X':
        this.fmtFloatRaw(v, size, verb, -1);
        return;
      case 'f':
      case 'e':
      case 'E':
        this.fmtFloatRaw(v, size, verb, 6);
        return;
      case 'F':
        this.fmtFloatRaw(v, size, 'f', 6);
        return;
      default:
        this.badVerb(verb, original);
    }
  }

  /** Go's fmtComplex: `(re+imi)`, the imaginary part always signed. */
  protected fmtComplex(v: GoComplex, verb: string): void {
    switch (verb) {
      case 'v':
      case 'b':
      case 'g':
      case 'G':
      case 'x':
      case 'X':
      case 'f':
      case 'F':
      case 'e':
      case 'E': {
        const oldPlus = this.f.plus;
        this.buf += '(';
        this.fmtFloat(v.re, 64, verb, v.re);
        this.f.plus = true;
        this.fmtFloat(v.im, 64, verb, v.im);
        this.buf += 'i)';
        this.f.plus = oldPlus;
        return;
      }
      default:
        this.badVerb(verb, v);
    }
  }

  /** `%!verb(type=value)`. */
  abstract badVerb(verb: string, value: unknown): void;
}
