/**
 * @module yaml/plain-block
 * A one-pass reader for the plain block YAML that injection templates render, so the cache-miss
 * path of inject/render-overlay.ts does not pay for a general YAML parser (issue 18): about 3 KB of
 * `key: value` lines, nested maps and lists, quoted strings, a few one-line flow lists and
 * Istio's `annotations: {` map spread over lines, and `|` blocks.
 *
 * The contract: {@link readPlainBlockYaml} returns exactly `parseYamlDocument(text).value` (same
 * values, types, key order, plain `{}`/`[]` objects), or `undefined` whenever the text is
 * outside the subset below; the caller then runs the library as before, so errors, their line
 * numbers and every odd input are the library's business, never this reader's. It decides by
 * what it sees on the line and bails as soon as it is unsure, and it never reports an error.
 *
 * Accepted:
 * - a block mapping at the root (or nothing but blank and comment lines: null);
 * - nested block mappings and sequences, indentless sequences (`args:` then `- x` at the key's
 *   column), `- key: value` maps in sequences, `key:` with nothing after it (null);
 * - comment lines anywhere, blank lines, a ` # comment` after a value;
 * - keys: plain words of letters, digits, `_ . / -` starting with a letter or `_`, that YAML 1.1
 *   (resolve.ts) reads as strings, no `__proto__`, no duplicates;
 * - values: plain scalars resolve.ts types as strings, decimal integers, `true`/`false`;
 *   single-quoted scalars; double-quoted ones with only JSON's escapes; `|` and `|-` blocks
 *   (no indentation digit, no leading or over-long blank lines); flow lists and maps of
 *   such scalars (no nesting, no comments), on one line or broken only after `[`, `{` or `,`.
 *
 * Not accepted (the library reads them): tabs, CR, a BOM, non-printable or odd line-break
 * characters, `---`/`...`, directives, anchors, aliases, tags, `?` and quoted keys, `<<`, `>`
 * and kept (`|+`) blocks, multi-line plain or quoted scalars, yes/no/on/off/y/n and other YAML
 * 1.1 words, null words, floats, octal/hex/underscored/signed or long integers, `- -` and empty
 * `-` items, a sequence at the root, more than {@link MAX_NESTING} levels.
 *
 * plain-block.test.ts holds it to the library on every YAML file of the repository and Istio's
 * inputs, the rendered overlays, generated documents and line-by-line mutations of them.
 */
import type { JsonObject, JsonValue } from '../util/json.js';
import { resolvePlain, STRING } from './resolve.js';

/** Nesting cap: rendered overlays stay under 10 levels; deep inputs go to the library's checks. */
export const MAX_NESTING = 64;

/**
 * Characters read the same by every step of the library path: `\n`, printable ASCII, and BMP
 * text without controls, surrogates, a BOM, or NEL, LS and PS (YAML 1.1 line breaks the library
 * reports).
 */
const UNSAFE_CHAR = /[^\n\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]/;
/** A decimal integer resolve.ts reads as an exact number (up to 15 digits: always safe). */
const DECIMAL_INT = /^-?(?:0|[1-9][0-9]{0,14})$/;
/** A plain scalar inside a flow collection: no spaces, no `:`/`#`/flow indicators, no lone `-`. */
const FLOW_PLAIN = /(?:[A-Za-z0-9_./$(]|[-+][A-Za-z0-9_./$(])[A-Za-z0-9_./$()=+-]*/y;
/** A double-quoted scalar's escapes that JSON.parse reads as YAML does (no surrogate `\u`). */
const JSON_ESCAPE = /\\(?:["\\/bfnrt]|u(?![dD][89a-fA-F])[0-9a-fA-F]{4})/y;
/** First characters that are YAML indicators: a plain scalar cannot start with them (`-` only before a space). */
const INDICATORS = '-?:,[]{}#&*!|>\'"%@`';

const SPACE = 0x20;
const HASH = 0x23;
const DASH = 0x2d;

/** Thrown (never out of this module) when the text leaves the subset. */
const BAIL: unique symbol = Symbol('bail');

/** An open block collection: its keys (or dashes) sit at column `indent`. */
interface Open {
  readonly indent: number;
  readonly node: JsonObject | JsonValue[];
}

/** A value read from the text, and where the next line to read starts. */
interface Read {
  readonly value: JsonValue;
  readonly next: number;
}

/**
 * `parseYamlDocument(text).value` for plain block YAML, or undefined when `text` is outside the
 * subset (then parse it with the library, which also reports every error).
 */
export function readPlainBlockYaml(text: string): JsonObject | null | undefined {
  if (UNSAFE_CHAR.test(text)) return undefined;
  try {
    return new Reader(text).document();
  } catch (err) {
    if (err === BAIL) return undefined;
    throw err;
  }
}

class Reader {
  private readonly stack: Open[] = [];
  private root: JsonObject | undefined;
  /** A `key:` with nothing after it: null unless the next content line opens a block under it. */
  private pending: { readonly map: JsonObject; readonly key: string; readonly indent: number } | undefined;
  /** Start and end (its `\n` or the text's end) of the line being read. */
  private lineStart = 0;
  private lineEnd = 0;

  constructor(private readonly text: string) {}

  document(): JsonObject | null {
    const { text } = this;
    let pos = 0;
    while (pos < text.length) {
      const nl = text.indexOf('\n', pos);
      this.lineStart = pos;
      this.lineEnd = nl === -1 ? text.length : nl;
      let at = pos;
      while (at < this.lineEnd && text.charCodeAt(at) === SPACE) at++;
      // Blank and comment lines carry nothing outside a block scalar (which reads its own lines).
      if (at === this.lineEnd || text.charCodeAt(at) === HASH) pos = nl === -1 ? text.length : nl + 1;
      else pos = this.contentLine(at);
    }
    this.settlePending(-1, false);
    return this.root ?? null;
  }

  /** A line with content starting at `at`; returns where the next unread line starts. */
  private contentLine(at: number): number {
    const text = this.text;
    const indent = at - this.lineStart;
    const dash = text.charCodeAt(at) === DASH && (at + 1 === this.lineEnd || text.charCodeAt(at + 1) === SPACE);
    const stack = this.stack;
    if (this.root === undefined) {
      // The first content line must start the root mapping.
      if (dash) throw BAIL;
      this.root = {};
      this.push(indent, this.root);
    }
    this.settlePending(indent, dash);
    // Close what this line ends: deeper collections, and a sequence at its line's column
    // (an indentless sequence ends at its key's next sibling).
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.indent > indent || (top.indent === indent && !dash && Array.isArray(top.node))) stack.pop();
      else break;
    }
    // No collection at this column: bad indentation, or (deeper) the continuation of a
    // multi-line scalar. Either way the library's call. (A `---`, `...` or `%` line starts no
    // key or item either, so the stream's markers and directives are the library's too.)
    const top = stack[stack.length - 1];
    if (top === undefined || top.indent !== indent) throw BAIL;
    if (dash) {
      if (!Array.isArray(top.node)) throw BAIL;
      return this.item(top.node, indent, at);
    }
    if (Array.isArray(top.node)) throw BAIL;
    return this.pair(top.node, indent, at);
  }

  private push(indent: number, node: JsonObject | JsonValue[]): void {
    if (this.stack.length >= MAX_NESTING) throw BAIL;
    this.stack.push({ indent, node });
  }

  /**
   * Give the waiting `key:` its value. A line deeper than its map, or a `-` at the map's own
   * column (YAML lets a sequence value sit at its key's column), opens the block collection that
   * is its value; anything else leaves it null, which it already is. `indent` -1: the end.
   */
  private settlePending(indent: number, dash: boolean): void {
    const p = this.pending;
    if (p === undefined) return;
    this.pending = undefined;
    if (indent > p.indent || (dash && indent === p.indent)) {
      const node: JsonObject | JsonValue[] = dash ? [] : {};
      p.map[p.key] = node;
      this.push(indent, node);
    }
  }

  /** `- ...` at column `indent`, at offset `at`. */
  private item(seq: JsonValue[], indent: number, at: number): number {
    const text = this.text;
    let i = at + 1;
    while (i < this.lineEnd && text.charCodeAt(i) === SPACE) i++;
    // An empty item (its value may be on the next lines), a comment, or `- -`: left to the library.
    if (i === this.lineEnd || text.charCodeAt(i) === HASH) throw BAIL;
    if (text.charCodeAt(i) === DASH && (i + 1 === this.lineEnd || text.charCodeAt(i + 1) === SPACE)) throw BAIL;
    if (this.keyEnd(i) !== -1) {
      // `- key: value`: a mapping whose keys sit at the column of this first key.
      const map: JsonObject = {};
      seq.push(map);
      const mapIndent = i - this.lineStart;
      this.push(mapIndent, map);
      return this.pair(map, mapIndent, i);
    }
    const r = this.value(i, indent);
    seq.push(r.value);
    return r.next;
  }

  /** `key: value` or `key:` at offset `at`, in `map` whose keys sit at column `indent`. */
  private pair(map: JsonObject, indent: number, at: number): number {
    const text = this.text;
    const end = this.keyEnd(at);
    if (end === -1) throw BAIL;
    const key = text.slice(at, end);
    // Only keys YAML 1.1 reads as strings (`on:` is `true:` there, `null:` an error for
    // Kubernetes), and once: a second value for a key is an error the library reports. Every
    // value set is defined, so only a repeated key (or one Object.prototype has, like
    // `constructor`, left to the library too) reads as defined here.
    if (!isStringKey(key) || map[key] !== undefined) throw BAIL;
    let i = end + 1;
    while (i < this.lineEnd && text.charCodeAt(i) === SPACE) i++;
    // keyEnd made sure a space follows the colon, so a `#` here starts a comment.
    if (i === this.lineEnd || text.charCodeAt(i) === HASH) {
      // Null unless a block follows; set now so the key keeps its place.
      map[key] = null;
      this.pending = { map, key, indent };
      return this.nextLine(this.lineEnd);
    }
    const r = this.value(i, indent);
    map[key] = r.value;
    return r.next;
  }

  /** The end of a plain key at `at` that is followed by `:` and a space or the line's end, or -1. */
  private keyEnd(at: number): number {
    const end = plainKeyEnd(this.text, at);
    if (end === -1 || this.text.charCodeAt(end) !== 0x3a /* : */ || (end + 1 < this.lineEnd && this.text.charCodeAt(end + 1) !== SPACE)) return -1;
    return end;
  }

  /** The value at `at` of an entry of the collection at column `parentIndent`. */
  private value(at: number, parentIndent: number): Read {
    const text = this.text;
    const c = text[at];
    let value: JsonValue;
    let end: number;
    if (c === '"' || c === "'") {
      [value, end] = quoted(text, at, this.lineEnd);
    } else if (c === '[' || c === '{') {
      return this.flow(at);
    } else if (c === '|') {
      return this.blockScalar(at, parentIndent);
    } else {
      // `-x` and `--flag` are plain scalars; other indicators start something else (or an error).
      if (INDICATORS.includes(c) && !(c === '-' && at + 1 < this.lineEnd && text.charCodeAt(at + 1) !== SPACE)) throw BAIL;
      // The scalar runs to a ` #` comment or the line's end, without trailing spaces. A later
      // line cannot continue it: contentLine refuses any line deeper than the open collection.
      end = at + 1;
      while (end < this.lineEnd && !(text.charCodeAt(end) === HASH && text.charCodeAt(end - 1) === SPACE)) end++;
      while (text.charCodeAt(end - 1) === SPACE) end--;
      const s = text.slice(at, end);
      // `a: b: c` and `a: b:` are mappings where none may start: errors the library reports.
      if (s.includes(': ') || s.endsWith(':')) throw BAIL;
      value = plainValue(s);
    }
    return { value, next: this.afterValue(end) };
  }

  /** After a value ending at `from` on this line: only spaces, or spaces and a comment. The next line's start. */
  private afterValue(from: number): number {
    const text = this.text;
    let i = from;
    while (i < this.lineEnd && text.charCodeAt(i) === SPACE) i++;
    if (i < this.lineEnd && !(text.charCodeAt(i) === HASH && i > from)) throw BAIL;
    return this.nextLine(this.lineEnd);
  }

  private nextLine(lineEnd: number): number {
    return lineEnd === this.text.length ? lineEnd : lineEnd + 1;
  }

  /**
   * A flow list or map of scalars at `at`. A line may break only after `[`, `{` or `,` (as in
   * Istio's `annotations: {` ... `}`): after a scalar, YAML would continue the scalar (or its
   * key) on the next line, so that is left to the library, as are nested collections, comments,
   * `key:` without a value and list entries that are `key: value` pairs.
   */
  private flow(at: number): Read {
    const text = this.text;
    const isMap = text[at] === '{';
    const close = isMap ? '}' : ']';
    const map: JsonObject = {};
    const list: JsonValue[] = [];
    let i = at + 1;
    let mayBreak = true; // right after the bracket or a comma
    for (;;) {
      i = this.flowGap(i, mayBreak);
      if (text[i] === close) break; // also after a trailing comma, as YAML allows
      if (isMap) {
        const keyEnd = plainKeyEnd(text, i);
        if (keyEnd === -1 || text[keyEnd] !== ':' || text[keyEnd + 1] !== ' ') throw BAIL;
        const key = text.slice(i, keyEnd);
        if (!isStringKey(key) || map[key] !== undefined) throw BAIL;
        i = this.flowGap(keyEnd + 2, false);
        const [value, end] = this.flowScalar(i);
        map[key] = value;
        i = end;
      } else {
        const [value, end] = this.flowScalar(i);
        list.push(value);
        i = end;
      }
      i = this.flowGap(i, false);
      if (text[i] === ',') {
        i++;
        mayBreak = true;
      } else if (text[i] === close) {
        break;
      } else {
        throw BAIL; // `:` (a pair in a list), a second scalar, the line's end...
      }
    }
    return { value: isMap ? map : list, next: this.afterValue(i + 1) };
  }

  /** Skip spaces from `i`, and line breaks too when `mayBreak` (then this.line* follow). */
  private flowGap(i: number, mayBreak: boolean): number {
    const text = this.text;
    for (;;) {
      while (text.charCodeAt(i) === SPACE) i++;
      if (i !== this.lineEnd || !mayBreak || i === text.length) break;
      // The flow goes on on the next line (blank lines included). A `---` or `...` there would
      // end the document, a `%` start a directive: all left to the library.
      i++;
      const c = text.charCodeAt(i);
      if (c === DASH || c === 0x2e /* . */ || c === 0x25 /* % */) throw BAIL;
      this.lineStart = i;
      const nl = text.indexOf('\n', i);
      this.lineEnd = nl === -1 ? text.length : nl;
    }
    if (i === this.lineEnd || text.charCodeAt(i) === HASH) throw BAIL;
    return i;
  }

  /** A scalar entry of a flow collection at `i`: its value and end. */
  private flowScalar(i: number): [JsonValue, number] {
    const text = this.text;
    const c = text[i];
    if (c === '"' || c === "'") return quoted(text, i, this.lineEnd);
    FLOW_PLAIN.lastIndex = i;
    if (!FLOW_PLAIN.test(text)) throw BAIL;
    return [plainValue(text.slice(i, FLOW_PLAIN.lastIndex)), FLOW_PLAIN.lastIndex];
  }

  /**
   * `|` or `|-` at `at`, the value of an entry of the collection at column `parentIndent`: the
   * lines after it indented deeper than that column (the first one sets the indentation), with
   * blank lines inside. The library's own rules decide the odd cases (leading blank lines,
   * blank lines longer than the indentation, no content line), so those are left to it.
   */
  private blockScalar(at: number, parentIndent: number): Read {
    const text = this.text;
    let h = at + 1;
    const strip = text[h] === '-';
    if (strip) h++;
    while (h < this.lineEnd && text.charCodeAt(h) === SPACE) h++;
    if (h !== this.lineEnd || h === text.length) throw BAIL; // `|+`, `|2`, `| #...`, or nothing after it
    let value = '';
    let contentIndent = -1;
    let emptyLines = 0;
    let any = false; // a content line was read
    let broken = true; // the last content line ends with a line break
    let pos = h + 1;
    while (pos < text.length) {
      const nl = text.indexOf('\n', pos);
      const end = nl === -1 ? text.length : nl;
      let i = pos;
      while (i < end && text.charCodeAt(i) === SPACE) i++;
      if (i === end) {
        // A blank line: leading ones and ones longer than the indentation (their spaces are
        // text) are the library's.
        if (contentIndent === -1 || end - pos > contentIndent) throw BAIL;
        emptyLines++;
        pos = nl === -1 ? end : nl + 1;
        continue;
      }
      const indent = i - pos;
      if (contentIndent === -1) {
        // No content line (an empty block scalar) is left to the library.
        if (indent <= parentIndent) throw BAIL;
        contentIndent = indent;
      } else if (indent < contentIndent) {
        break; // a less indented line (a comment too) ends the block
      }
      // Between two content lines: their line break and one per blank line.
      if (any) value += '\n'.repeat(1 + emptyLines);
      emptyLines = 0;
      value += text.slice(pos + contentIndent, end);
      any = true;
      broken = nl !== -1;
      pos = nl === -1 ? end : nl + 1;
    }
    if (contentIndent === -1) throw BAIL;
    // Clip keeps the last content line's break, strip drops it; blank lines after it go. A last
    // line that ends the text has no break to keep (go-yaml; read.ts makes the library agree).
    if (!strip && broken) value += '\n';
    // The line that ended the block is read next; this.line* move on with the caller's loop.
    return { value, next: pos };
  }
}

/** Character classes of plain keys, by char code: 1 may start one, 2 may only continue one. */
const KEY_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z_]/.test(ch)) KEY_CHAR[c] = 1;
  else if (/[0-9./-]/.test(ch)) KEY_CHAR[c] = 2;
}

/** The end of the plain key (letters, digits, `_ . / -`, not starting with a digit or `. / -`) at `at`, or -1. */
function plainKeyEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c >= 128 || KEY_CHAR[c] !== 1) return -1;
  let i = at + 1;
  for (let k = text.charCodeAt(i); k < 128 && KEY_CHAR[k] !== 0; k = text.charCodeAt(++i));
  return i;
}

/** A plain key YAML 1.1 reads as this string, and not the one key a JS object cannot simply hold. */
function isStringKey(key: string): boolean {
  return key !== '__proto__' && resolvePlain(key) === STRING;
}

/**
 * A plain scalar's value, for the scalars the subset accepts. The library types a plain scalar
 * by the schema's one implicit type (k8s-schema.ts), which calls resolvePlain on this same text
 * (js-yaml trims it the same way), and convert.ts keeps strings, numbers and booleans as they
 * are: so resolvePlain's answer is the library's, not a second opinion.
 */
function plainValue(s: string): JsonValue {
  const r = resolvePlain(s);
  if (r === STRING) return s;
  // resolve.ts types like go-yaml; the subset keeps to its certain, common cases.
  if (typeof r === 'number' && DECIMAL_INT.test(s)) return r;
  if (typeof r === 'boolean' && (s === 'true' || s === 'false')) return r;
  throw BAIL;
}

/** A quoted scalar at `at` that closes before `lineEnd`: its value and the offset after it. */
function quoted(text: string, at: number, lineEnd: number): [string, number] {
  if (text[at] === "'") {
    // `''` is a quote; nothing else is special.
    let i = at + 1;
    for (;;) {
      const q = text.indexOf("'", i);
      if (q === -1 || q >= lineEnd) throw BAIL;
      if (text[q + 1] !== "'") {
        const raw = text.slice(at + 1, q);
        return [raw.includes("''") ? raw.replaceAll("''", "'") : raw, q + 1];
      }
      i = q + 2;
    }
  }
  let escaped = false;
  for (let i = at + 1; i < lineEnd; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // With JSON's escapes only (checked below), JSON reads the text exactly as YAML does.
      return [escaped ? (JSON.parse(text.slice(at, i + 1)) as string) : text.slice(at + 1, i), i + 1];
    }
    if (c === 0x5c /* \ */) {
      JSON_ESCAPE.lastIndex = i;
      if (!JSON_ESCAPE.test(text)) throw BAIL;
      escaped = true;
      i = JSON_ESCAPE.lastIndex - 1;
    }
  }
  throw BAIL; // not closed on its line
}
