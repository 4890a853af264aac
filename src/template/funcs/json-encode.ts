/**
 * @module template/funcs/json-encode
 * Go's encoding/json Marshal (Go 1.19) over the template value model, byte for byte: map keys
 * sorted by UTF-8 bytes, `<`, `>`, `&` escaped as `\u003c` unless HTML escaping is off, U+2028/9
 * always escaped, control characters as `\u00XX` (only `\n \r \t` have short forms), floats in
 * encoding/json's format (`1e+21`, `1e-7`, `-0`), NaN/Inf rejected, structs via their JSON view.
 * A GoObject's toJSON() is trusted to be in encoding/json's order already (struct fields in
 * declaration order, maps sorted), so objects inside it keep their key order.
 */
import { GoNumber, goTypeName, isGoFuncValue, isGoObject, taggedGoType } from '../value.js';
import { formatFloatG, formatJSONFloat } from '../strconv.js';
import { compareStrings } from '../quote.js';
import { isNilContainer } from './nil.js';

export class JsonMarshalError extends Error {}

export interface MarshalOptions {
  /** Escape `<`, `>`, `&` (json.Marshal does; an Encoder with SetEscapeHTML(false) does not). */
  readonly escapeHTML?: boolean;
  /** MarshalIndent's indent string (prefix is always ""). */
  readonly indent?: string;
}

const HEX = '0123456789abcdef';
const INTEGER_KEY = /^(0|[1-9][0-9]*)$/;

const NEEDS_ESCAPE_HTML = /[\u0000-\u001f"\\<>&\u2028\u2029\ud800-\udfff]/;
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\u2028\u2029\ud800-\udfff]/;

/** A Go JSON string literal. */
function jsonQuote(s: string, escapeHTML = true): string {
  if (!(escapeHTML ? NEEDS_ESCAPE_HTML : NEEDS_ESCAPE).test(s)) return '"' + s + '"';
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | null = null;
    if (c < 0x20 || c === 0x22 || c === 0x5c || (escapeHTML && (c === 0x3c || c === 0x3e || c === 0x26))) {
      if (c === 0x22 || c === 0x5c) esc = '\\' + s[i];
      else if (c === 0x0a) esc = '\\n';
      else if (c === 0x0d) esc = '\\r';
      else if (c === 0x09) esc = '\\t';
      else esc = '\\u00' + HEX[c >> 4] + HEX[c & 0xf];
    } else if (c === 0x2028 || c === 0x2029) {
      esc = c === 0x2028 ? '\\u2028' : '\\u2029';
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const pair = c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      if (pair) {
        i++;
        continue;
      }
      esc = '\\ufffd';
    }
    if (esc !== null) {
      out += s.slice(start, i) + esc;
      start = i + 1;
    }
  }
  return out + s.slice(start) + '"';
}

function floatText(f: number, bits: 32 | 64): string {
  if (!Number.isFinite(f)) throw new JsonMarshalError(`json: unsupported value: ${formatFloatG(f, bits)}`);
  return formatJSONFloat(f, bits);
}

/** json.Marshal / MarshalIndent / Encoder.Encode (without the trailing newline). */
export function goJsonMarshal(v: unknown, opts: MarshalOptions = {}): string {
  const escapeHTML = opts.escapeHTML ?? true;
  const indent = opts.indent;
  const path = new Set<object>();

  const enc = (x: unknown, depth: number, ordered = false): string => {
    switch (typeof x) {
      case 'undefined':
        return 'null';
      case 'boolean':
        return x ? 'true' : 'false';
      case 'string':
        return jsonQuote(x, escapeHTML);
      case 'number':
        return floatText(x, 64);
      case 'bigint':
        return x.toString();
      case 'object':
        break;
      default:
        throw new JsonMarshalError(`json: unsupported type: ${goTypeName(x)}`);
    }
    if (x === null || isNilContainer(x)) return 'null';
    if (x instanceof GoNumber) return typeof x.value === 'bigint' ? x.value.toString() : floatText(x.value, 32);
    if (isGoObject(x)) return enc(x.toJSON(), depth, true);
    if (isGoFuncValue(x)) throw new JsonMarshalError('json: unsupported type: func()');
    if (goTypeName(x) === 'complex128') throw new JsonMarshalError('json: unsupported type: complex128');
    if (path.has(x)) throw new JsonMarshalError(`json: unsupported value: encountered a cycle via ${goTypeName(x)}`);
    path.add(x);
    try {
      return Array.isArray(x) ? encArray(x, depth, ordered) : encMap(x as Record<string, unknown>, depth, ordered);
    } finally {
      path.delete(x);
    }
  };

  const nl = (depth: number): string => (indent === undefined ? '' : '\n' + indent.repeat(depth));

  const encArray = (a: unknown[], depth: number, ordered: boolean): string => {
    if (taggedGoType(a) === '[]uint8') return jsonQuote(Buffer.from(a.map((b) => Number((b as GoNumber).value ?? b))).toString('base64'));
    if (a.length === 0) return '[]';
    const items = a.map((e) => nl(depth + 1) + enc(e, depth + 1, ordered));
    return '[' + items.join(',') + nl(depth) + ']';
  };

  const encMap = (m: Record<string, unknown>, depth: number, ordered: boolean): string => {
    // JS lists integer-like keys first whatever the insertion order; no struct field looks like
    // that, so an object with such keys is a map and gets sorted.
    let keys = Object.keys(m);
    if (!ordered || keys.some((k) => INTEGER_KEY.test(k))) keys = keys.sort(compareStrings);
    if (keys.length === 0) return '{}';
    const sep = indent === undefined ? ':' : ': ';
    const items = keys.map((k) => nl(depth + 1) + jsonQuote(k, escapeHTML) + sep + enc(m[k], depth + 1, ordered));
    return '{' + items.join(',') + nl(depth) + '}';
  };

  return enc(v, 0);
}
