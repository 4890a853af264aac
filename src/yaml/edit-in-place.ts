/**
 * @module yaml/edit-in-place
 * Rewrite a YAML document by editing its text where the data changed, instead of
 * re-serialising it: GitOps users review the diff of `inject -f`, so every line the injection
 * did not change keeps its text, quoting and comments. The `yaml` library's parsed Document
 * gives each node's source range; the old and new values are compared key by key and item by
 * item, and only the smallest changed parts are spliced:
 *
 * - a changed, added or removed key of a block mapping: that key's lines (added keys go after
 *   the mapping's last line, at its indentation);
 * - a block sequence: items kept in order stay, new items are inserted where they belong,
 *   removed ones are cut, changed maps are edited recursively;
 * - a flow collection or scalar that changed: the whole key line(s) are written anew.
 *
 * The tree comes from block-index.ts for plain block YAML (one pass over the lines), else from
 * the library's `parseDocument`; both give the same tree (block-index.test.ts).
 *
 * The result is parsed again and must equal the new value; anything this does not handle
 * (anchors, tags, complex keys, a key shared with `- ` on its line that must go) returns
 * undefined, and the caller falls back to re-serialising the document.
 */
import { isMap, isScalar, isSeq, parseDocument, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { deepEqual, isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';
import { indexBlockYaml } from './block-index.js';
import { stringifyObject } from './emit.js';
import { parseYamlDocument } from './read.js';

interface Edit {
  start: number;
  end: number;
  text: string;
}

class Unsupported extends Error {}

/** The document text with `next` spliced in where it differs from `prev`; undefined when not possible. */
export function editInPlace(text: string, prev: JsonValue, next: JsonValue, eol: '\n' | '\r\n', reader: 'index' | 'library' = 'index'): string | undefined {
  if (!isPlainObject(prev) || !isPlainObject(next)) return undefined;
  let edited: string;
  try {
    // `library` (tests only): skip the index, to compare the two.
    const root = (reader === 'index' ? indexBlockYaml(text) : undefined) ?? libraryRoot(text);
    if (root === undefined) return undefined;
    const edits: Edit[] = [];
    new Editor(text, eol, edits).map(root, prev, next);
    edited = apply(text, edits);
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
  // The safety net: the edited text must read back as exactly the new value.
  try {
    if (!deepEqual(parseYamlDocument(edited, { file: 'edited document' }).value, next)) return undefined;
  } catch {
    return undefined;
  }
  return edited;
}

/** The root block mapping as the `yaml` library reads it (any YAML; about 6x the cost of the index). */
function libraryRoot(text: string): YAMLMap | undefined {
  const doc = parseDocument(text, { version: '1.1', uniqueKeys: false });
  if (doc.errors.length > 0 || !isMap(doc.contents) || doc.contents.flow === true) return undefined;
  return doc.contents;
}

function apply(text: string, edits: Edit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const e of sorted) {
    if (e.start < at) throw new Unsupported('overlapping edits');
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

class Editor {
  constructor(
    private readonly text: string,
    private readonly eol: '\n' | '\r\n',
    private readonly edits: Edit[],
  ) {}

  map(node: YAMLMap, prev: JsonObject, next: JsonObject): void {
    if (node.flow === true || node.range === undefined || node.range === null) throw new Unsupported('flow map');
    const seen = new Set<string>();
    let indent: number | undefined;
    for (const pair of node.items) {
      const key = this.keyOf(pair);
      seen.add(key);
      indent ??= this.column(this.keyStart(pair));
      const value = pair.value as Node | null;
      if (!Object.hasOwn(next, key)) {
        this.deletePair(pair);
        continue;
      }
      const a = prev[key];
      const b = next[key];
      if (deepEqual(a, b)) continue;
      if (isPlainObject(a) && isPlainObject(b) && isMap(value) && value.flow !== true && this.startsOnNextLine(pair)) this.map(value, a, b);
      else if (Array.isArray(a) && Array.isArray(b) && isSeq(value) && value.flow !== true && this.startsOnNextLine(pair)) this.seq(value, a, b);
      else this.replacePair(pair, key, b);
    }
    const added = Object.keys(next).filter((k) => !seen.has(k));
    if (added.length === 0) return;
    if (indent === undefined) throw new Unsupported('empty block map');
    const body: JsonObject = {};
    for (const k of added) body[k] = next[k];
    const at = this.lineEndAt(node.range[2]);
    this.edits.push({ start: at, end: at, text: this.prefixBreak(at) + this.indented(stringifyObject(body), indent) });
  }

  private seq(node: YAMLSeq, prev: JsonValue[], next: JsonValue[]): void {
    const items = node.items as Node[];
    if (items.length !== prev.length || items.length === 0) throw new Unsupported('sequence shape');
    const indent = this.dashColumn(items[0]);
    // Align: each new item is an old item kept (in order), an old map changed in place (same name), or new.
    let i = 0;
    const pending: JsonValue[] = [];
    const flushBefore = (pos: number) => {
      if (pending.length === 0) return;
      this.edits.push({ start: pos, end: pos, text: this.prefixBreak(pos) + this.indented(stringifyObject(pending.splice(0)), indent) });
    };
    for (const item of next) {
      const keep = prev.findIndex((p, k) => k >= i && deepEqual(p, item));
      const named = keep === -1 ? prev.findIndex((p, k) => k >= i && sameName(p, item)) : -1;
      const match = keep !== -1 ? keep : named;
      if (match === -1) {
        pending.push(item);
        continue;
      }
      for (; i < match; i++) this.deleteItem(items[i]);
      flushBefore(this.lineStart(items[match].range![0]));
      if (keep === -1) {
        const node = items[match];
        const a = prev[match];
        if (isMap(node) && node.flow !== true && isPlainObject(a) && isPlainObject(item)) this.map(node, a, item);
        else this.replaceItem(node, item);
      }
      i = match + 1;
    }
    for (; i < items.length; i++) this.deleteItem(items[i]);
    flushBefore(this.lineEndAt(node.range![2]));
  }

  private keyOf(pair: Pair): string {
    if (!isScalar(pair.key) || typeof pair.key.value !== 'string' || pair.key.range === undefined || pair.key.range === null)
      throw new Unsupported('non-string key');
    if (pair.key.anchor !== undefined || (isScalar(pair.value) && pair.value.anchor !== undefined)) throw new Unsupported('anchor');
    return pair.key.value;
  }

  private keyStart(pair: Pair): number {
    return (pair.key as Node).range![0];
  }

  private pairEnd(pair: Pair): number {
    const v = pair.value as Node | null;
    return this.lineEndAt(v?.range?.[2] ?? (pair.key as Node).range![2]);
  }

  /** A block value on the lines after its key (so its lines can be edited on their own). */
  private startsOnNextLine(pair: Pair): boolean {
    const v = pair.value as Node;
    return this.text.slice((pair.key as Node).range![1], v.range![0]).includes('\n');
  }

  private deletePair(pair: Pair): void {
    const start = this.keyStart(pair);
    const lineStart = this.lineStart(start);
    if (this.text.slice(lineStart, start).trim() !== '') throw new Unsupported('key shares its line');
    this.edits.push({ start: lineStart, end: this.pairEnd(pair), text: '' });
  }

  private replacePair(pair: Pair, key: string, value: JsonValue): void {
    const start = this.keyStart(pair);
    const lineStart = this.lineStart(start);
    const prefix = this.text.slice(lineStart, start);
    const end = this.pairEnd(pair);
    const body = this.indented(stringifyObject({ [key]: value }), this.column(start));
    if (prefix.trim() === '') {
      this.edits.push({ start: lineStart, end, text: body });
      return;
    }
    // `- key: value`: keep the dash, replace from the key on.
    this.edits.push({ start, end, text: body.slice(this.column(start)) });
  }

  private deleteItem(item: Node): void {
    const start = this.lineStart(item.range![0]);
    if (!/^\s*-\s*$/.test(this.text.slice(start, item.range![0]))) throw new Unsupported('item shares its line');
    this.edits.push({ start, end: this.lineEndAt(item.range![2]), text: '' });
  }

  private replaceItem(item: Node, value: JsonValue): void {
    const start = this.lineStart(item.range![0]);
    if (!/^\s*-\s*$/.test(this.text.slice(start, item.range![0]))) throw new Unsupported('item shares its line');
    this.edits.push({ start, end: this.lineEndAt(item.range![2]), text: this.indented(stringifyObject([value]), this.dashColumn(item)) });
  }

  /** Column of the `-` before an item (the item must start its line after `- `). */
  private dashColumn(item: Node): number {
    const start = this.lineStart(item.range![0]);
    const m = /^(\s*)-\s*$/.exec(this.text.slice(start, item.range![0]));
    if (m === null) throw new Unsupported('item layout');
    return m[1].length;
  }

  private column(pos: number): number {
    const start = this.lineStart(pos);
    const prefix = this.text.slice(start, pos);
    if (prefix.includes('\t')) throw new Unsupported('tab indentation');
    return prefix.length;
  }

  private lineStart(pos: number): number {
    return this.text.lastIndexOf('\n', pos - 1) + 1;
  }

  /** `pos` if it starts a line (or ends the text), else the start of the next line. */
  private lineEndAt(pos: number): number {
    if (pos >= this.text.length || this.text[pos - 1] === '\n') return Math.min(pos, this.text.length);
    const nl = this.text.indexOf('\n', pos);
    return nl === -1 ? this.text.length : nl + 1;
  }

  /** A line break before inserted text when the text there does not end one. */
  private prefixBreak(pos: number): string {
    return pos > 0 && this.text[pos - 1] !== '\n' ? this.eol : '';
  }

  private indented(block: string, indent: number): string {
    const pad = ' '.repeat(indent);
    const lines = block.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    return lines.map((l) => (l === '' ? l : pad + l)).join(this.eol) + this.eol;
  }
}

/** The same item changed: a container or volume by `name`, an object (a List item) by kind and metadata.name. */
function sameName(a: JsonValue, b: JsonValue): boolean {
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  if (typeof a.name === 'string') return a.name === b.name;
  const metaName = (v: JsonObject) => (isPlainObject(v.metadata) && typeof v.metadata.name === 'string' ? v.metadata.name : undefined);
  return typeof a.kind === 'string' && a.kind === b.kind && metaName(a) !== undefined && metaName(a) === metaName(b);
}
