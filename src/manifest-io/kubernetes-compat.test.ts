/**
 * Differential test: our reader against go-yaml v2 as sigs.k8s.io/yaml uses it (the code path of
 * kubectl and the apiserver). Runs when Debian's Go and go-yaml v2 sources are installed;
 * skips otherwise.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { deepEqual } from '../util/json.js';
import { yamlReference, type RefResult } from '../../test/support/yaml-ref.js';
import { readManifest } from './documents.js';
import { stringifyObject } from '../yaml/emit.js';
import { parseYamlDocument } from '../yaml/read.js';

const reference = yamlReference();
const skip = typeof reference === 'string' ? reference : false;
const CONFORMANCE = new URL('../../../shared/conformance/istio/inject/', import.meta.url);

/** Ours, in kubectl's lenient mode (duplicate keys: last wins), as {value} or {error}. */
function ours(doc: string): RefResult {
  try {
    return { value: parseYamlDocument(doc, { duplicateKeys: 'last' }).value };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Differences between our reading and the reference, as readable lines. */
function differences(docs: readonly string[]): string[] {
  if (typeof reference === 'string') return [];
  const ref = reference(docs);
  const out: string[] = [];
  docs.forEach((doc, i) => {
    const a = ours(doc);
    const b = ref[i];
    const same = b.error !== undefined ? a.error !== undefined : a.error === undefined && deepEqual(a.value, b.value);
    if (!same) out.push(`${JSON.stringify(doc)}: ours ${JSON.stringify(a)}, go-yaml ${JSON.stringify(b)}`);
  });
  return out;
}

describe('reading YAML exactly as sigs.k8s.io/yaml (go-yaml v2) does', { skip }, () => {
  it('types plain scalars the same way (random number-, bool- and null-like tokens, as values and as keys)', () => {
    const token = fc.string({ unit: fc.constantFrom(...'0123456789+-._eExXoObB:~yYnNtTfFlLuU'), minLength: 1, maxLength: 12 });
    const tokens = [...new Set(fc.sample(token, 6000))].filter((t) => !/^[-?:]/.test(t));
    const docs = [...tokens.map((t) => `k: ${t}`), ...tokens.map((t) => `${t}: v`)];
    assert.deepEqual(differences(docs).slice(0, 10), []);
  });

  it('agrees on structure: anchors, merges, tags, block scalars, quoting, flow style, errors', () => {
    const docs = [
      'a: |\n  x\n  y\n',
      'a: >\n  x\n  y\n\n  z\n',
      'a: |+\n  x\n\n',
      'a: >-\n  folded\n  text\n',
      'a: |2\n    indented\n',
      'a: "esc \\t \\n \\x41 \\u00e9 \\U0001F600 \\\\ \\" \\0 \\a \\b \\e \\N \\_"',
      "a: 'single ''q'''",
      'a: multi\n  line\n  plain',
      'a: {b: 1, c: [1, 2, {d: e}]}',
      '- a\n- b: c\n  d: e\n- - x\n  - y',
      'a: &anc\n  b: 1\nc: *anc\nd:\n  <<: *anc\n  e: 2',
      'x: &x {a: 1, b: 2}\nz: &z {b: 3, c: 4}\nw:\n  <<: [*x, *z]\n  d: 5',
      'w:\n  <<: {a: 1}\n  <<: {a: 2}',
      'a: 1\n<<: {a: 2}',
      'a: !!str 123',
      'a: !!int "0x1F"',
      'a: !!float 3',
      'a: !!bool no',
      'a: !custom\n  b: 1',
      'a: !!binary aGVsbG8=',
      'a: !!set {x, z}',
      '# only comment\n',
      '~',
      '"just a string"',
      '42',
      '[]',
      '{}',
      'a:',
      'a: ~\nb: null\nc:\nd: ""',
      '? a\n: b',
      'a: b # c\n# c\nc: d',
      'a: "#x"',
      'a: x#z',
      'a: @x',
      'a: b: c',
      'a: [1, 2,]',
      'a: &a 1\nb: &a 2\nc: *a',
      'a: *undefined',
      'a: &x\n  b: *x',
      'é: ü\n😀: x',
      'a: 1\na: 2',
      '.nan: 1',
      '1e6: x',
      '3.14159265358979: x',
      '0644: x',
      'a: .inf',
      'a: 0644\nb: "0644"\nc: \'0644\'',
      'a:\tb',
      'a: - b',
      '- - - x',
      '[[[[]]]]',
      'a: 9007199254740993',
      'a: 2001-12-14 21:59:43.10',
    ];
    assert.deepEqual(differences(docs), []);
  });

  it('reads what stringifyObject writes as the same data (property)', () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    const docs = fc.sample(value, 1500).map((v) => stringifyObject(v as never));
    assert.deepEqual(differences(docs).slice(0, 5), []);
  });

  it('reads every Istio injection input the same way', { skip: !existsSync(CONFORMANCE) && 'shared conformance data absent' }, () => {
    const docs: string[] = [];
    for (const name of readdirSync(CONFORMANCE)) {
      if (!/\.yaml(\.injected)?$/.test(name)) continue;
      for (const d of readManifest(readFileSync(new URL(name, CONFORMANCE)), name)) if (d.format === 'yaml') docs.push(d.text);
    }
    assert.ok(docs.length > 100);
    assert.deepEqual(differences(docs), []);
  });
});
