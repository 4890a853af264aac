import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { exceedsDepth, parseJsonGuarded } from './json-guard.js';

function depthOf(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  const children = Array.isArray(v) ? v : Object.values(v);
  return 1 + children.reduce((m: number, c) => Math.max(m, depthOf(c)), 0);
}

test('100,000 nested arrays are refused before parsing, without a RangeError', () => {
  const body = Buffer.from('['.repeat(100_000) + ']'.repeat(100_000));
  const r = parseJsonGuarded(body);
  assert.equal(r.ok, false);
  assert.match((r as { message: string }).message, /nested too deeply/);
});

test('brackets inside strings (and escaped quotes) do not count as nesting', () => {
  const s = JSON.stringify({ a: '[[[[{{{{\\"[[[[', b: ['"]]]]'] });
  assert.equal(exceedsDepth(Buffer.from(s), 2), false);
  assert.equal(exceedsDepth(Buffer.from(s), 1), true);
});

test('property: the scan finds exactly the nesting depth of any JSON value', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 8 }), (v) => {
      const bytes = Buffer.from(JSON.stringify(v));
      const d = depthOf(v);
      assert.equal(exceedsDepth(bytes, d), false);
      if (d > 0) assert.equal(exceedsDepth(bytes, d - 1), true);
    }),
    { numRuns: 500 },
  );
});

test('empty, invalid UTF-8, truncated, trailing garbage and NaN are refused with a reason', () => {
  const cases: [Buffer, RegExp][] = [
    [Buffer.alloc(0), /empty/],
    [Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), /UTF-8/],
    [Buffer.from('{"a": [1, 2'), /not valid JSON/],
    [Buffer.from('{"a": 1} xyz'), /not valid JSON/],
    [Buffer.from('{"a": NaN}'), /not valid JSON/],
  ];
  for (const [body, re] of cases) {
    const r = parseJsonGuarded(body);
    assert.equal(r.ok, false, body.toString());
    assert.match((r as { message: string }).message, re);
  }
});

test('__proto__ keys come back as plain data and pollute nothing', () => {
  const r = parseJsonGuarded(Buffer.from('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'));
  assert.ok(r.ok);
  const v = r.value as Record<string, unknown>;
  assert.ok(Object.hasOwn(v, '__proto__'));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
});
