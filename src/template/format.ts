/**
 * @module template/format
 * Go's fmt package for template values: `Sprint` (what `{{.x}}` and `print` write), `Sprintln`
 * and `Sprintf` with every verb, flag, width, precision and argument index, including Go's
 * in-band mistake markers (`%!d(string=x)`, `%!(EXTRA ...)`, `%!s(MISSING)`, ...). Templates
 * print through this, so map and slice rendering (`map[a:1 b:2]`, `[1 2]`) and float64
 * rendering (`1e+06`) must be byte-for-byte Go's.
 */

import { formatFloat } from './format-float.js';
import {
  canBackquote, quote, quoteRune, quoteToAscii, runeCount, sortStrings, truncateRunes, utf8Bytes, isPrint,
} from './quote.js';
import {
  GoComplex, GoNumber, elementType, goTypeName, isGoFuncValue, isGoObject, taggedGoType, INTERFACE,
  type GoObject, type GoNumberType,
} from './value.js';

interface Flags {
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
    plus: false, minus: false, sharp: false, space: false, zero: false, plusV: false, sharpV: false,
    widPresent: false, precPresent: false, wid: 0, prec: 0,
  };
}

function clearFlags(f: Flags): void {
  f.plus = f.minus = f.sharp = f.space = f.zero = f.plusV = f.sharpV = false;
  f.widPresent = f.precPresent = false;
  f.wid = f.prec = 0;
}

const UNSIGNED = new Set<string>(['uint', 'uint8', 'uint16', 'uint32', 'uint64', 'uintptr']);
const INT_BITS: Record<string, number> = {
  int8: 8, int16: 16, int32: 32, int64: 64, uint: 64, uint8: 8, uint16: 16, uint32: 32, uint64: 64, uintptr: 64,
};
const U64 = 1n << 64n;
const LDIGITS = '0123456789abcdefx';
const UDIGITS = '0123456789ABCDEFX';
/** Fake address printed for %p of maps, slices and functions (Go prints a real pointer). */
const FAKE_POINTER = 0xc000010000n;

/** Whether a Go value is a string (for Sprint's spacing rule). */
function isStringValue(v: unknown): boolean {
  return typeof v === 'string';
}

/** One formatting run: Go's `pp` state. */
class Printer {
  buf = '';
  f: Flags = newFlags();
  private erroring = false;
  /** Print a top-level struct pointer as the struct (what text/template's printValue does). */
  derefTop = false;

  // ---- padding ----------------------------------------------------------------------------

  private writePadding(n: number): void {
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

  private fmtS(s: string): void {
    if (this.f.precPresent) s = truncateRunes(s, this.f.prec);
    this.pad(s);
  }

  private fmtQ(s: string): void {
    if (this.f.precPresent) s = truncateRunes(s, this.f.prec);
    if (this.f.sharp && canBackquote(s)) {
      this.pad('`' + s + '`');
      return;
    }
    this.pad(this.f.plus ? quoteToAscii(s) : quote(s));
  }

  private fmtSx(s: string, digits: string): void {
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

  private fmtString(s: string, verb: string, value: unknown): void {
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

  private fmtBool(v: boolean, verb: string): void {
    if (verb === 't' || verb === 'v') this.pad(v ? 'true' : 'false');
    else this.badVerb(verb, v);
  }

  // ---- integers ---------------------------------------------------------------------------

  /** Go's fmt.fmtInteger: `u` is the value (negative allowed only when signed). */
  private fmtIntegerBase(value: bigint, base: number, isSigned: boolean, verb: string, digits: string): void {
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

  private fmtC(u: bigint): void {
    const cp = u > 0x10ffffn || (u >= 0xd800n && u <= 0xdfffn) ? 0xfffd : Number(u);
    this.pad(String.fromCodePoint(cp));
  }

  private fmtQc(u: bigint): void {
    const cp = u > 0x10ffffn ? 0xfffd : Number(u);
    this.pad(quoteRune(cp, this.f.plus));
  }

  private fmtUnicode(u: bigint): void {
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
  private fmtInteger(value: bigint, isSigned: boolean, verb: string, original: unknown): void {
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
      case 'o': case 'O':
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
  private fmtFloatRaw(v: number, size: 32 | 64, verb: string, prec: number): void {
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
        case 'v': case 'g': case 'G': case 'x':
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

  private fmtFloat(v: number, size: 32 | 64, verb: string, original: unknown): void {
    switch (verb) {
      case 'v':
        this.fmtFloatRaw(v, size, 'g', -1);
        return;
      case 'b': case 'g': case 'G': case 'x': case 'X':
        this.fmtFloatRaw(v, size, verb, -1);
        return;
      case 'f': case 'e': case 'E':
        this.fmtFloatRaw(v, size, verb, 6);
        return;
      case 'F':
        this.fmtFloatRaw(v, size, 'f', 6);
        return;
      default:
        this.badVerb(verb, original);
    }
  }

  // ---- errors -----------------------------------------------------------------------------

  /** `%!verb(type=value)`; the value printed with %v and the current flags, as Go does. */
  badVerb(verb: string, value: unknown): void {
    this.erroring = true;
    this.buf += '%!' + verb + '(';
    if (value === null || value === undefined) {
      this.buf += '<nil>';
    } else {
      this.buf += goTypeName(value) + '=';
      this.printValue(value, 'v', 0);
    }
    this.buf += ')';
    this.erroring = false;
  }

  // ---- values -----------------------------------------------------------------------------

  /** Go's printArg: a top-level operand. */
  printArg(arg: unknown, verb: string): void {
    if (arg === null || arg === undefined) {
      if (verb === 'T' || verb === 'v') this.pad('<nil>');
      else this.badVerb(verb, arg);
      return;
    }
    if (verb === 'T') {
      this.fmtS(goTypeName(arg));
      return;
    }
    if (verb === 'p') {
      this.fmtPointer(arg, verb);
      return;
    }
    this.printValue(arg, verb, 0);
  }

  private fmtPointer(value: unknown, verb: string): void {
    let u: bigint;
    if (Array.isArray(value) || isGoFuncValue(value) || (typeof value === 'object' && value !== null && !(value instanceof GoNumber) && (!isGoObject(value) || value.goType.startsWith('*')))) {
      u = FAKE_POINTER;
    } else {
      this.badVerb(verb, value);
      return;
    }
    switch (verb) {
      case 'v':
        if (this.f.sharpV) {
          this.buf += '(' + goTypeName(value) + ')(';
          this.fmt0x64(u, true);
          this.buf += ')';
        } else {
          this.fmt0x64(u, !this.f.sharp);
        }
        return;
      case 'p':
        this.fmt0x64(u, !this.f.sharp);
        return;
      case 'b': case 'o': case 'd': case 'x': case 'X':
        this.fmtInteger(u, false, verb, value);
        return;
      default:
        this.badVerb(verb, value);
    }
  }

  private fmt0x64(u: bigint, leading0x: boolean): void {
    const sharp = this.f.sharp;
    this.f.sharp = leading0x;
    this.fmtIntegerBase(u, 16, false, 'v', LDIGITS);
    this.f.sharp = sharp;
  }

  /** Stringer/error support for Go structs: `String()` or `Error()` methods. */
  private handleMethods(value: GoObject, verb: string): boolean {
    if (this.erroring || this.f.sharpV) return false;
    if (verb !== 'v' && verb !== 's' && verb !== 'x' && verb !== 'X' && verb !== 'q') return false;
    for (const name of ['Error', 'String']) {
      const method = value.getMethod(name);
      if (method === undefined || method.params.length !== 0 || method.variadic !== undefined) continue;
      let s: unknown;
      try {
        s = (method.call as () => unknown)();
      } catch (err) {
        const saved = { ...this.f };
        clearFlags(this.f);
        this.buf += '%!' + verb + '(PANIC=' + name + ' method: ' + (err instanceof Error ? err.message : String(err)) + ')';
        this.f = saved;
        return true;
      }
      this.fmtString(typeof s === 'string' ? s : sprint([s]), verb, value);
      return true;
    }
    return false;
  }

  /** Go's printValue: `depth` > 0 inside maps, slices and structs. */
  printValue(value: unknown, verb: string, depth: number, elemType = INTERFACE): void {
    switch (typeof value) {
      case 'string':
        this.fmtString(value, verb, value);
        return;
      case 'number':
        this.fmtFloat(value, 64, verb, value);
        return;
      case 'bigint':
        this.fmtInteger(BigInt.asIntN(64, value), true, verb, value);
        return;
      case 'boolean':
        this.fmtBool(value, verb);
        return;
      case 'undefined':
        this.printNil(verb, depth, elemType);
        return;
      case 'object':
        break;
      default:
        this.badVerb(verb, value);
        return;
    }
    if (value === null) {
      this.printNil(verb, depth, elemType);
      return;
    }
    if (verb === 'w' && !(value instanceof GoNumber) && !(value instanceof GoComplex)) {
      // Go's handleMethods rejects %w (valid only in Errorf) before looking inside.
      this.badVerb(verb, value);
      return;
    }
    if (value instanceof GoNumber) {
      this.printGoNumber(value, verb);
      return;
    }
    if (value instanceof GoComplex) {
      this.fmtComplex(value, verb);
      return;
    }
    if (isGoObject(value)) {
      this.printStruct(value, verb, depth);
      return;
    }
    if (isGoFuncValue(value)) {
      this.fmtPointer(value, verb);
      return;
    }
    if (Array.isArray(value)) {
      this.printSlice(value, verb, depth);
      return;
    }
    this.printMap(value as Record<string, unknown>, verb, depth);
  }

  /** A nil interface (or typed nil of `elemType`) inside a container, or a top-level nil. */
  private printNil(verb: string, depth: number, elemType: string): void {
    if (depth === 0) {
      this.printArg(null, verb);
      return;
    }
    const sharpV = this.f.sharpV;
    if (elemType.startsWith('map[')) {
      this.buf += sharpV ? elemType + '(nil)' : 'map[]';
    } else if (elemType.startsWith('[]')) {
      this.buf += sharpV ? elemType + '(nil)' : '[]';
    } else if (elemType.startsWith('*') || elemType.startsWith('func')) {
      if (sharpV) this.buf += '(' + elemType + ')(nil)';
      else if (verb === 'v') this.pad('<nil>');
      else this.badVerb(verb, null);
    } else {
      this.buf += sharpV ? elemType + '(nil)' : '<nil>';
    }
  }

  /** Go's fmtComplex: `(re+imi)`, the imaginary part always signed. */
  private fmtComplex(v: GoComplex, verb: string): void {
    switch (verb) {
      case 'v': case 'b': case 'g': case 'G': case 'x': case 'X': case 'f': case 'F': case 'e': case 'E': {
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

  private printGoNumber(n: GoNumber, verb: string): void {
    if (typeof n.value === 'number') {
      this.fmtFloat(n.value, n.goType === 'float32' ? 32 : 64, verb, n);
      return;
    }
    const bits = INT_BITS[n.goType as GoNumberType] ?? 64;
    if (UNSIGNED.has(n.goType)) this.fmtInteger(BigInt.asUintN(bits, n.value), false, verb, n);
    else this.fmtInteger(BigInt.asIntN(bits, n.value), true, verb, n);
  }

  private printStruct(value: GoObject, verb: string, depth: number): void {
    if (this.handleMethods(value, verb)) return;
    const f = this.f;
    const pointer = value.goType.startsWith('*');
    if (pointer && !(depth === 0 && this.derefTop)) this.buf += '&';
    if (f.sharpV) this.buf += pointer ? value.goType.slice(1) : value.goType;
    this.buf += '{';
    const names = value.fieldNames();
    for (let i = 0; i < names.length; i++) {
      if (i > 0) this.buf += f.sharpV ? ', ' : ' ';
      if (f.plusV || f.sharpV) this.buf += names[i] + ':';
      const field = value.getField(names[i]);
      this.printValue(field, verb, depth + 1, field === null || field === undefined ? INTERFACE : goTypeName(field));
    }
    this.buf += '}';
  }

  private printSlice(value: unknown[], verb: string, depth: number): void {
    const f = this.f;
    const type = taggedGoType(value) ?? '[]interface {}';
    const elem = elementType(type);
    if (f.sharpV) {
      this.buf += type + '{';
      for (let i = 0; i < value.length; i++) {
        if (i > 0) this.buf += ', ';
        this.printValue(value[i], verb, depth + 1, elem);
      }
      this.buf += '}';
      return;
    }
    this.buf += '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) this.buf += ' ';
      this.printValue(value[i], verb, depth + 1, elem);
    }
    this.buf += ']';
  }

  private printMap(value: Record<string, unknown>, verb: string, depth: number): void {
    const f = this.f;
    const type = taggedGoType(value) ?? 'map[string]interface {}';
    const elem = elementType(type);
    this.buf += f.sharpV ? type + '{' : 'map[';
    const keys = sortStrings(Object.keys(value));
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) this.buf += f.sharpV ? ', ' : ' ';
      this.printValue(keys[i], verb, depth + 1, 'string');
      this.buf += ':';
      this.printValue(value[keys[i]], verb, depth + 1, elem);
    }
    this.buf += f.sharpV ? '}' : ']';
  }

  // ---- Printf -----------------------------------------------------------------------------

  doPrintf(format: string, a: readonly unknown[]): void {
    const end = format.length;
    let argNum = 0;
    let afterIndex = false;
    let reordered = false;
    let goodArgNum = true;
    const f = this.f;

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
      if (i > lasti) this.buf += format.slice(lasti, i);
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
              this.printArg(a[argNum], c);
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
        if (!f.widPresent) this.buf += '%!(BADWIDTH)';
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
          if (!f.precPresent) this.buf += '%!(BADPREC)';
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
        this.buf += '%!(NOVERB)';
        break;
      }

      const cp = format.codePointAt(i) as number;
      const verb = String.fromCodePoint(cp);
      i += verb.length;

      if (verb === '%') {
        this.buf += '%';
      } else if (!goodArgNum) {
        this.buf += '%!' + verb + '(BADINDEX)';
      } else if (argNum >= a.length) {
        this.buf += '%!' + verb + '(MISSING)';
      } else {
        if (verb === 'v') {
          f.sharpV = f.sharp;
          f.sharp = false;
          f.plusV = f.plus;
          f.plus = false;
        }
        this.printArg(a[argNum], verb);
        argNum++;
      }
    }

    if (!reordered && argNum < a.length) {
      clearFlags(f);
      this.buf += '%!(EXTRA ';
      for (let k = argNum; k < a.length; k++) {
        if (k > argNum) this.buf += ', ';
        const arg = a[k];
        if (arg === null || arg === undefined) {
          this.buf += '<nil>';
        } else {
          this.buf += goTypeName(arg) + '=';
          this.printArg(arg, 'v');
        }
      }
      this.buf += ')';
    }
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
    const isString = isStringValue(arg);
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
  const p = new Printer();
  p.doPrintf(format, args);
  return p.buf;
}
