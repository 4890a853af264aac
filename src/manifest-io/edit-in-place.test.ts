/**
 * Injected documents keep their formatting (issue 12): for a corpus of hand-formatted
 * manifests (testdata/format), the textual diff of `inject -f` against the input touches only
 * lines inside pod templates, and `uninject` of the output gives the input back, byte for byte
 * where the injection only added lines, and semantically otherwise.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, type Node } from 'yaml';
import { runCli } from '../cli/command-tree.js';
import { memoryIO } from '../../test/support/memory-io.js';
import { deepEqual, type JsonValue } from '../util/json.js';
import { editInPlace } from '../yaml/edit-in-place.js';
import { podTemplates } from './workload-kinds.js';
import { readManifest } from './documents.js';

const DIR = fileURLToPath(new URL('../../testdata/format/', import.meta.url));

/** Line diff (LCS): input line indexes removed, and input positions (line index) where lines were inserted. */
function lineDiff(a: string[], b: string[]): { removed: number[]; insertedAt: number[] } {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const removed: number[] = [];
  const insertedAt: number[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      insertedAt.push(i);
      j++;
    } else {
      removed.push(i);
      i++;
    }
  }
  return { removed, insertedAt };
}

/** 0-based line ranges [first, last] of every pod template in the file (a Pod: its metadata and spec). */
function podTemplateLines(text: string): [number, number][] {
  const lineOf = (offset: number) => text.slice(0, offset).split('\n').length - 1;
  const out: [number, number][] = [];
  for (const doc of parseAllDocuments(text, { version: '1.1' })) {
    const value = doc.toJS() as JsonValue;
    if (value === null) continue;
    let refs;
    try {
      refs = podTemplates(value);
    } catch {
      continue;
    }
    for (const ref of refs) {
      const paths =
        ref.path.length === ref.owner.path.length && ref.owner.kind === 'Pod'
          ? [
              [...ref.path, 'metadata'],
              [...ref.path, 'spec'],
            ]
          : [ref.path];
      for (const p of paths) {
        const node = doc.getIn(p, true) as Node | undefined;
        if (node?.range) out.push([lineOf(node.range[0]), lineOf(Math.max(node.range[0], node.range[2] - 1))]);
      }
      // A template's key line (`template:`/`metadata:`) may gain a child: count the line before it in.
      const last = out[out.length - 1];
      if (last) last[0] = Math.max(0, last[0] - 1);
    }
  }
  return out;
}

async function cli(args: string[], stdin = '') {
  const io = memoryIO(stdin);
  const code = await runCli(args, io);
  assert.equal(code, 0, io.err);
  return io.out;
}

describe('inject keeps the formatting of hand-written manifests', () => {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  it('has a corpus', () => assert.ok(files.length >= 6));
  for (const file of files) {
    it(file, async () => {
      const input = readFileSync(DIR + file, 'utf8');
      const output = await cli(['inject', '-f', DIR + file]);
      assert.notEqual(output, input, 'something was injected');
      const a = input.split('\n');
      const b = output.split('\n');
      const regions = podTemplateLines(input);
      const inside = (line: number, slack = 0) => regions.some(([s, e]) => line >= s && line <= e + slack);
      const { removed, insertedAt } = lineDiff(a, b);
      for (const l of removed) assert.ok(inside(l), `${file}: line ${l + 1} changed outside a pod template: ${JSON.stringify(a[l])}`);
      for (const l of insertedAt) assert.ok(inside(l, 1), `${file}: lines inserted at ${l + 1}, outside a pod template`);
      // Every line outside pod templates is there, byte for byte (CRLF included).
      for (let l = 0; l < a.length; l++) if (!inside(l)) assert.ok(!removed.includes(l));

      const back = await cli(['uninject', '-f', '-'], output);
      if (removed.length === 0) assert.equal(back, input, `${file}: only lines were added, so uninject restores the bytes`);
      else
        assert.ok(
          deepEqual(
            readManifest(back, 'back').map((d) => d.value),
            readManifest(input, 'in').map((d) => d.value),
          ),
          `${file}: uninject restores the data`,
        );
    });
  }
});

describe('editInPlace', () => {
  it('keeps untouched lines, edits inside flow-free blocks, rewrites only a changed flow line', () => {
    const text = 'a: 1 # keep\nb:\n  c: "0"\n  d: [1, 2]  # flow\n';
    assert.equal(
      editInPlace(text, { a: 1, b: { c: '0', d: [1, 2] } }, { a: 1, b: { c: '0', d: [1, 2, 3] } }, '\n'),
      'a: 1 # keep\nb:\n  c: "0"\n  d:\n  - 1\n  - 2\n  - 3\n',
    );
    assert.equal(editInPlace(text, { a: 1, b: { c: '0', d: [1, 2] } }, { a: 1, b: { c: '0', d: [1, 2] }, e: 'x' }, '\n'), `${text}e: x\n`);
    assert.equal(editInPlace(text, { a: 1, b: { c: '0', d: [1, 2] } }, { b: { c: '0', d: [1, 2] } }, '\n'), 'b:\n  c: "0"\n  d: [1, 2]  # flow\n');
  });

  it('inserts sequence items where they belong, and gives up (undefined) on what it cannot edit', () => {
    const text = 'l:\n  - name: a\n  - name: b # b\n';
    assert.equal(
      editInPlace(text, { l: [{ name: 'a' }, { name: 'b' }] }, { l: [{ name: 'x' }, { name: 'a' }, { name: 'b' }] }, '\n'),
      'l:\n  - name: x\n  - name: a\n  - name: b # b\n',
    );
    assert.equal(editInPlace('a: &x 1\nb: *x\n', { a: 1, b: 1 }, { a: 2, b: 1 }, '\n'), undefined);
    assert.equal(editInPlace('[1]\n', [1], [2], '\n'), undefined);
  });
});
