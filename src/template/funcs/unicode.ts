/**
 * @module template/funcs/unicode
 * Go's per-rune Unicode helpers (package unicode). Go maps case one rune at a time with the
 * simple mappings of UnicodeData, while JS `toUpperCase` applies SpecialCasing ("ß" -> "SS",
 * final sigma, "İ" -> "i̇"). These helpers keep Go's behaviour.
 */

const SPACE = /^\p{White_Space}$/u;
const LETTER = /^\p{L}$/u;
const DIGIT = /^\p{Nd}$/u;
const NUMBER = /^\p{N}$/u;
const UPPER = /^\p{Lu}$/u;
const TITLE = /^\p{Lt}$/u;
const PUNCT = /^\p{P}$/u;

function ch(r: number): string {
  return String.fromCodePoint(r);
}

/** unicode.IsSpace (Go uses the White_Space property). */
export function isSpace(r: number): boolean {
  if (r < 0x80) return r === 0x20 || (r >= 0x09 && r <= 0x0d);
  return SPACE.test(ch(r));
}
export const isLetter = (r: number): boolean => (r < 0x80 ? (r | 0x20) >= 0x61 && (r | 0x20) <= 0x7a : LETTER.test(ch(r)));
export const isDigit = (r: number): boolean => (r < 0x80 ? r >= 0x30 && r <= 0x39 : DIGIT.test(ch(r)));
export const isNumber = (r: number): boolean => (r < 0x80 ? r >= 0x30 && r <= 0x39 : NUMBER.test(ch(r)));
export const isUpper = (r: number): boolean => (r < 0x80 ? r >= 0x41 && r <= 0x5a : UPPER.test(ch(r)));
const isTitle = (r: number): boolean => r >= 0x80 && TITLE.test(ch(r));
export const isPunct = (r: number): boolean => PUNCT.test(ch(r));

/** Simple upper mappings where JS's full mapping yields several characters. */
function upperSpecial(r: number): number {
  if (r >= 0x1f80 && r <= 0x1fa7 && (r & 0xf) < 8) return r + 8;
  if (r === 0x1fb3 || r === 0x1fc3 || r === 0x1ff3) return r + 9;
  return r;
}

/** unicode.ToUpper. */
export function toUpperRune(r: number): number {
  if (r < 0x80) return r >= 0x61 && r <= 0x7a ? r - 32 : r;
  const u = ch(r).toUpperCase();
  const cp = u.codePointAt(0) as number;
  return u.length === (cp > 0xffff ? 2 : 1) ? cp : upperSpecial(r);
}

/** unicode.ToLower. */
export function toLowerRune(r: number): number {
  if (r < 0x80) return r >= 0x41 && r <= 0x5a ? r + 32 : r;
  if (r === 0x130) return 0x69;
  const l = ch(r).toLowerCase();
  const cp = l.codePointAt(0) as number;
  return l.length === (cp > 0xffff ? 2 : 1) ? cp : r;
}

/** unicode.ToTitle: upper case except for the DŽ/LJ/NJ/DZ digraphs, which have title forms. */
export function toTitleRune(r: number): number {
  if (r >= 0x1c4 && r <= 0x1cc) return r - ((r - 0x1c4) % 3) + 1;
  if (r >= 0x1f1 && r <= 0x1f3) return 0x1f2;
  if (isTitle(r)) return r;
  return toUpperRune(r);
}

function mapRunes(s: string, f: (r: number) => number, asciiFast: (s: string) => string): string {
  if (/^[\x00-\x7f]*$/.test(s)) return asciiFast(s);
  let out = '';
  for (const c of s) {
    const r = c.codePointAt(0) as number;
    out += r >= 0xd800 && r <= 0xdfff ? '\ufffd' : ch(f(r));
  }
  return out;
}

/** strings.ToUpper */
export function goToUpper(s: string): string {
  return mapRunes(s, toUpperRune, (a) => a.toUpperCase());
}

/** strings.ToLower */
export function goToLower(s: string): string {
  return mapRunes(s, toLowerRune, (a) => a.toLowerCase());
}

/** strings.TrimSpace */
export function goTrimSpace(s: string): string {
  const cps = Array.from(s);
  let start = 0;
  let end = cps.length;
  while (start < end && isSpace(cps[start].codePointAt(0) as number)) start++;
  while (end > start && isSpace(cps[end - 1].codePointAt(0) as number)) end--;
  return start === 0 && end === cps.length ? s : cps.slice(start, end).join('');
}
