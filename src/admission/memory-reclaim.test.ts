/**
 * After a body flood drains, the reclaimer runs a full collection once things are quiet (twice,
 * a follow-up for connections still closing), so the flood's buffers go back to the system
 * instead of waiting for allocation that an idle webhook never makes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { captureLogger } from '../testing/logs.js';
import { memoryReclaimer } from './memory-reclaim.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait (bounded, the machine may be busy) until `runs()` reaches `n`. */
async function until(runs: () => number, n: number): Promise<void> {
  for (let i = 0; i < 200 && runs() < n; i++) await sleep(25);
}

test('a drained flood is collected once after a quiet moment, however often it drains meanwhile', async () => {
  const { logger, lines } = captureLogger('info');
  const r = memoryReclaimer(logger, { quietMs: 30, followUpMs: 20, minIntervalMs: 10_000 });
  r.drained(64 << 20);
  await sleep(10);
  r.drained(32 << 20); // drains again before the quiet moment: still one collection
  assert.equal(r.runs(), 0);
  await until(r.runs, 1);
  await sleep(100);
  assert.equal(r.runs(), 1);
  const line = lines.find((l) => l.msg === 'memory reclaimed after a body flood');
  assert.ok(line, 'the collection is logged');
  assert.equal(line.bodyPeakBytes, 64 << 20);
  r.stop();
});

test('collections are at least minIntervalMs apart; stop cancels a pending one', async () => {
  const { logger } = captureLogger('info');
  const r = memoryReclaimer(logger, { quietMs: 10, followUpMs: 10, minIntervalMs: 60_000 });
  r.drained(1);
  await until(r.runs, 1);
  assert.equal(r.runs(), 1);
  r.drained(1);
  await sleep(200);
  assert.equal(r.runs(), 1, 'the next waits out the interval');
  r.stop();

  const s = memoryReclaimer(logger, { quietMs: 50, followUpMs: 10, minIntervalMs: 0 });
  s.drained(1);
  s.stop();
  await sleep(300);
  assert.equal(s.runs(), 0, 'stopped before the quiet moment: never ran');
});
