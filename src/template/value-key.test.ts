/**
 * Keys of Go values (value-key.ts): equal keys must mean values no template can tell apart,
 * or the render memo would hand one pod another pod's render. Held on generated JSON (with -0,
 * which prints differently from 0), on the Go-only shapes (typed and nil containers, ints of
 * each type) and on what cannot be keyed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { nilMap, nilSlice } from './funcs/nil.js';
import { GO_OBJECT, GoNumber, NO_FIELD, withGoType, type GoObject } from './value.js';
import { chainKey, jsonKey, valueKey } from './value-key.js';

/** Same JSON, key order included, numbers by Object.is (so -0 is not 0). */
function same(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** JSON with -0 mixed in, from a small alphabet so that equal keys happen often. */
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(0, -0, 1, -1, 0.5, 'a', '0', '', 'x:0,', true, false, null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', '0', '__proto__'), tie('value'), { maxKeys: 3 }),
  ),
})).value;

describe('valueKey and jsonKey', () => {
  it('equal keys only for the same JSON (-0 apart from 0)', () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        for (const k of [valueKey, jsonKey]) {
          const ka = k(a);
          const kb = k(b);
          assert.ok(ka !== undefined && kb !== undefined);
          assert.equal(ka === kb, same(a, b), `${ka} vs ${kb}`);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('tells 0 from -0 wherever it is, including where JSON.stringify cannot', () => {
    for (const k of [valueKey, jsonKey]) {
      assert.notEqual(k(0), k(-0));
      assert.notEqual(k({ a: [0] }), k({ a: [-0] }));
      assert.notEqual(k({ a: 0 }), k({ a: -0 }));
    }
    assert.ok(jsonKey({ a: 'no zero here' })!.startsWith('J'), 'the fast form is used when exact');
    for (const v of [{ a: -0 }, [-0], [1, -0], { a: [2, -0], b: 1 }, -0]) assert.ok(jsonKey(v)!.startsWith('W'), `${String(v)}: a -0 takes the exact walk`);
    for (const v of [{ a: 0 }, [0], { a: 10 }, [0.5], { a: '0' }, [100, 20]])
      assert.ok(jsonKey(v)!.startsWith('J'), `${JSON.stringify(v)}: no -0, the fast form is exact`);
  });

  it('tells apart the Go shapes a template prints differently', () => {
    const keys = [
      1,
      '1',
      1n,
      new GoNumber('int64', 1n),
      new GoNumber('int32', 1n),
      new GoNumber('float32', 1),
      [],
      nilSlice(),
      withGoType([], '[]string'),
      nilSlice('[]string'),
      {},
      nilMap(),
      withGoType({}, 'map[string]string'),
      nilMap('map[string]string'),
      undefined,
      null,
      { a: undefined },
      { a: null },
    ].map(valueKey);
    assert.equal(new Set(keys).size, keys.length, keys.join('\n'));
  });

  it('cannot key functions or Go objects that offer no key', () => {
    const opaque: GoObject = {
      [GO_OBJECT]: true,
      goType: 'x.T',
      getField: () => NO_FIELD,
      getMethod: () => undefined,
      fieldNames: () => [],
      toJSON: () => ({}),
    };
    assert.equal(valueKey(opaque), undefined);
    assert.equal(valueKey({ params: [], call: () => 1 }), undefined);
    assert.equal(valueKey([() => 1]), undefined);
    assert.equal(valueKey({ ...opaque, memoKey: () => 'k' }), valueKey({ ...opaque, memoKey: () => 'k' }));
    assert.notEqual(valueKey({ ...opaque, memoKey: () => 'k' }), valueKey({ ...opaque, goType: 'x.U', memoKey: () => 'k' }));
  });
});

describe('chainKey', () => {
  const obj = (fields: Record<string, unknown>, methods: string[] = []): GoObject => ({
    [GO_OBJECT]: true,
    goType: 'x.T',
    getField: (n) => (Object.hasOwn(fields, n) ? fields[n] : NO_FIELD),
    getMethod: (n) => (methods.includes(n) ? { params: [], call: () => 'm' } : undefined),
    fieldNames: () => Object.keys(fields),
    toJSON: () => fields,
    memoKey: () => JSON.stringify(fields),
  });

  it('follows fields and map entries, and stops at a method, a missing entry or a scalar', () => {
    const data = { a: { b: { c: 1 } } };
    assert.equal(chainKey(data, ['', 'a', 'b', 'c'], 1), `4${valueKey(1)}`);
    assert.equal(chainKey(data, ['', 'a', 'x', 'c'], 1), `2${valueKey({ b: { c: 1 } })}`);
    assert.equal(chainKey(data, ['', 'a', 'b', 'c', 'd'], 1), `4${valueKey(1)}`);
    const o = obj({ F: { k: 'v' } }, ['M']);
    assert.equal(chainKey(o, ['', 'F', 'k'], 1), `3${valueKey('v')}`);
    assert.equal(chainKey(o, ['', 'M', 'k'], 1), `1${valueKey(o)}`);
    assert.equal(chainKey(o, ['', 'Nope'], 1), `1${valueKey(o)}`);
  });
});
