import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { cloneJson, deepEqual, jsonLengthWithin } from './json.js';

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

/** JSON values whose strings need no escapes and whose numbers print in at most 6 characters. */
const plainJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.stringMatching(/^[a-zA-Z0-9 ._:/-]{0,20}$/),
    fc.integer({ min: -9999, max: 99999 }),
    fc.boolean(),
    fc.constant(null),
    tie('list'),
    tie('map'),
  ),
  list: fc.array(tie('value'), { maxLength: 6 }),
  map: fc.dictionary(fc.stringMatching(/^[a-zA-Z0-9_-]{1,10}$/), tie('value'), { maxKeys: 6 }),
})).value;

function nodes(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 1;
  return 1 + Object.values(v).reduce((n: number, x) => n + nodes(x), 0);
}

test('jsonLengthWithin: never below what JSON.stringify writes, at most 6 characters a node above it', () => {
  fc.assert(
    fc.property(plainJson, (v) => {
      const real = JSON.stringify(v).length;
      const est = jsonLengthWithin(v, Number.POSITIVE_INFINITY);
      assert.ok(est >= real && est <= real + 6 * nodes(v), `estimate ${est}, JSON ${real}, ${nodes(v)} nodes`);
    }),
  );
});

test('jsonLengthWithin: lists of lists and of maps count their commas (found by the property above)', () => {
  for (const v of [[[], []], [{}, {}, {}], { a: [[], [[]]] }]) {
    assert.ok(jsonLengthWithin(v, Number.POSITIVE_INFINITY) >= JSON.stringify(v).length, JSON.stringify(v));
  }
});

test('jsonLengthWithin: past its limit it answers Infinity, at or under it the whole estimate', () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.integer({ min: -2, max: 2 }), fc.nat(400), (v, near, far) => {
      const full = jsonLengthWithin(v, Number.POSITIVE_INFINITY);
      // Limits right around the estimate, and anywhere.
      for (const limit of [full + near, far]) assert.equal(jsonLengthWithin(v, limit), full <= limit ? full : Number.POSITIVE_INFINITY);
    }),
  );
});

test('jsonLengthWithin: a pod with 2,000 environment variables is sized within a tenth of its JSON, and a small limit stops early', () => {
  const pod = {
    metadata: { name: 'web' },
    spec: { containers: [{ name: 'app', image: 'app:1', env: Array.from({ length: 2000 }, (_, i) => ({ name: `SETTING_${i}`, value: `value-${i}` })) }] },
  };
  const real = JSON.stringify(pod).length;
  const est = jsonLengthWithin(pod, Number.POSITIVE_INFINITY);
  assert.ok(Math.abs(est - real) < real / 10, `estimate ${est}, JSON ${real}`);
  assert.equal(jsonLengthWithin(pod, 4096), Number.POSITIVE_INFINITY);
});

test('jsonLengthWithin: a value too deep to walk counts as past any limit (no stack overflow escapes)', () => {
  let deep: unknown = 'x';
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assert.equal(jsonLengthWithin(deep, Number.POSITIVE_INFINITY), Number.POSITIVE_INFINITY);
  assert.equal(jsonLengthWithin(deep, 100), Number.POSITIVE_INFINITY, 'a small limit stops first');
});
