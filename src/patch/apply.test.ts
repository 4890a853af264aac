import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InjectorError } from '../errors.js';
import { applyPatch } from './apply.js';
import { createPatch } from './json-patch-diff.js';
import { applyWithFastJsonPatch, hasInheritedNames } from '../../test/support/patch/appliers.js';
import { jsonPairArb } from '../../test/support/patch/arbitraries.js';

function fails(fn: () => unknown, index: number, fragment: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof InjectorError, String(err));
    assert.equal(err.code, 'SI_PATCH');
    assert.match(err.message, new RegExp(`operation ${index} `));
    assert.ok(err.message.includes(fragment), err.message);
    return true;
  });
}

test('all six operations, as in RFC 6902 appendix A', () => {
  const doc = { foo: ['bar', 'baz'], q: { a: 1 } };
  const out = applyPatch(doc, [
    { op: 'add', path: '/foo/1', value: 'qux' },
    { op: 'add', path: '/foo/-', value: 'end' },
    { op: 'remove', path: '/foo/0' },
    { op: 'replace', path: '/q/a', value: { deep: true } },
    { op: 'copy', from: '/q', path: '/copied' },
    { op: 'move', from: '/foo/0', path: '/moved' },
    { op: 'test', path: '/moved', value: 'qux' },
    { op: 'add', path: '/a~1b', value: 'slash' },
  ]);
  assert.deepEqual(out, { foo: ['baz', 'end'], q: { a: { deep: true } }, copied: { a: { deep: true } }, moved: 'qux', 'a/b': 'slash' });
  // The input is untouched and the result shares nothing with the patch values.
  assert.deepEqual(doc, { foo: ['bar', 'baz'], q: { a: 1 } });
});

test('root operations replace the whole document', () => {
  assert.deepEqual(applyPatch({ a: 1 }, [{ op: 'replace', path: '', value: [1] }]), [1]);
  assert.deepEqual(applyPatch({ a: 1 }, [{ op: 'add', path: '', value: 'x' }]), 'x');
});

test('failures name the operation and leave the input as it was (all or nothing)', () => {
  const doc = { metadata: { name: 'p' }, list: [1] };
  fails(() => applyPatch(doc, [{ op: 'add', path: '/metadata/annotations/x', value: '1' }]), 0, 'nothing at /metadata/annotations');
  fails(() => applyPatch(doc, [{ op: 'replace', path: '/metadata/missing', value: 1 }]), 0, 'no "missing"');
  fails(
    () =>
      applyPatch(doc, [
        { op: 'add', path: '/a', value: 1 },
        { op: 'remove', path: '/list/1' },
      ]),
    1,
    'out of range',
  );
  fails(() => applyPatch(doc, [{ op: 'add', path: '/list/01', value: 1 }]), 0, 'not a valid list index');
  fails(() => applyPatch(doc, [{ op: 'test', path: '/list/0', value: 2 }]), 0, 'different');
  fails(() => applyPatch(doc, [{ op: 'move', from: '/metadata', path: '/metadata/inner' }]), 0, 'own children');
  fails(() => applyPatch(doc, [{ op: 'add', path: '/x' }]), 0, '"value"');
  fails(() => applyPatch(doc, [{ op: 'frob', path: '/x' }]), 0, 'unknown op');
  fails(() => applyPatch(doc, [{ op: 'add', path: 'x', value: 1 }]), 0, 'start with "/"');
  fails(() => applyPatch(doc, [{ op: 'add', path: '/metadata/name/x', value: 1 }]), 0, 'not a map or a list');
  fails(() => applyPatch(doc, ['nope']), 0, 'must be a map');
  assert.throws(
    () => applyPatch(doc, { op: 'add' }),
    (err: unknown) => err instanceof InjectorError && err.code === 'SI_PATCH',
  );
  assert.deepEqual(doc, { metadata: { name: 'p' }, list: [1] });
});

test('__proto__ in a path is data: it can be set and read back, and never reaches Object.prototype', () => {
  const out = applyPatch({}, [
    { op: 'add', path: '/__proto__', value: { polluted: true } },
    { op: 'add', path: '/__proto__/more', value: 1 },
    { op: 'add', path: '/constructor', value: { prototype: { polluted: true } } },
  ]) as Record<string, unknown>;
  assert.ok(Object.hasOwn(out, '__proto__'));
  assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { polluted: true, more: 1 });
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  // An inherited name is not a member: replacing it fails instead of touching the prototype.
  fails(() => applyPatch({}, [{ op: 'replace', path: '/toString', value: 1 }]), 0, 'no "toString"');
  fails(() => applyPatch({}, [{ op: 'add', path: '/__proto__/polluted', value: true }]), 0, 'nothing at /__proto__');
});

test('property: agrees with fast-json-patch on generated patches, including ones it has to reject', () => {
  fc.assert(
    fc.property(jsonPairArb(), jsonPairArb(), ([a, b], [, c]) => {
      const ops = createPatch(a, b);
      assert.deepEqual(applyPatch(a, ops), applyWithFastJsonPatch(a, ops));
      // A patch built for another document: where ours succeeds, fast-json-patch must agree.
      // (Where ours refuses, fast-json-patch may be lenient: it reads "" as list index 0.
      // It is not meaningful on a scalar document, and treats inherited names such as
      // "constructor" as present; we compare only where it is a fair referee.)
      if (c === null || typeof c !== 'object' || [a, b, c].some(hasInheritedNames)) return;
      let ours: unknown;
      try {
        ours = applyPatch(c, ops);
      } catch (err) {
        assert.ok(err instanceof InjectorError && err.code === 'SI_PATCH');
        return;
      }
      assert.deepEqual(ours, applyWithFastJsonPatch(c, ops), JSON.stringify({ c, ops }));
    }),
    { numRuns: 500 },
  );
});
