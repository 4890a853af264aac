/**
 * Bounded fuzzing of the admission handler with the real core and real configs (the built-in
 * one and the repository's examples): generated reviews, valid and hostile, must never crash
 * the handler or leave an unhandled rejection; every patch must apply with two independent
 * RFC 6902 libraries, keep the pod valid and be idempotent (invariants in
 * test/support/webhook-fuzz.ts). Stored counterexamples replay first.
 *
 * CI runs FUZZ_RUNS cases (default 4,000, about 10 s) with a random seed printed in the output;
 * replay a failure with FUZZ_SEED=<seed> FUZZ_PATH=<path>. Unbounded: `npm run fuzz -- --runs N`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkCase, fuzzProperty, fuzzTargets, KNOWN_ISSUES, loadCorpus, newStats, type FuzzTarget } from '../support/webhook-fuzz.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 4000);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);
const PATH = process.env.FUZZ_PATH;

let targets: FuzzTarget[] = [];
const rejections: unknown[] = [];
const onRejection = (reason: unknown): void => void rejections.push(reason);

before(async () => {
  targets = await fuzzTargets();
  process.on('unhandledRejection', onRejection);
});

after(() => {
  process.removeListener('unhandledRejection', onRejection);
});

for (const { file, stored } of loadCorpus()) {
  const known = KNOWN_ISSUES.find((k) => k.id === stored.known);
  test(`regression case ${file} (${stored.target})`, known ? { todo: `open core issue ${known.id}: ${known.description}` } : {}, () => {
    const target = targets.find((t) => t.name === stored.target);
    assert.ok(target, `the config ${stored.target} is available`);
    checkCase(target, Buffer.from(stored.body), newStats(), { strict: true });
  });
}

test(`${RUNS} generated reviews: no crash, well-formed answers, patches apply with two libraries, valid pods, idempotent`, (t) => {
  const stats = newStats();
  t.diagnostic(`seed ${SEED}${PATH ? ` path ${PATH}` : ''}; configs: ${targets.map((x) => x.name).join(', ')}`);
  const details = fc.check(fuzzProperty(targets, stats), { numRuns: RUNS, seed: SEED, ...(PATH ? { path: PATH } : {}) });
  t.diagnostic(`answers: ${JSON.stringify(stats)}`);
  if (details.failed) {
    assert.fail(
      `${fc.defaultReportMessage(details) ?? 'property failed'}\nreplay: FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} node --import tsx --test test/reliability/fuzz-handler.test.ts`,
    );
  }
  // The fuzzer must reach every outcome, or it is not testing what it claims to.
  assert.ok(stats.patched > RUNS / 20, `patched cases: ${stats.patched}`);
  assert.ok(stats.denied > 0 && stats.badRequest > 0 && stats.allowedNoPatch > 0, JSON.stringify(stats));
  assert.deepEqual(rejections, [], 'no unhandled promise rejection');
});
