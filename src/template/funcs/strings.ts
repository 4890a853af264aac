/**
 * @module template/funcs/strings
 * Sprig's string functions (strings.go plus the goutils helpers it wraps). Argument order is
 * Sprig's (the string to work on comes last, so pipelines read `"x" | trimSuffix "-"`), and
 * lengths are UTF-8 byte counts as in Go.
 */
import { formatValue } from '../go-fmt.js';
import { quote as goQuote } from '../quote.js';
import { goFunc, GoFuncError, INTERFACE, type FuncMap } from '../value.js';
import { isNil, strval } from './coerce.js';
import { camelCase, kebabCase, snakeCase } from './case-convert.js';
import { goToLower, goToUpper, goTrimSpace, isDigit, isLetter, isSpace, toLowerRune, toTitleRune } from './unicode.js';
import { byteLength, byteSlice, isAscii, latin1View, utf8Bytes } from './utf8.js';

/** Largest string a function may build; Go would try and exhaust memory, we refuse clearly. */
export const MAX_RESULT_BYTES = 64 * 1024 * 1024;

function checkSize(bytes: number, what: string): void {
  if (bytes > MAX_RESULT_BYTES) {
    throw new GoFuncError(`${what} would build a ${bytes}-byte string; the limit is ${MAX_RESULT_BYTES} bytes`);
  }
}

/** strings.Repeat, including its panics. */
export function goRepeat(s: string, count: bigint): string {
  if (count < 0n) throw new GoFuncError('strings: negative Repeat count');
  if (count === 0n || s === '') return '';
  checkSize(byteLength(s) * Number(count), 'repeat');
  return s.repeat(Number(count));
}

/**
 * `s[lo:hi]` on UTF-8 bytes with Go's bounds checks and runtime panic messages
 * (`hi` is checked first, then `lo`).
 */
export function goSliceString(s: string, lo: bigint, hi: bigint): string {
  const len = byteLength(s);
  if (hi < 0n) throw new GoFuncError(`runtime error: slice bounds out of range [:${hi}]`);
  if (hi > BigInt(len)) throw new GoFuncError(`runtime error: slice bounds out of range [:${hi}] with length ${len}`);
  if (lo < 0n) throw new GoFuncError(`runtime error: slice bounds out of range [${lo}:]`);
  if (lo > hi) throw new GoFuncError(`runtime error: slice bounds out of range [${lo}:${hi}]`);
  return byteSlice(s, Number(lo), Number(hi));
}

function trunc(c: bigint, s: string): string {
  const len = BigInt(byteLength(s));
  if (c < 0n && len + c > 0n) return byteSlice(s, Number(len + c));
  if (c >= 0n && len > c) return byteSlice(s, 0, Number(c));
  return s;
}

function substr(start: bigint, end: bigint, s: string): string {
  const len = BigInt(byteLength(s));
  if (start < 0n) return goSliceString(s, 0n, end);
  if (end < 0n || end > len) return goSliceString(s, start, len);
  return goSliceString(s, start, end);
}

/** goutils.AbbreviateFull (byte offsets). Returns null where goutils returns an error. */
function abbreviateFull(str: string, offset: number, maxWidth: number): string | null {
  if (str === '') return '';
  if (maxWidth < 4) return null;
  const len = byteLength(str);
  if (len <= maxWidth) return str;
  if (offset > len) offset = len;
  if (len - offset < maxWidth - 3) offset = len - (maxWidth - 3);
  const marker = '...';
  if (offset <= 4) return byteSlice(str, 0, maxWidth - 3) + marker;
  if (maxWidth < 7) return null;
  if (offset + maxWidth - 3 < len) {
    const rest = abbreviateFull(byteSlice(str, offset), 0, maxWidth - 3);
    return marker + (rest ?? '');
  }
  return marker + byteSlice(str, len - (maxWidth - 3));
}

function clampInt(n: bigint): number {
  return n > 2n ** 53n ? Number.MAX_SAFE_INTEGER : n < -(2n ** 53n) ? Number.MIN_SAFE_INTEGER : Number(n);
}

function abbrev(width: bigint, s: string): string {
  if (width < 4n) return s;
  return abbreviateFull(s, 0, clampInt(width)) ?? '';
}

function abbrevboth(left: bigint, right: bigint, s: string): string {
  if (right < 4n || (left > 0n && right < 7n)) return s;
  return abbreviateFull(s, clampInt(left), clampInt(right)) ?? '';
}

/** goutils.DeleteWhiteSpace: works byte by byte, so non-ASCII text comes out as Latin-1 (as in Go). */
function nospace(s: string): string {
  if (s === '') return s;
  const bytes = utf8Bytes(s);
  const kept: number[] = [];
  for (const b of bytes) if (!isSpace(b)) kept.push(b);
  if (kept.length === bytes.length) return s;
  return latin1View(Uint8Array.from(kept));
}

/** goutils.Initials: first byte of each whitespace-separated word, as a rune. */
function initials(s: string): string {
  if (s === '') return s;
  let out = '';
  let lastWasGap = true;
  for (const b of utf8Bytes(s)) {
    if (isSpace(b)) lastWasGap = true;
    else if (lastWasGap) {
      out += String.fromCharCode(b);
      lastWasGap = false;
    }
  }
  return out;
}

/** strings.Title */
function title(s: string): string {
  let prev = 0x20;
  let out = '';
  for (const c of s) {
    const r = c.codePointAt(0) as number;
    if (isSeparator(prev)) out += String.fromCodePoint(toTitleRune(r));
    else out += c;
    prev = r;
  }
  return out;
}

function isSeparator(r: number): boolean {
  if (r <= 0x7f) return !((r >= 0x30 && r <= 0x39) || (r >= 0x61 && r <= 0x7a) || (r >= 0x41 && r <= 0x5a) || r === 0x5f);
  if (isLetter(r) || isDigit(r)) return false;
  return isSpace(r);
}

/** goutils.Uncapitalize: lower-cases the first rune of each whitespace-separated word. */
function untitle(s: string): string {
  if (s === '') return s;
  let out = '';
  let next = true;
  for (const c of s) {
    const r = c.codePointAt(0) as number;
    if (isSpace(r)) {
      next = true;
      out += c;
    } else if (next) {
      out += String.fromCodePoint(toLowerRune(r));
      next = false;
    } else out += c;
  }
  return out;
}

/** goutils.WrapCustom (byte offsets, as in Go). */
function wrapCustom(str: string, wrapLength: number, newLine: string, wrapLongWords: boolean): string {
  if (str === '') return '';
  if (newLine === '') newLine = '\n';
  if (wrapLength < 1) wrapLength = 1;
  const ascii = isAscii(str);
  const slice = (a: number, b?: number): string => (ascii ? str.slice(a, b) : byteSlice(str, a, b));
  const bytes = ascii ? null : utf8Bytes(str);
  const byteAt = (i: number): number => (bytes ? bytes[i] : str.charCodeAt(i));
  const len = bytes ? bytes.length : str.length;
  const lastSpace = (from: number, to: number): number => {
    for (let i = to - 1; i >= from; i--) if (byteAt(i) === 0x20) return i;
    return -1;
  };
  const nextSpace = (from: number): number => {
    for (let i = from; i < len; i++) if (byteAt(i) === 0x20) return i;
    return -1;
  };
  let offset = 0;
  let out = '';
  while (len - offset > wrapLength) {
    if (byteAt(offset) === 0x20) {
      offset++;
      continue;
    }
    const end = wrapLength + offset + 1;
    const space = lastSpace(offset, end);
    if (space >= offset) {
      out += slice(offset, space) + newLine;
      offset = space + 1;
    } else if (wrapLongWords) {
      out += slice(offset, wrapLength + offset) + newLine;
      offset += wrapLength;
    } else {
      const found = nextSpace(wrapLength + offset);
      if (found === -1) {
        out += slice(offset);
        offset = len;
      } else {
        out += slice(offset, found) + newLine;
        offset = found + 1;
      }
    }
  }
  return out + slice(offset);
}

function wrapLen(n: bigint): number {
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : n < 1n ? 1 : Number(n);
}

/** strings.Replace(s, old, new, -1), including Go's rule for an empty `old`. */
function goReplaceAll(s: string, old: string, repl: string): string {
  if (old !== '') return s.split(old).join(repl);
  const parts = Array.from(s);
  checkSize(byteLength(s) + byteLength(repl) * (parts.length + 1), 'replace');
  return repl + parts.map((c) => c + repl).join('');
}

/** strings.Trim(s, cutset): cutset is a set of runes. */
function goTrim(s: string, cutset: string): string {
  if (s === '' || cutset === '') return s;
  const set = new Set(Array.from(cutset));
  const cps = Array.from(s);
  let a = 0;
  let b = cps.length;
  while (a < b && set.has(cps[a])) a++;
  while (b > a && set.has(cps[b - 1])) b--;
  return cps.slice(a, b).join('');
}

function indent(spaces: bigint, v: string): string {
  const pad = goRepeat(' ', spaces);
  return pad + v.split('\n').join('\n' + pad);
}

function quote(...args: unknown[]): string {
  // fmt.Sprintf("%q", s) of a string with no flags is strconv.Quote(s); templates quote a lot.
  if (args.length === 1) return isNil(args[0]) ? '' : goQuote(strval(args[0]));
  const out: string[] = [];
  for (const s of args) if (!isNil(s)) out.push(goQuote(strval(s)));
  return out.join(' ');
}

function squote(...args: unknown[]): string {
  const out: string[] = [];
  for (const s of args) if (!isNil(s)) out.push(`'${formatValue(s)}'`);
  return out.join(' ');
}

function cat(...args: unknown[]): string {
  return args
    .filter((a) => !isNil(a))
    .map((a) => formatValue(a))
    .join(' ');
}

const S = 'string';
const I = 'int';

export const stringFuncs: FuncMap = {
  trim: goFunc([S], goTrimSpace),
  trimAll: goFunc([S, S], (a: string, b: string) => goTrim(b, a)),
  trimall: goFunc([S, S], (a: string, b: string) => goTrim(b, a)),
  trimPrefix: goFunc([S, S], (a: string, b: string) => (b.startsWith(a) ? b.slice(a.length) : b)),
  trimSuffix: goFunc([S, S], (a: string, b: string) => (a !== '' && b.endsWith(a) ? b.slice(0, b.length - a.length) : b)),
  upper: goFunc([S], goToUpper),
  lower: goFunc([S], goToLower),
  title: goFunc([S], title),
  untitle: goFunc([S], untitle),
  repeat: goFunc([I, S], (count: bigint, str: string) => goRepeat(str, count)),
  substr: goFunc([I, I, S], substr),
  nospace: goFunc([S], nospace),
  trunc: goFunc([I, S], trunc),
  abbrev: goFunc([I, S], abbrev),
  abbrevboth: goFunc([I, I, S], abbrevboth),
  initials: goFunc([S], initials),
  contains: goFunc([S, S], (substr: string, str: string) => str.includes(substr)),
  hasPrefix: goFunc([S, S], (prefix: string, str: string) => str.startsWith(prefix)),
  hasSuffix: goFunc([S, S], (suffix: string, str: string) => str.endsWith(suffix)),
  quote: goFunc([], quote, INTERFACE),
  squote: goFunc([], squote, INTERFACE),
  cat: goFunc([], cat, INTERFACE),
  indent: goFunc([I, S], indent),
  nindent: goFunc([I, S], (spaces: bigint, v: string) => '\n' + indent(spaces, v)),
  replace: goFunc([S, S, S], (old: string, repl: string, src: string) => goReplaceAll(src, old, repl)),
  plural: goFunc([S, S, I], (one: string, many: string, count: bigint) => (count === 1n ? one : many)),
  snakecase: goFunc([S], snakeCase),
  camelcase: goFunc([S], camelCase),
  kebabcase: goFunc([S], kebabCase),
  wrap: goFunc([I, S], (l: bigint, s: string) => wrapCustom(s, wrapLen(l), '', false)),
  wrapWith: goFunc([I, S, S], (l: bigint, sep: string, str: string) => wrapCustom(str, wrapLen(l), sep, true)),
};
