/**
 * @module template/funcs/utf8
 * Go strings are byte strings; JS strings are UTF-16. Sprig functions such as `trunc`, `substr`,
 * `abbrev` and `wrap` index by UTF-8 byte, so they need byte lengths and byte slices. Cutting in
 * the middle of a character gives invalid UTF-8 in Go; JS cannot hold that, so a cut character
 * decodes to U+FFFD (the only visible difference from Go).
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const ASCII = /^[\x00-\x7f]*$/;

export function isAscii(s: string): boolean {
  return ASCII.test(s);
}

export function utf8Bytes(s: string): Uint8Array {
  return encoder.encode(s);
}

export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** `len(s)` in Go: the UTF-8 byte length. */
export function byteLength(s: string): number {
  return isAscii(s) ? s.length : encoder.encode(s).length;
}

/** `s[start:end]` in Go, on byte offsets (callers check bounds first). */
export function byteSlice(s: string, start: number, end?: number): string {
  if (isAscii(s)) return s.slice(start, end);
  const bytes = encoder.encode(s);
  return decoder.decode(bytes.subarray(start, end ?? bytes.length));
}

/** A Go string as its bytes, each mapped to the code point of the same value (Latin-1 view). */
export function latin1View(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 4096) {
    out += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return out;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Lone surrogates (invalid UTF-8 in Go terms) replaced by U+FFFD. */
export function toWellFormed(s: string): string {
  return LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATES, '\ufffd') : s;
}
