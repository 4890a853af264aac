import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeValue, quote } from './describe.js';

test('describeValue names the kind, with a short excerpt for scalars', () => {
  const cases: Array<[unknown, string]> = [
    [undefined, 'nothing'],
    [null, 'null'],
    [[1], 'a list'],
    [{ a: 1 }, 'a map'],
    [Object.create(null), 'a map'],
    ['x', 'a string ("x")'],
    [1.5, 'a number (1.5)'],
    [Number.NaN, 'a number (NaN)'],
    [true, 'a boolean (true)'],
    [new Date(0), 'a non-JSON object'],
    [() => 1, 'a non-JSON function'],
    [1n, 'a non-JSON bigint'],
  ];
  for (const [value, want] of cases) assert.equal(describeValue(value), want);
});

test('quote escapes control and non-ASCII characters and caps the length', () => {
  assert.equal(quote('a"b\n'), '"a\\"b\\n"');
  assert.equal(quote('é'), '"\\u00e9"');
  const long = quote('x'.repeat(200));
  assert.equal(long, `"${'x'.repeat(48)}..."`);
  assert.match(quote('\u0000'.repeat(100)), /^"(\\u0000)+\.\.\."$/);
});
