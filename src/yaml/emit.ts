/**
 * @module yaml/emit
 * Writes JSON data as Kubernetes-style YAML: block style, 2-space indent, sequences under a key at
 * the key's indent (as kubectl prints them), keys in the order given. Every string that some
 * YAML 1.1 or 1.2 reader could take for something else (`"yes"`, `"0644"`, `"1.0"`, `"~"`,
 * `"2001-12-14"`, leading spaces, `: `, ` #`) is quoted, so go-yaml (kubectl), the `yaml` package
 * in either mode and js-yaml all read back exactly the data written. Multi-line strings use a
 * literal block (`|`) when that is exact, otherwise a double-quoted string with escapes.
 * Own code rather than a library dumper: every quoting decision here is tested for round trips.
 */
import type { JsonValue } from '../util/json.js';
import { misreadAsNonString } from './resolve.js';

export interface StringifyOptions {
  /** Line ending of the output; `\r\n` to match a CRLF input. Default `\n`. */
  readonly eol?: '\n' | '\r\n';
}

/** Characters that a plain or single-quoted scalar cannot hold (they need a `\` escape). */
const NEEDS_ESCAPE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Same, but allowing line feeds and tabs (what a literal block may contain). */
const BLOCK_FORBIDDEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** YAML indicators that may not start a plain scalar (`-` is handled separately). */
const INDICATOR_START = new Set([...'?:,[]{}#&*!|>\'"%@`']);
/** A key this long cannot be an implicit key (YAML caps those at 1024 characters). */
const MAX_IMPLICIT_KEY = 1000;

/** Serialise one value as a YAML document body (no `---`), ending with a line break. */
export function stringifyObject(value: JsonValue, options: StringifyOptions = {}): string {
  const out: string[] = [];
  if (isNonEmptyObject(value)) writeMapping(out, value, 0, '');
  else if (Array.isArray(value) && value.length > 0) writeSequence(out, value, 0, '');
  else if (typeof value === 'string' && blockStyleFits(value)) writeBlock(out, '|', value, 2);
  else out.push(scalar(value), '\n');
  const text = out.join('');
  return options.eol === '\r\n' ? text.replaceAll('\n', '\r\n') : text;
}

const SPACES: string[] = [];
function spaces(n: number): string {
  return (SPACES[n] ??= ' '.repeat(n));
}

function isNonEmptyObject(v: unknown): v is Record<string, JsonValue> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  for (const k in v) if (Object.hasOwn(v, k) && (v as Record<string, unknown>)[k] !== undefined) return true;
  return false;
}

/** Entries at `indent`; the first line starts with `first` instead (a `- ` of an enclosing item). */
function writeMapping(out: string[], obj: Record<string, JsonValue>, indent: number, first: string): void {
  let lead = first || spaces(indent);
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (v === undefined) continue; // as JSON.stringify does
    if (key.length > MAX_IMPLICIT_KEY) {
      out.push(lead, '? ', quoted(key), '\n');
      writeValue(out, spaces(indent) + ':', v, indent, indent + 2);
    } else {
      writeValue(out, lead + formatKey(key) + ':', v, indent, indent);
    }
    lead = spaces(indent);
  }
}

/** Items at `indent`; the first line starts with `first` instead. */
function writeSequence(out: string[], items: readonly JsonValue[], indent: number, first: string): void {
  let lead = first || spaces(indent);
  for (const item of items) {
    const v = item === undefined ? null : item;
    const dash = lead + '- ';
    if (isNonEmptyObject(v)) writeMapping(out, v, indent + 2, dash);
    else if (Array.isArray(v) && v.length > 0) writeSequence(out, v, indent + 2, dash);
    else if (typeof v === 'string' && blockStyleFits(v)) writeBlock(out, dash + '|', v, indent + 2);
    else out.push(dash, scalar(v), '\n');
    lead = spaces(indent);
  }
}

/**
 * A mapping value after `head` (`  key:`). Nested mappings go 2 deeper than the key; sequences sit
 * at `seqIndent` (the key's own indent, kubectl style, or deeper after an explicit `? key`).
 */
function writeValue(out: string[], head: string, v: JsonValue, indent: number, seqIndent: number): void {
  if (isNonEmptyObject(v)) {
    out.push(head, '\n');
    writeMapping(out, v, indent + 2, '');
  } else if (Array.isArray(v) && v.length > 0) {
    out.push(head, '\n');
    writeSequence(out, v, seqIndent, '');
  } else if (typeof v === 'string' && blockStyleFits(v)) {
    writeBlock(out, head + ' |', v, indent + 2);
  } else {
    out.push(head, ' ', scalar(v), '\n');
  }
}

/** `head` ends with `|`; adds the chomping indicator, then the lines at `indent`. */
function writeBlock(out: string[], head: string, s: string, indent: number): void {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x0a) end--;
  const trailing = s.length - end;
  out.push(head, trailing === 0 ? '-' : trailing === 1 ? '' : '+', '\n');
  const pad = spaces(indent);
  for (const line of s.slice(0, end).split('\n')) out.push(line === '' ? '\n' : pad + line + '\n');
  for (let i = 1; i < trailing; i++) out.push('\n');
}

/**
 * A literal block reproduces the string exactly only if its indentation can be detected (the
 * first non-empty line does not start with a space or tab, and no blank-but-spaced line precedes
 * it) and it holds nothing that needs an escape.
 */
function blockStyleFits(s: string): boolean {
  if (!s.includes('\n') || BLOCK_FORBIDDEN.test(s)) return false;
  let i = 0;
  while (i < s.length && s.charCodeAt(i) === 0x0a) i++;
  if (i === s.length) return false; // only line breaks
  const c = s.charCodeAt(i);
  return c !== 0x20 && c !== 0x09;
}

function scalar(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return formatString(v);
    case 'number':
      return formatNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      return Array.isArray(v) ? '[]' : '{}'; // non-empty collections never reach here
  }
}

/** Numbers in a form YAML 1.1 readers also take as numbers (a `.` before any exponent). */
export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) throw new TypeError(`${n} cannot be written: it is not a JSON number`);
  const s = String(n);
  if (s.includes('e') && !s.includes('.')) return s.replace('e', '.0e');
  return s;
}

function formatKey(k: string): string {
  return plainFits(k) ? k : quoted(k);
}

function formatString(s: string): string {
  return plainFits(s) ? s : quoted(s);
}

function quoted(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `'${s.replaceAll("'", "''")}'`;
  return doubleQuoted(s);
}

function plainFits(s: string): boolean {
  if (s.length === 0 || NEEDS_ESCAPE.test(s)) return false;
  const first = s[0];
  if (first === ' ' || s[s.length - 1] === ' ' || INDICATOR_START.has(first)) return false;
  // `-x` is a plain scalar, `-`, `- x` and document markers are not.
  if (first === '-' && (s.length === 1 || s[1] === ' ' || s.startsWith('---'))) return false;
  if (s.startsWith('...')) return false;
  if (s.includes(': ') || s.includes(' #') || s[s.length - 1] === ':') return false;
  return !misreadAsNonString(s);
}

const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '"': '\\"',
  '\n': '\\n',
  '\t': '\\t',
  '\r': '\\r',
  '\0': '\\0',
};

function doubleQuoted(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const c = s.charCodeAt(i);
    const esc = ESCAPES[ch];
    if (esc !== undefined) out += esc;
    else if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c === 0x2028 || c === 0x2029 || c === 0xfeff || c === 0xfffe || c === 0xffff) out += `\\u${c.toString(16)}`;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      out += ch + s[++i]; // a valid surrogate pair is a printable character
    } else if (c >= 0xd800 && c <= 0xdfff) out += `\\u${c.toString(16)}`;
    else out += ch;
  }
  return out + '"';
}
