import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cloneJson, deepEqual } from './json.js';

test('deepEqual ignores key order but not array order', () => {
  assert.ok(deepEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }));
  assert.ok(!deepEqual([1, 2], [2, 1]));
  assert.ok(!deepEqual({ a: undefined }, {}));
  assert.ok(!deepEqual({ a: 1 }, [1]));
});

test('cloneJson copies deeply and keeps a __proto__ key as data', () => {
  const src = JSON.parse('{"a":{"b":[1,{"c":2}]},"__proto__":{"polluted":true}}');
  const copy = cloneJson(src);
  assert.ok(deepEqual(copy, src));
  copy.a.b[1].c = 3;
  assert.equal(src.a.b[1].c, 2);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.ok(Object.hasOwn(copy, '__proto__'));
});
