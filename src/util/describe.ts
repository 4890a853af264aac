/**
 * @module util/describe
 * How every error and warning message names a user's value: its kind plus, for scalars, a short
 * quoted excerpt. One wording everywhere ("got a number (1)", "found a list"), and never the
 * whole value: it may be large or secret, and messages end up in HTTP headers and logs.
 */

const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * Quote a user-supplied string for a message: JSON escapes, non-ASCII as \u escapes, at most
 * about 50 characters. Warnings become HTTP Warning headers, so no control or non-ASCII bytes.
 */
export function quote(value: string): string {
  // Printable ASCII other than `"` and `\` stands for itself (the common case: names, label values).
  if (PLAIN.test(value)) return value.length <= 48 ? `"${value}"` : `"${value.slice(0, 48)}..."`;
  let out = '';
  for (const ch of value) {
    const piece = JSON.stringify(ch)
      .slice(1, -1)
      .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    if (out.length + piece.length > 48) return `"${out}..."`;
    out += piece;
  }
  return `"${out}"`;
}

/**
 * `nothing`, `null`, `a list`, `a map`, `a string ("x")`, `a number (1)`, `a boolean (true)`;
 * anything JSON/YAML cannot hold (a Date, a Map, a function) is `a non-JSON ...`.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return `a string (${quote(value)})`;
    case 'number':
    case 'boolean':
      return `a ${typeof value} (${String(value)})`;
    case 'object': {
      const proto = Object.getPrototypeOf(value);
      return proto === Object.prototype || proto === null ? 'a map' : 'a non-JSON object';
    }
    default:
      return `a non-JSON ${typeof value}`;
  }
}
