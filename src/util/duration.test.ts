/**
 * @module util/duration.test
 * Our time.ParseDuration against Go's: the committed corpus (Go's answers in
 * testdata/go-syntax/expected.json, checked without Go), then, where Go is installed, random
 * strings from the grammar's alphabet asked of Go itself. Plus the kubectl-style flag wrapper.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { durationMs, formatDurationMs, lifetimeMs, parseDuration } from './duration.js';
import { goSyntaxReference, readCorpus, readExpected, regenerateExpected, type GoAnswer } from '../../test/support/go-syntax.js';

const ours = (s: string): GoAnswer => {
  const r = parseDuration(s);
  return r.ok ? { ok: true, nanos: String(r.nanos) } : { ok: false, error: r.error };
};

const reference = goSyntaxReference();

test('the committed Go answers are for the current corpus (regenerate with UPDATE_GOLDEN=1, needs Go)', () => {
  if (process.env.UPDATE_GOLDEN === '1' && typeof reference !== 'string') regenerateExpected(reference);
  assert.deepEqual(
    readExpected().corpus,
    readCorpus(),
    'testdata/go-syntax/expected.json is stale: run UPDATE_GOLDEN=1 node --import tsx --test src/util/duration.test.ts',
  );
});

test('every duration of the corpus is accepted or refused as Go does, with the same value or error text', () => {
  const expected = readExpected();
  expected.corpus.durations.forEach((s, i) => assert.deepEqual(ours(s), expected.durations[i], JSON.stringify(s)));
});

test("random strings of the grammar's alphabet: the same answers as Go (property, live)", { skip: typeof reference === 'string' ? reference : false }, () => {
  if (typeof reference === 'string') return;
  const piece = fc.oneof(
    fc.stringMatching(/^[0-9]{0,20}(\.[0-9]{0,20})?(ns|us|µs|μs|ms|s|m|h|x|)$/),
    fc.constantFrom('-', '+', '.', '0', ' ', 'h', 'ms'),
    fc.bigInt({ min: 0n, max: 1n << 64n }).map((n) => `${n}ns`),
  );
  const inputs = fc.sample(
    fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join('')),
    { numRuns: 3000, seed: 27 },
  );
  const go = reference({ durations: inputs, regexps: [] });
  inputs.forEach((s, i) => assert.deepEqual(ours(s), go.durations[i], JSON.stringify(s)));
});

test('flags: Go durations, or a bare number of seconds as kubectl --request-timeout takes it', () => {
  assert.equal(durationMs('1m30s'), 90_000);
  assert.equal(durationMs('1.5h'), 5_400_000);
  assert.equal(durationMs('250ms'), 250);
  assert.equal(durationMs('30'), 30_000);
  assert.equal(durationMs('0.5'), 500);
  for (const bad of ['', '1d', '1m30', '30 s', 'abc', '-']) assert.equal(durationMs(bad), undefined, bad);
});

test('lifetimes: whole days (which Go lacks) or what a duration flag takes', () => {
  assert.equal(lifetimeMs('90d'), 90 * 86_400_000);
  assert.equal(lifetimeMs('2160h'), 90 * 86_400_000);
  assert.equal(lifetimeMs('60'), 60_000);
  for (const bad of ['1.5d', 'd', '-1d', '1w', '90 days']) assert.equal(lifetimeMs(bad), undefined, bad);
});

test('formatDurationMs writes what parseDuration reads back (property)', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 1000 * 86_400_000 }), (ms) => {
      const r = parseDuration(formatDurationMs(ms));
      assert.ok(r.ok);
      assert.equal(Number(r.nanos) / 1e6, ms);
    }),
  );
  assert.equal(formatDurationMs(90_000), '1m30s');
  assert.equal(formatDurationMs(300_000), '5m0s');
});
