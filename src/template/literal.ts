/**
 * @module template/literal
 * Go's strconv rules for the constants a template may contain: `Unquote` for "..." and `...`
 * strings and 'x' characters, and ParseUint/ParseInt (base prefixes, legacy octal, `_`
 * separators) and ParseFloat (decimal and hexadecimal) for numbers. The parser needs Go's
 * exact acceptance rules: `08` is an "integer overflow", `1_000` is 1000, `0x1p-2` is 0.25.
 */

import { fromUtf8 } from './quote.js';
import { parseFloat64 as strconvParseFloat64, parseInt64 as strconvParseInt64, parseUint as strconvParseUint } from './strconv.js';

/** strconv.ErrSyntax: the parser reports its text, "invalid syntax". */
export class SyntaxError extends Error {
  constructor() {
    super('invalid syntax');
  }
}

function unhex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

function pushRune(bytes: number[], cp: number): void {
  const s = Buffer.from(String.fromCodePoint(cp), 'utf8');
  for (const b of s) bytes.push(b);
}

/**
 * strconv.UnquoteChar: decode one (possibly escaped) character at s[i].
 * Returns the rune or byte value, whether it is a raw byte (`\x..` or octal), and the next index.
 */
export function unquoteChar(s: string, i: number, quote: number): { value: number; isByte: boolean; next: number } {
  if (i >= s.length) throw new SyntaxError();
  const c = s.charCodeAt(i);
  if (c === quote && (quote === 0x27 || quote === 0x22)) throw new SyntaxError();
  if (c >= 0x80) {
    const cp = s.codePointAt(i) as number;
    return { value: cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp, isByte: false, next: i + (cp > 0xffff ? 2 : 1) };
  }
  if (c !== 0x5c) return { value: c, isByte: false, next: i + 1 };
  if (i + 1 >= s.length) throw new SyntaxError();
  const e = s[i + 1];
  let j = i + 2;
  switch (e) {
    case 'a':
      return { value: 7, isByte: false, next: j };
    case 'b':
      return { value: 8, isByte: false, next: j };
    case 'f':
      return { value: 12, isByte: false, next: j };
    case 'n':
      return { value: 10, isByte: false, next: j };
    case 'r':
      return { value: 13, isByte: false, next: j };
    case 't':
      return { value: 9, isByte: false, next: j };
    case 'v':
      return { value: 11, isByte: false, next: j };
    case 'x':
    case 'u':
    case 'U': {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      if (s.length - j < n) throw new SyntaxError();
      let v = 0;
      for (let k = 0; k < n; k++) {
        const x = unhex(s.charCodeAt(j + k));
        if (x < 0) throw new SyntaxError();
        v = v * 16 + x;
      }
      j += n;
      if (e === 'x') return { value: v, isByte: true, next: j };
      if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) throw new SyntaxError();
      return { value: v, isByte: false, next: j };
    }
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7': {
      let v = e.charCodeAt(0) - 0x30;
      if (s.length - j < 2) throw new SyntaxError();
      for (let k = 0; k < 2; k++) {
        const x = s.charCodeAt(j + k) - 0x30;
        if (x < 0 || x > 7) throw new SyntaxError();
        v = v * 8 + x;
      }
      j += 2;
      if (v > 255) throw new SyntaxError();
      return { value: v, isByte: true, next: j };
    }
    case '\\':
      return { value: 0x5c, isByte: false, next: j };
    case "'":
    case '"':
      if (e.charCodeAt(0) !== quote) throw new SyntaxError();
      return { value: e.charCodeAt(0), isByte: false, next: j };
    default:
      throw new SyntaxError();
  }
}

/** strconv.Unquote for "..." and `...` (the only quotes the lexer produces for strings). */
export function unquote(s: string): string {
  const n = s.length;
  if (n < 2) throw new SyntaxError();
  const q = s.charCodeAt(0);
  if (q !== s.charCodeAt(n - 1)) throw new SyntaxError();
  const body = s.slice(1, n - 1);
  if (q === 0x60) {
    if (body.includes('`')) throw new SyntaxError();
    return body.includes('\r') ? body.replaceAll('\r', '') : body;
  }
  if (q !== 0x22 && q !== 0x27) throw new SyntaxError();
  if (body.includes('\n')) throw new SyntaxError();
  if (!body.includes('\\') && !body.includes(String.fromCharCode(q))) {
    if (q === 0x22) return body;
  }
  const bytes: number[] = [];
  let i = 0;
  let count = 0;
  while (i < body.length) {
    const { value, isByte, next } = unquoteChar(body, i, q);
    if (isByte) bytes.push(value);
    else pushRune(bytes, value);
    i = next;
    count++;
    if (q === 0x27 && count > 1) throw new SyntaxError();
  }
  if (q === 0x27 && count !== 1) throw new SyntaxError();
  return fromUtf8(Uint8Array.from(bytes));
}

/** strconv.ParseUint(s, 0, 64), as Go's parser reads a number constant; undefined on any error. */
export function parseUint(s: string): bigint | undefined {
  const r = strconvParseUint(s, 0);
  return r.err === null ? r.value : undefined;
}

/** strconv.ParseInt(s, 0, 64); undefined on any error. */
export function parseInt64(s: string): bigint | undefined {
  const r = strconvParseInt64(s, 0);
  return r.err === null ? r.value : undefined;
}

/** strconv.ParseFloat(s, 64) for the syntax the lexer admits; undefined on error or overflow. */
export function parseFloat64(s: string): number | undefined {
  const r = strconvParseFloat64(s);
  return r.err === null && Number.isFinite(r.value) ? r.value : undefined;
}
