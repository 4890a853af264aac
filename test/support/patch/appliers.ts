/**
 * @module test/support/patch/appliers
 * Independent RFC 6902 appliers for tests: every patch we generate must turn the original into
 * the target with fast-json-patch (validating), with rfc6902, and with our own applier.
 *
 * rfc6902 patches in place and so cannot replace the document root; we give it the document as
 * `{root: doc}` and prefix every pointer with `/root`, which changes nothing else. It also
 * mishandles keys named like Object.prototype members (`constructor`, `toString`: `add
 * /constructor/-` lands on the wrong object), so documents with such keys skip it; fast-json-patch
 * and our applier still check them.
 */
import assert from 'node:assert/strict';
import fastJsonPatch from 'fast-json-patch';
import * as rfc6902 from 'rfc6902';
import type { JsonPatchOperation } from '../../../src/patch/types.js';
import { cloneJson } from '../../../src/util/json.js';
import { applyPatch } from '../../../src/patch/apply.js';

/** fast-json-patch with operation validation, on a copy. Throws its JsonPatchError on failure. */
export function applyWithFastJsonPatch(doc: unknown, ops: readonly JsonPatchOperation[], banPrototype = true): unknown {
  const copy = cloneJson(doc);
  // Its types want an object document; any JSON value works at run time.
  const result = fastJsonPatch.applyPatch(copy as object, ops as fastJsonPatch.Operation[], true, true, banPrototype);
  return result.newDocument;
}

/** rfc6902 on a copy; throws the first per-operation error it reports. */
export function applyWithRfc6902(doc: unknown, ops: readonly JsonPatchOperation[]): unknown {
  const box = { root: cloneJson(doc) };
  const moved = ops.map((op) => {
    const out: Record<string, unknown> = { ...op, path: '/root' + op.path };
    if ('from' in op) out.from = '/root' + op.from;
    return out;
  });
  const errors = rfc6902.applyPatch(box, moved as unknown as rfc6902.Operation[]);
  const failed = errors.findIndex((e) => e !== null);
  if (failed >= 0) throw new Error(`rfc6902 rejected operation ${failed} ${JSON.stringify(ops[failed])}: ${String(errors[failed])}`);
  return box.root;
}

export interface ApplierOptions {
  /** Skip the third-party appliers (for keys such as `__proto__` they refuse or mishandle). */
  ownOnly?: boolean;
}

/** Assert that `ops` turns `original` into `modified` under all three appliers, without touching `original`. */
export function assertPatchTransforms(original: unknown, modified: unknown, ops: readonly JsonPatchOperation[], options: ApplierOptions = {}): void {
  const before = JSON.stringify(original);
  const context = () => `\noriginal: ${JSON.stringify(original)}\nmodified: ${JSON.stringify(modified)}\nops: ${JSON.stringify(ops)}`;
  assert.deepStrictEqual(applyPatch(original, ops), modified, `our applier${context()}`);
  if (!options.ownOnly) {
    assert.deepStrictEqual(applyWithFastJsonPatch(original, ops), modified, `fast-json-patch${context()}`);
    if (!hasInheritedNames(original) && !hasInheritedNames(modified)) {
      assert.deepStrictEqual(applyWithRfc6902(original, ops), modified, `rfc6902${context()}`);
    }
  }
  assert.equal(JSON.stringify(original), before, 'applying must not mutate the original');
}

/** Does any object key of `doc` name an Object.prototype member (`constructor`, `toString`, ...)? */
export function hasInheritedNames(doc: unknown): boolean {
  if (Array.isArray(doc)) return doc.some(hasInheritedNames);
  if (doc === null || typeof doc !== 'object') return false;
  for (const k of Object.keys(doc)) {
    if (k in Object.prototype || hasInheritedNames((doc as Record<string, unknown>)[k])) return true;
  }
  return false;
}
