import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { createPatch } from './json-patch-diff.js';
import { assertPatchTransforms } from '../../test/support/patch/appliers.js';

// Istio's injection inputs and goldens (read at run time, never copied into the repository).
const DIR = fileURLToPath(new URL('../../../shared/conformance/istio/inject/', import.meta.url));

function documents(file: string): unknown[] {
  return parseAllDocuments(readFileSync(DIR + file, 'utf8'))
    .map((d) => d.toJS())
    .filter((d) => d !== null);
}

test('Istio goldens: input -> injected patches apply under three appliers and stay small', { skip: !existsSync(DIR) && 'conformance data absent' }, () => {
  let checked = 0;
  for (const golden of readdirSync(DIR).filter((f) => f.endsWith('.yaml.injected'))) {
    const input = golden.replace(/\.injected$/, '');
    if (!existsSync(DIR + input)) continue; // goldens derived from another input with flags
    const before = documents(input);
    const after = documents(golden);
    assert.equal(before.length, after.length, `${golden}: document count`);
    before.forEach((doc, i) => {
      const ops = createPatch(doc, after[i]);
      assertPatchTransforms(doc, after[i], ops);
      assert.ok(ops.length <= 40, `${golden}[${i}]: ${ops.length} ops is a rewrite, not an injection`);
      for (const op of ops) {
        // Adding a missing parent is fine; replacing or removing a whole pod section is not.
        const wholesale = op.path === '' || /\/(containers|spec|metadata)$/.test(op.path);
        assert.ok(!wholesale || op.op === 'add', `${golden}[${i}]: ${op.op} ${op.path}`);
      }
      checked++;
    });
  }
  assert.ok(checked > 50, `only ${checked} documents checked`);
});
