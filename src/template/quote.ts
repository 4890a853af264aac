/**
 * @module template/quote
 * Go's strconv quoting (`Quote`, `QuoteToASCII`, `QuoteRune`, `CanBackquote`, `IsPrint`) and
 * the UTF-8 view of strings that Go code sees. Go strings are UTF-8 bytes while ours are UTF-16,
 * so byte lengths, rune counts and string ordering need care to print exactly what Go prints.
 */

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * Go's `strconv.IsPrint`/`unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and
 * the ASCII space. (Our Unicode tables are Node's, which may be newer than Go 1.19's.)
 */
export function isPrint(cp: number): boolean {
  if (cp < 0x7f) return cp >= 0x20;
  if (cp < 0xa1) return false;
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
  return PRINTABLE.test(String.fromCodePoint(cp));
}

/** Number of runes (code points) in a string, as `utf8.RuneCountInString`. */
export function runeCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** The first `n` runes of a string. */
export function truncateRunes(s: string, n: number): string {
  let i = 0;
  for (let count = 0; i < s.length && count < n; count++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return s.slice(0, i);
}

/** Whether a string is pure ASCII (so byte offsets equal UTF-16 offsets). */
export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Length in UTF-8 bytes, as Go's `len(s)`. */
export function byteLength(s: string): number {
  return isAscii(s) ? s.length : Buffer.byteLength(s, 'utf8');
}

/** The UTF-8 bytes of a string (lone surrogates become U+FFFD, as Go would have them). */
export function utf8Bytes(s: string): Uint8Array {
  return Buffer.from(s, 'utf8');
}

/** Decode UTF-8 bytes; invalid sequences become U+FFFD (JS strings cannot hold them). */
export function fromUtf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** Compare two strings by Unicode code point, which is Go's byte-wise order for UTF-8. */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      // UTF-16 order differs from code point order only between surrogates and U+E000..U+FFFF.
      if (x >= 0xd800 && y >= 0xd800) {
        x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
        y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

/** Sort strings in Go's order (fast path when no key has a surrogate or high BMP char). */
export function sortStrings(keys: string[]): string[] {
  for (const k of keys) {
    for (let i = 0; i < k.length; i++) {
      if (k.charCodeAt(i) >= 0xd800) return keys.sort(compareStrings);
    }
  }
  return keys.sort();
}

const HEX = '0123456789abcdef';

function hexDigits(v: number, width: number): string {
  let s = v.toString(16);
  while (s.length < width) s = '0' + s;
  return s;
}

function escapeRune(cp: number, quote: number, asciiOnly: boolean): string {
  if (cp === quote || cp === 0x5c) return '\\' + String.fromCharCode(cp);
  if (asciiOnly ? cp < 0x80 && isPrint(cp) : isPrint(cp)) return String.fromCodePoint(cp);
  switch (cp) {
    case 0x07:
      return '\\a';
    case 0x08:
      return '\\b';
    case 0x0c:
      return '\\f';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    case 0x0b:
      return '\\v';
  }
  if (cp < 0x20 || cp === 0x7f) return '\\x' + HEX[cp >> 4] + HEX[cp & 15];
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
  if (cp < 0x10000) return '\\u' + hexDigits(cp, 4);
  return '\\U' + hexDigits(cp, 8);
}

function quoteWith(s: string, quote: number, asciiOnly: boolean): string {
  let out = String.fromCharCode(quote);
  let plain = 0; // start of the current run of characters copied as they are
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f && c !== quote && c !== 0x5c) continue;
    if (i > plain) out += s.slice(plain, i);
    let cp = s.codePointAt(i) as number;
    if (cp > 0xffff) i++;
    else if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // a lone surrogate is U+FFFD in UTF-8
    out += escapeRune(cp, quote, asciiOnly);
    plain = i + 1;
  }
  if (plain < s.length) out += s.slice(plain);
  return out + String.fromCharCode(quote);
}

/** Printable ASCII other than `"` and `\`: quoted as is. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** strconv.Quote */
export function quote(s: string): string {
  if (PLAIN_ASCII.test(s)) return '"' + s + '"';
  return quoteWith(s, 0x22, false);
}

/** strconv.QuoteToASCII */
export function quoteToAscii(s: string): string {
  return quoteWith(s, 0x22, true);
}

/** strconv.QuoteRune / QuoteRuneToASCII (invalid code points become U+FFFD). */
export function quoteRune(cp: number, asciiOnly = false): string {
  if (cp > 0x10ffff || cp < 0 || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
  return "'" + escapeRune(cp, 0x27, asciiOnly) + "'";
}

/** strconv.CanBackquote */
export function canBackquote(s: string): boolean {
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (cp === 0xfeff) return false;
    if (cp >= 0xd800 && cp <= 0xdfff) return false;
    if ((cp < 0x20 && cp !== 0x09) || cp === 0x60 || cp === 0x7f) return false;
  }
  return true;
}
