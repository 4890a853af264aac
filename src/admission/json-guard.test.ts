import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { exceedsDepth, parseJsonGuarded } from './json-guard.js';
import { referenceExceedsDepth, referenceGuarded } from '../../test/support/json-guard-reference.js';

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

/** `bytes` copied into a fresh buffer at byte offset `offset`, so the word scan's alignment varies. */
function atOffset(bytes: Uint8Array, offset: number): Buffer {
  const backing = Buffer.alloc(bytes.length + offset + 3);
  backing.set(bytes, offset);
  return backing.subarray(offset, offset + bytes.length);
}

// Mostly the bytes the scan cares about, runs of them (so words hold 0-4 of them), and some
// UTF-8 and high bytes.
const hostileBytes = fc
  .array(
    fc.oneof(
      fc.constantFrom(...'"\\[]{}'.split('').map((c) => [c.charCodeAt(0)])),
      fc.constantFrom([0x5c, 0x22], [0x5c, 0x5c], [0x22, 0x22], [0x5b, 0x5b, 0x5b, 0x5b], [0xc3, 0xa9], [0xff], [0x00]),
      fc.array(fc.integer({ min: 0x20, max: 0x7e }), { minLength: 1, maxLength: 9 }),
    ),
    { maxLength: 120 },
  )
  .map((parts) => Uint8Array.from(parts.flat()));

test('property: the word-at-a-time depth scan agrees with the byte-at-a-time reference', () => {
  fc.assert(
    fc.property(hostileBytes, fc.integer({ min: 0, max: 7 }), fc.integer({ min: -1, max: 12 }), (bytes, offset, max) => {
      const buf = atOffset(bytes, offset);
      const expected = referenceExceedsDepth(buf, max);
      assert.equal(exceedsDepth(buf, max), expected);
    }),
    { numRuns: 3000 },
  );
});

const PAGE = 64 * 1024;

test('property: bodies over several 64 KiB pages, with strings, escapes and brackets across page edges', () => {
  const piece = fc.constantFrom('"', '\\', '\\"', '[', '{', ']', '}', '"[{', ']}"', 'abcdefghijklmnop', 'é', ',');
  fc.assert(
    fc.property(
      fc.array(piece, { minLength: 1, maxLength: 40 }),
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 0, max: 2 }),
      fc.integer({ min: 0, max: 40 }),
      fc.integer({ min: 0, max: 60 }),
      (pieces, shift, pages, before, max) => {
        // Filler of plain bytes puts the interesting part astride a page edge (`before` bytes of it before the edge).
        const tail = Buffer.from(pieces.join(''));
        const body = Buffer.concat([
          Buffer.from('['.repeat(shift)),
          Buffer.alloc(PAGE * pages + PAGE - shift - before, 0x61),
          tail,
          Buffer.from(']'.repeat(shift)),
        ]);
        // The deepest point the reference sees, and both sides of it: one byte missed or counted twice shows.
        let deepest = 0;
        while (referenceExceedsDepth(body, deepest)) deepest++;
        for (const m of [max, deepest, deepest - 1]) assert.equal(exceedsDepth(body, m), referenceExceedsDepth(body, m), `max ${m}`);
      },
    ),
    { numRuns: 300 },
  );
});

test('limits that are not 32-bit integers give the reference answers', () => {
  const body = Buffer.from('[[[]]]');
  for (const max of [2.5, 2 ** 40, -(2 ** 40), Infinity, -Infinity]) assert.equal(exceedsDepth(body, max), referenceExceedsDepth(body, max), String(max));
});

test('property: parseJsonGuarded gives the reference verdict and message on JSON, broken JSON and bytes', () => {
  const text = fc.oneof(
    fc.jsonValue({ maxDepth: 10 }).map((v) => JSON.stringify(v)),
    fc
      .tuple(
        fc.jsonValue({ maxDepth: 10 }).map((v) => JSON.stringify(v)),
        fc.nat(),
        fc.nat(),
      )
      .map(([s, a, b]) => s.slice(Math.min(a, b) % (s.length + 1), Math.max(a, b) % (s.length + 1))),
    fc.integer({ min: 1, max: 40 }).map((n) => '['.repeat(n) + '"]]]\\"[[[' + ']'.repeat(n)),
  );
  const body = fc.oneof(
    text.map((s) => Buffer.from(s)),
    hostileBytes.map((b) => Buffer.from(b)),
  );
  fc.assert(
    fc.property(body, fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 12 }), (b, offset, max) => {
      const buf = atOffset(b, offset);
      assert.deepEqual(parseJsonGuarded(buf, max), referenceGuarded(buf, max));
    }),
    { numRuns: 3000 },
  );
});

test('long strings, escapes at word edges and deep bodies past the bracket count agree with the reference', () => {
  for (let pad = 0; pad < 9; pad++) {
    for (const inner of ['\\"', '\\\\', '\\\\\\"', '[{', 'ab\\"cd\\\\']) {
      const s = `{"k":"${'x'.repeat(pad)}${inner}${'y'.repeat(13)}","d":${'['.repeat(30)}${']'.repeat(30)}}`;
      for (let offset = 0; offset < 4; offset++) {
        const buf = atOffset(Buffer.from(s), offset);
        for (const max of [0, 1, 30, 31, 32]) assert.equal(exceedsDepth(buf, max), referenceExceedsDepth(buf, max), `${s} @${offset} max ${max}`);
      }
    }
  }
  // More than 1,000 brackets, most of them in strings: the exact scan decides, both ways.
  const manyInStrings = JSON.stringify({ a: Array.from({ length: 300 }, () => '[[{{'), deep: JSON.parse('['.repeat(40) + ']'.repeat(40)) as unknown });
  assert.deepEqual(parseJsonGuarded(Buffer.from(manyInStrings), 1000), referenceGuarded(Buffer.from(manyInStrings), 1000));
  assert.equal(parseJsonGuarded(Buffer.from(manyInStrings), 1000).ok, true);
  // 41 levels: the object, then 40 arrays.
  assert.equal(parseJsonGuarded(Buffer.from(manyInStrings), 41).ok, true);
  assert.deepEqual(parseJsonGuarded(Buffer.from(manyInStrings), 40), referenceGuarded(Buffer.from(manyInStrings), 40));
  assert.equal(parseJsonGuarded(Buffer.from(manyInStrings), 40).ok, false);
});

test('property: bodies over 16 KiB (no bracket pre-count) get the reference verdict and message', () => {
  const padded = fc.tuple(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 16_000, max: 40_000 }), fc.boolean()).map(([v, pad, breakIt]) => {
    const s = JSON.stringify({ pad: 'x'.repeat(pad), v });
    return Buffer.from(breakIt ? s.slice(0, -1) : s);
  });
  fc.assert(
    fc.property(padded, fc.integer({ min: 0, max: 14 }), (body, max) => {
      assert.deepEqual(parseJsonGuarded(body, max), referenceGuarded(body, max));
    }),
    { numRuns: 200 },
  );
});
