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

test('quote: plain ASCII (its fast path) reads as the per-character escaping would, at every length near the cap', () => {
  // The general rule, written out: JSON escapes, then non-ASCII as \u, at most 48 characters then "...".
  const reference = (value: string): string => {
    let out = '';
    for (const ch of value) {
      const piece = JSON.stringify(ch)
        .slice(1, -1)
        .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      if (out.length + piece.length > 48) return `"${out}..."`;
      out += piece;
    }
    return `"${out}"`;
  };
  const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
  for (const s of ['', 'sidecar', printable, 'a\\b', 'a"b', 'tab\there', 'x\u007f', 'é']) assert.equal(quote(s), reference(s), s);
  for (let n = 44; n <= 52; n++) {
    assert.equal(quote('y'.repeat(n)), reference('y'.repeat(n)));
    assert.equal(quote(`${'y'.repeat(n)}"`), reference(`${'y'.repeat(n)}"`));
  }
});
