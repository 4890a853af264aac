/**
 * @module template/funcs/yaml-node
 * The data toYaml emits, as sigs.k8s.io/yaml sees it after its JSON round trip: strings as
 * encoding/json writes them (lone surrogates as U+FFFD) and go-yaml reads them back (a raw NEL
 * folds), numbers re-typed by go-yaml (exact ints, float64 otherwise), map keys in go-yaml's
 * order. Plain JSON-shaped data is converted directly; anything else goes through JSON text.
 */
import { GoNumber, goTypeName, isGoObject, taggedGoType } from '../value.js';
import { formatFloatG, parseFloat64, parseInt64, parseUint } from '../strconv.js';
import { goJsonMarshal, JsonMarshalError } from './json-encode.js';
import { isNilContainer } from './nil.js';
import { isDigit, isLetter } from './unicode.js';
import { toWellFormed } from './utf8.js';

/** The data after the JSON round trip, as go-yaml v2 decoded it. */
export type Node =
  | { kind: 'map'; entries: [string, Node][] }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'str'; value: string }
  | { kind: 'num'; text: string }
  | { kind: 'lit'; text: string };

const ASCII_ONLY = /^[\x00-\x7f]*$/;

export function codePoints(s: string): number[] {
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

/**
 * The JSON round trip, done directly for plain JSON-shaped data (the common case) and through
 * real JSON text for anything else (structs, typed numbers, byte slices).
 */
export function toNode(v: unknown, depth: number): Node {
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
