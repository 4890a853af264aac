/**
 * The one-pass block index must give edit-in-place exactly the tree `parseDocument` gives it,
 * or nothing: on every YAML document in testdata, examples and (when present) the Istio
 * conformance inputs, on the benchmark's generated manifests, on random manifests written by our
 * emitter, and on all of these mutated line by line (indentation, comments, anchors, quotes,
 * continuation lines...). Ranges are compared the way edit-in-place reads them: starts exactly,
 * ends rounded to the end of their line.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { isAlias, isMap, isScalar, isSeq, parseDocument, type Node, type Pair } from 'yaml';
import { indexBlockYaml } from './block-index.js';
import { stringifyObject } from './emit.js';
import { editInPlace } from './edit-in-place.js';
import { parseYamlDocument } from './read.js';
import type { JsonValue } from '../util/json.js';
import { readManifest } from '../manifest-io/documents.js';
import { generateManifest } from '../../test/support/manifest-fixtures.js';
import { LINE_MUTATIONS, mutateLine, yamlFiles } from '../../test/support/yaml-mutations.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHARED = join(ROOT, '..', 'shared', 'conformance');

/** The texts of the YAML documents of a file, as `inject -f` hands them to edit-in-place. */
function documentTexts(file: string): string[] {
  try {
    return readManifest(readFileSync(file, 'utf8'), file)
      .filter((d) => d.format === 'yaml')
      .map((d) => d.text);
  } catch {
    return [];
  }
}

/** `pos` if it starts a line (or ends the text), else the start of the next line: edit-in-place's lineEndAt. */
function lineEndAt(text: string, pos: number): number {
  if (pos >= text.length || text[pos - 1] === '\n') return Math.min(pos, text.length);
  const nl = text.indexOf('\n', pos);
  return nl === -1 ? text.length : nl + 1;
}

/** What edit-in-place reads from a node. */
function shape(text: string, node: Node | null | undefined): unknown {
  if (node === null || node === undefined) return null;
  if (isAlias(node)) return 'alias';
  const r = node.range!;
  const where = { s: r[0], e: lineEndAt(text, r[2]), anchor: node.anchor };
  if (isScalar(node)) return { t: 'scalar', ...where };
  if (isMap(node)) {
    if (node.flow === true) return { t: 'flow map', ...where };
    return {
      t: 'map',
      ...where,
      pairs: (node.items as Pair<Node, Node | null>[]).map((p) => ({
        key: isScalar(p.key) ? { value: p.key.value, s: p.key.range![0], e: p.key.range![1], anchor: p.key.anchor } : 'complex',
        value: shape(text, p.value),
      })),
    };
  }
  if (isSeq(node)) {
    if (node.flow === true) return { t: 'flow seq', ...where };
    return { t: 'seq', ...where, items: (node.items as Node[]).map((n) => shape(text, n)) };
  }
  return 'other';
}

/** Undefined from the index, or the library's tree exactly; returns whether the index took it. */
function agrees(text: string): boolean {
  const mine = indexBlockYaml(text);
  if (mine === undefined) return false;
  const doc = parseDocument(text, { version: '1.1', uniqueKeys: false });
  assert.deepEqual(
    doc.errors.map((e) => e.message),
    [],
    `the index took a document the library refuses:\n${text}`,
  );
  assert.ok(isMap(doc.contents) && doc.contents.flow !== true, `the index took a document whose root is no block map:\n${text}`);
  assert.deepEqual(shape(text, mine), shape(text, doc.contents), `trees differ for:\n${text}`);
  return true;
}

const corpus = [...yamlFiles(join(ROOT, 'testdata')), ...yamlFiles(join(ROOT, 'examples')), ...yamlFiles(SHARED)].flatMap(documentTexts);
const generated = readManifest(generateManifest(40), 'm40').map((d) => d.text);

describe('block index', () => {
  it('has a corpus, and takes most of it', () => {
    assert.ok(corpus.length >= 80, `${corpus.length} documents`);
    const taken = corpus.filter(agrees).length;
    assert.ok(taken >= corpus.length / 2, `took ${taken} of ${corpus.length}`);
  });

  it("takes the benchmark's generated manifests, and agrees on them", () => {
    assert.equal(generated.filter(agrees).length, generated.length);
  });

  it('agrees with the library on every corpus document mutated line by line', () => {
    let taken = 0;
    for (const text of [...corpus, ...generated.slice(0, 2)]) {
      const lines = text.split('\n').length;
      for (let at = 0; at < lines; at += 1 + (lines >> 2)) for (let m = 0; m < LINE_MUTATIONS.length; m++) if (agrees(mutateLine(text, at, m))) taken++;
    }
    assert.ok(taken > 100, `${taken} mutated documents taken`);
  });

  it('property: agrees on random manifests from our emitter, in both sequence styles, mutated or not', () => {
    const key = fc.oneof(fc.constantFrom('name', 'image', 'on', 'y', '1', 'a b', 'x.y/z', '_k', 'key-1'), fc.string({ maxLength: 6 }));
    const scalar = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom('-c', '- x', 'a: b', 'a #b', '|', "it's", '"q"', 'x\ny', ''),
    );
    const value = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(key, tie('v'), { maxKeys: 4 })),
    })).v;
    fc.assert(
      fc.property(fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 }), fc.boolean(), fc.nat(), fc.nat(), fc.boolean(), (obj, indentSeqs, at, m, doMutate) => {
        let text = stringifyObject(obj as never);
        if (indentSeqs) text = text.replace(/^( *)- /gm, (_all, sp: string) => `${sp}  - `);
        if (doMutate) text = mutateLine(text, at, m);
        agrees(text);
      }),
      { numRuns: 1500 },
    );
  });

  it('leaves whole classes of YAML to the library', () => {
    for (const text of [
      "'': |-\n  x\n  y\n   \n", // a line of spaces past the indentation is content (found by the property test, seed -458371125)
      'a:\n  b: 1\n  # c\nd: 2\n', // a comment deeper than the line after it
      'a: 1\n# c\n', // a comment at the end
      'a:\n# c\n  b: 1\n', // a comment between a key and its block
      'a: &x 1\nb: *x\n', // anchors
      'a: b\n  c\n', // a multi-line plain scalar
      'a: "x\\ny"\n', // an escape
      'a: [1,\n  2]\n', // a multi-line flow collection
      'on: 1\n', // a key YAML 1.1 reads as a boolean
      'a: |2\n   x\n', // an indentation indicator
      'a: |+\n  x\n\nb: 1\n', // a kept block scalar's trailing blank line
      'a: |\n  x\n# c\nb: 1\n', // a comment after a block scalar
      'a:\n- b: 1\n# c\nd: 2\n', // a comment where a collection ends
      '- a\n', // a sequence at the root
      'a:\r\n  b: 1\r\n', // CRLF
    ]) {
      assert.equal(indexBlockYaml(text), undefined, text);
    }
    // Blank lines, comments no deeper than the next line, comments after values.
    assert.equal(agrees('a: 1 # c\n\nb:\n  x: "y"  # z\n  # before l\n\n  l: [1, 2] # w\n\nc: |\n  t\n\nd:\n- 1\n\n# two\n- 2 # two\ne: 2\n'), true);
    // kubectl's style: sequences at their key's column.
    assert.equal(agrees('a:\n- x\n- k: v\n  j:\n  - 1\n  l: w\nb: 1\n'), true);
    assert.equal(
      agrees(
        '# lead\napiVersion: v1\nspec:\n  containers:\n  - name: a\n    args: ["-c", x]\n    command:\n      - -c\n      - |\n        echo "hi"\n          more\n',
      ),
      true,
    );
  });

  it('property: edit-in-place writes the same bytes from either tree, for random changes to corpus documents', () => {
    const docs = [...corpus, ...generated.slice(0, 6)].filter((t) => indexBlockYaml(t) !== undefined);
    /** Every path to a map or list in `v`, with that container. */
    const containers = (v: JsonValue, path: (string | number)[] = [], out: [(string | number)[], JsonValue][] = []) => {
      if (v !== null && typeof v === 'object') {
        out.push([path, v]);
        for (const [k, c] of Object.entries(v)) containers(c, [...path, Array.isArray(v) ? Number(k) : k], out);
      }
      return out;
    };
    const change = fc.record({
      doc: fc.nat(),
      at: fc.nat(),
      kind: fc.constantFrom('add', 'set', 'delete', 'push', 'unshift', 'nest'),
      key: fc.constantFrom('name', 'x', 'image', 'k8s.io/a'),
      value: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant({ name: 'new', a: [1, 'b'] }), fc.constant(['p', { q: null }])),
    });
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 4 }), (changes) => {
        const text = docs[changes[0].doc % docs.length];
        const prev = parseYamlDocument(text, { duplicateKeys: 'last' }).value;
        const next = structuredClone(prev);
        for (const c of changes) {
          // A fresh copy: fc.constant hands out one object, and changes may nest it into itself.
          c.value = structuredClone(c.value);
          const all = containers(next);
          const [, target] = all[c.at % all.length];
          if (Array.isArray(target)) {
            if (c.kind === 'push' || c.kind === 'add') target.push(c.value as JsonValue);
            else if (c.kind === 'unshift') target.unshift(c.value as JsonValue);
            else if (c.kind === 'delete') target.splice(c.at % (target.length + 1), 1);
            else if (target.length > 0) target[c.at % target.length] = c.value as JsonValue;
          } else if (target !== null && typeof target === 'object') {
            const keys = Object.keys(target);
            if (c.kind === 'delete' && keys.length > 1) delete (target as Record<string, JsonValue>)[keys[c.at % keys.length]];
            else if (c.kind === 'set' && keys.length > 0) (target as Record<string, JsonValue>)[keys[c.at % keys.length]] = c.value as JsonValue;
            else if (c.kind === 'nest') (target as Record<string, JsonValue>)[c.key] = { [c.key]: c.value as JsonValue };
            else (target as Record<string, JsonValue>)[c.key] = c.value as JsonValue;
          }
        }
        assert.equal(editInPlace(text, prev, next, '\n', 'index'), editInPlace(text, prev, next, '\n', 'library'));
      }),
      { numRuns: 400 },
    );
  });
});
