/**
 * @module template/funcs/yaml
 * `toYaml` as Istio has it: sigs.k8s.io/yaml.Marshal, i.e. encoding/json first (so structs use
 * their JSON names and numbers become JSON numbers), then go-yaml v2 reads that JSON (integers
 * become ints, the rest float64) and emits it. This module reproduces go-yaml v2's emitter for
 * that data: sorted keys (go-yaml's "natural" order: "a2" before "a10"), block style with
 * sequences not indented under their key, `{}`/`[]` for empty collections, plain scalars where
 * YAML 1.1 would not re-type them, otherwise single or double quotes, literal blocks (`|-`) for
 * multi-line strings, and line folding past column 80. The `yaml` package cannot be configured
 * into these rules (folding, quoting choice and key order differ), so the emitter is our own;
 * tests check its output parses back to the same data.
 */
import { GoNumber, goTypeName, isGoObject, taggedGoType } from '../value.js';
import { formatFloatG, parseFloat64, parseInt64, parseUint } from './go-strconv.js';
import { toWellFormed } from './utf8.js';
import { isNilContainer } from './nil.js';
import { goJsonMarshal, JsonMarshalError } from './json-encode.js';
import { isDigit, isLetter } from './unicode.js';
import { isBase60Float, resolvesToString } from './yaml-resolve.js';

/** The data after the JSON round trip, as go-yaml v2 decoded it. */
type Node =
  | { kind: 'map'; entries: [string, Node][] }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'str'; value: string }
  | { kind: 'num'; text: string }
  | { kind: 'lit'; text: string };

const ASCII_ONLY = /^[\x00-\x7f]*$/;

function codePoints(s: string): number[] {
  const out = new Array<number>(s.length);
  if (ASCII_ONLY.test(s)) {
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }
  return Array.from(s, (c) => c.codePointAt(0) as number);
}

/** go-yaml's keyList.Less for string keys: letters before other runes, digit runs by value. */
export function yamlKeyLess(a: string, b: string): boolean {
  const ar = codePoints(a);
  const br = codePoints(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]);
    const bl = isLetter(br[i]);
    if (al && bl) return ar[i] < br[i];
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === 0x30 || br[i] === 0x30) {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== 0x30) {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = BigInt.asIntN(64, an * 10n + BigInt(ar[ai] - 0x30));
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = BigInt.asIntN(64, bn * 10n + BigInt(br[bi] - 0x30));
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i] < br[i];
  }
  return ar.length < br.length;
}

/** A JSON number's text as go-yaml re-reads it: an int stays exact, anything else is a float64. */
function numberNode(jsonText: string): Node {
  if (parseInt64(jsonText, 0).err === null) return { kind: 'num', text: BigInt(jsonText).toString() };
  if (parseUint(jsonText, 0).err === null) return { kind: 'num', text: BigInt(jsonText).toString() };
  const f = parseFloat64(jsonText).value;
  const s = formatFloatG(f, 64);
  return { kind: 'num', text: s === '+Inf' ? '.inf' : s === '-Inf' ? '-.inf' : s === 'NaN' ? '.nan' : s };
}

const NEL_FOLD = /[ \t]*\u0085(?:[ \t]*\u0085)*[ \t]*/g;

function foldBreaks(m: string): string {
  const n = m.split('\u0085').length - 1;
  return n === 1 ? ' ' : '\n'.repeat(n - 1);
}

/** Reads the JSON text we produced (always valid) into Nodes, keeping number texts. */
function jsonToNode(text: string): Node {
  let pos = 0;
  const ws = (): void => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos])) pos++;
  };
  const str = (): string => {
    const start = pos;
    pos++;
    while (text[pos] !== '"') pos += text[pos] === '\\' ? 2 : 1;
    pos++;
    const v = JSON.parse(text.slice(start, pos)) as string;
    // encoding/json leaves U+0085 (NEL) unescaped; go-yaml reads a raw NEL inside a double-quoted
    // scalar as a line break and folds it (one break -> space, n breaks -> n-1 newlines).
    return v.includes('\u0085') ? v.replace(NEL_FOLD, (m) => foldBreaks(m)) : v;
  };
  const value = (): Node => {
    ws();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const entries: [string, Node][] = [];
      ws();
      if (text[pos] === '}') pos++;
      else {
        for (;;) {
          ws();
          const k = str();
          ws();
          pos++; // ':'
          entries.push([k, value()]);
          ws();
          if (text[pos++] === '}') break;
        }
      }
      // Duplicate keys cannot occur: they come from one JS object.
      entries.sort((a, b) => (a[0] === b[0] ? 0 : yamlKeyLess(a[0], b[0]) ? -1 : 1));
      return { kind: 'map', entries };
    }
    if (c === '[') {
      pos++;
      const items: Node[] = [];
      ws();
      if (text[pos] === ']') pos++;
      else {
        for (;;) {
          items.push(value());
          ws();
          if (text[pos++] === ']') break;
        }
      }
      return { kind: 'seq', items };
    }
    if (c === '"') return { kind: 'str', value: str() };
    const m = /^(true|false|null|-?[0-9][0-9.eE+-]*)/.exec(text.slice(pos, pos + 400)) as RegExpExecArray;
    pos += m[0].length;
    return m[0] === 'true' || m[0] === 'false' || m[0] === 'null' ? { kind: 'lit', text: m[0] } : numberNode(m[0]);
  };
  return value();
}

const BEST_WIDTH = 80;
const BEST_INDENT = 2;

const isBreak = (c: number): boolean => c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
const isBlankOrEnd = (c: number | undefined): boolean => c === undefined || c === 0x20 || c === 0x09;
/** go-yaml's is_printable (4-byte UTF-8, i.e. above U+FFFF, is not "printable"). */
const isPrintable = (c: number): boolean =>
  c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);

interface Analysis {
  multiline: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

/** Strings whose analysis is trivially "anything goes": no indicators, breaks or edge spaces. */
const SIMPLE_SCALAR = /^[A-Za-z0-9_(][A-Za-z0-9 _./()=+$^;<>-]*$/;
const SIMPLE_ANALYSIS: Analysis = { multiline: false, blockPlain: true, singleQuoted: true, block: true };

/** yaml_emitter_analyze_scalar (block context). */
function analyze(cps: readonly number[], text?: string): Analysis {
  if (text !== undefined && SIMPLE_SCALAR.test(text) && !text.endsWith(' ') && !text.startsWith('---') && !text.startsWith('...')) {
    return SIMPLE_ANALYSIS;
  }
  if (cps.length === 0) return { multiline: false, blockPlain: true, singleQuoted: true, block: false };
  let blockIndicators = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWs = true;
  let prevSpace = false;
  let prevBreak = false;
  const n = cps.length;
  if (n >= 3 && ((cps[0] === 0x2d && cps[1] === 0x2d && cps[2] === 0x2d) || (cps[0] === 0x2e && cps[1] === 0x2e && cps[2] === 0x2e))) {
    blockIndicators = true;
  }
  for (let i = 0; i < n; i++) {
    const c = cps[i];
    const followedByWs = isBlankOrEnd(cps[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(String.fromCodePoint(c))) blockIndicators = true;
      else if ((c === 0x3f || c === 0x3a || c === 0x2d) && followedByWs) blockIndicators = true;
    } else if (c === 0x3a && followedByWs) blockIndicators = true;
    else if (c === 0x23 && precededByWs) blockIndicators = true;
    if (!isPrintable(c)) special = true;
    if (c === 0x20) {
      if (i === 0) leadingSpace = true;
      if (i === n - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === n - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = false;
      prevBreak = false;
    }
    precededByWs = c === 0x20 || c === 0x09 || isBreak(c);
  }
  const a: Analysis = { multiline: lineBreaks, blockPlain: true, singleQuoted: true, block: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.blockPlain = false;
  if (trailingSpace) a.block = false;
  if (breakSpace) a.blockPlain = a.singleQuoted = false;
  if (spaceBreak || special) a.blockPlain = a.singleQuoted = false;
  if (spaceBreak || special) a.block = false;
  if (lineBreaks) a.blockPlain = false;
  if (blockIndicators) a.blockPlain = false;
  return a;
}

type Style = 'plain' | 'single' | 'double' | 'literal';

class Emitter {
  out = '';
  column = 0;
  whitespace = true;
  indention = true;
  indent = -1;

  private put(s: string): void {
    this.out += s;
    this.column += s.length;
  }

  private putChar(c: number): void {
    this.out += String.fromCodePoint(c);
    this.column++;
  }

  private putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }

  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  writeIndicator(ind: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(ind);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private increaseIndent(flow: boolean, indentless: boolean): number {
    const saved = this.indent;
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
    return saved;
  }

  node(n: Node, ctx: { mapping: boolean; simpleKey: boolean }): void {
    if (n.kind === 'map') return this.mapping(n.entries, ctx.mapping);
    if (n.kind === 'seq') return this.sequence(n.items, ctx.mapping);
    if (n.kind === 'str') return this.string(n.value, ctx.simpleKey);
    return this.scalar(codePoints(n.text), 'plain', ctx.simpleKey, n.text);
  }

  private mapping(entries: [string, Node][], _inMapping: boolean): void {
    if (entries.length === 0) {
      this.writeIndicator('{', true, true, false);
      this.writeIndicator('}', false, false, false);
      return;
    }
    const saved = this.increaseIndent(false, false);
    for (const [k, v] of entries) {
      this.writeIndent();
      if (!analyze(codePoints(k), k).multiline && Buffer.byteLength(k) <= 128) {
        this.string(k, true);
        this.writeIndicator(':', false, false, false);
      } else {
        this.writeIndicator('?', true, false, true);
        this.string(k, false);
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
      }
      this.node(v, { mapping: true, simpleKey: false });
    }
    this.indent = saved;
  }

  private sequence(items: Node[], inMapping: boolean): void {
    if (items.length === 0) {
      this.writeIndicator('[', true, true, false);
      this.writeIndicator(']', false, false, false);
      return;
    }
    const saved = this.increaseIndent(false, inMapping && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.node(item, { mapping: false, simpleKey: false });
    }
    this.indent = saved;
  }

  /** go-yaml's stringv: plain when YAML 1.1 reads it back as the same string, literal for multi-line. */
  private string(s: string, simpleKey: boolean): void {
    const canUsePlain = resolvesToString(s) && !isBase60Float(s);
    const style: Style = s.includes('\n') ? 'literal' : canUsePlain ? 'plain' : 'double';
    this.scalar(codePoints(s), style, simpleKey, s);
  }

  private scalar(cps: number[], requested: Style, simpleKey: boolean, text?: string): void {
    const a = analyze(cps, text);
    let style = requested;
    if (simpleKey && a.multiline) style = 'double';
    if (style === 'plain' && (!a.blockPlain || (cps.length === 0 && simpleKey))) style = 'single';
    if (style === 'single' && !a.singleQuoted) style = 'double';
    if (style === 'literal' && (!a.block || simpleKey)) style = 'double';
    const saved = this.increaseIndent(true, false);
    const allowBreaks = !simpleKey;
    if (style === 'plain') this.plain(cps, allowBreaks, text);
    else if (style === 'single') this.singleQuoted(cps, allowBreaks);
    else if (style === 'double') this.doubleQuoted(cps, allowBreaks);
    else this.literal(cps);
    this.indent = saved;
  }

  private plain(cps: number[], allowBreaks: boolean, text?: string): void {
    if (!this.whitespace) this.put(' ');
    // Fast path: nothing to fold (no break is possible before the column passes the width).
    if (text !== undefined && (!allowBreaks || this.column + cps.length <= BEST_WIDTH || !text.includes(' '))) {
      this.out += text;
      this.column += cps.length;
      this.whitespace = false;
      this.indention = false;
      return;
    }
    let spaces = false;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i];
      if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && cps[i + 1] !== 0x20) this.writeIndent();
        else this.putChar(c);
        spaces = true;
      } else {
        this.putChar(c);
        this.indention = false;
        spaces = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(cps: number[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i];
      if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < cps.length - 1 && cps[i + 1] !== 0x20) {
          this.writeIndent();
        } else this.putChar(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.putBreak();
        this.writeBreak(c);
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (c === 0x27) this.put("'");
        this.putChar(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeBreak(c: number): void {
    if (c === 0x0a) this.putBreak();
    else {
      this.putChar(c);
      this.column = 0;
    }
    this.indention = true;
  }

  private doubleQuoted(cps: number[], allowBreaks: boolean): void {
    this.writeIndicator('"', true, false, false);
    let spaces = false;
    // go-yaml's is_bom looks at the start of the value, not at i: a leading BOM escapes everything.
    const bom = cps[0] === 0xfeff;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i];
      if (bom || !isPrintable(c) || isBreak(c) || c === 0x22 || c === 0x5c) {
        this.put('\\' + escapeFor(c));
        spaces = false;
      } else if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < cps.length - 1) {
          this.writeIndent();
          if (cps[i + 1] === 0x20) this.put('\\');
        } else this.putChar(c);
        spaces = true;
      } else {
        this.putChar(c);
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private literal(cps: number[]): void {
    this.writeIndicator('|', true, false, false);
    if (cps[0] === 0x20 || isBreak(cps[0])) this.writeIndicator(String(BEST_INDENT), false, false, false);
    const n = cps.length;
    let chomp = '';
    if (n === 0 || !isBreak(cps[n - 1])) chomp = '-';
    else if (n === 1 || isBreak(cps[n - 2])) chomp = '+';
    if (chomp) this.writeIndicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of cps) {
      if (isBreak(c)) {
        this.writeBreak(c);
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.putChar(c);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

function escapeFor(c: number): string {
  const named: Record<number, string> = {
    0x00: '0', 0x07: 'a', 0x08: 'b', 0x09: 't', 0x0a: 'n', 0x0b: 'v', 0x0c: 'f', 0x0d: 'r', 0x1b: 'e',
    0x22: '"', 0x5c: '\\', 0x85: 'N', 0xa0: '_', 0x2028: 'L', 0x2029: 'P',
  };
  if (named[c] !== undefined) return named[c];
  const hex = c.toString(16).toUpperCase();
  if (c <= 0xff) return 'x' + hex.padStart(2, '0');
  if (c <= 0xffff) return 'u' + hex.padStart(4, '0');
  return 'U' + hex.padStart(8, '0');
}

/**
 * The JSON round trip, done directly for plain JSON-shaped data (the common case) and through
 * real JSON text for anything else (structs, typed numbers, byte slices).
 */
function toNode(v: unknown, depth: number): Node {
  if (depth > MAX_NODE_DEPTH) throw new JsonMarshalError('json: unsupported value: nesting too deep');
  switch (typeof v) {
    case 'string':
      return { kind: 'str', value: jsonStringRoundTrip(v) };
    case 'boolean':
      return { kind: 'lit', text: v ? 'true' : 'false' };
    case 'undefined':
      return { kind: 'lit', text: 'null' };
    case 'number':
      return numberNode(goJsonMarshal(v));
    case 'object':
      if (v === null || isNilContainer(v)) return { kind: 'lit', text: 'null' };
      if (Array.isArray(v) && taggedGoType(v) === undefined) return { kind: 'seq', items: v.map((x) => toNode(x, depth + 1)) };
      if (isPlainData(v)) {
        const m = v as Record<string, unknown>;
        const entries: [string, Node][] = Object.keys(m).map((k) => [jsonStringRoundTrip(k), toNode(m[k], depth + 1)]);
        entries.sort((a, b) => (a[0] === b[0] ? 0 : yamlKeyLess(a[0], b[0]) ? -1 : 1));
        return { kind: 'map', entries };
      }
      break;
    default:
  }
  return jsonToNode(goJsonMarshal(v, { escapeHTML: false }));
}

const MAX_NODE_DEPTH = 10000;

/** A map that encoding/json marshals as an object of its own keys (untagged or map[string]...). */
function isPlainData(v: object): boolean {
  if (v instanceof GoNumber || isGoObject(v) || typeof (v as { call?: unknown }).call === 'function') return false;
  const tag = taggedGoType(v);
  return tag === undefined ? goTypeName(v) === 'map[string]interface {}' : tag.startsWith('map[string]');
}

/** What a string becomes after encoding/json and go-yaml's reading of it. */
function jsonStringRoundTrip(s: string): string {
  const w = toWellFormed(s);
  return w.includes('\u0085') ? w.replace(NEL_FOLD, (m) => foldBreaks(m)) : w;
}

/** sigs.k8s.io/yaml.Marshal; throws JsonMarshalError where encoding/json fails. */
export function goYamlMarshal(v: unknown): string {
  const node = toNode(v, 0);
  const e = new Emitter();
  e.node(node, { mapping: false, simpleKey: false });
  e.writeIndent();
  return e.out;
}

export { JsonMarshalError };
