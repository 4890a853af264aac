/**
 * The soak, bounded for CI (the full one is `npm run soak -- --minutes 60`): a few seconds at a
 * fixed rate against the real webhook (real core, built-in config) with a fifth of the requests
 * hostile. Only invariants are asserted, never latency: no valid request fails, every hostile
 * one gets its documented answer, and the server's descriptors come back to where they were.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonPatchOperation } from '../../src/patch/types.js';
import { decodePatch, parseReview, postReview } from '../support/https-client.js';
import { applyPatch } from '../../src/patch/index.js';
import { HOSTILE, validRequest } from '../support/hostile-requests.js';
import { makeAgent, sendOne } from '../support/load-client.js';
import { procSample } from '../support/proc-stats.js';
import { podReview, samplePod } from '../support/review-fixtures.js';
import { uniqueUidRequests } from '../support/soak-requests.js';
import { runSoak } from '../support/soak-driver.js';
import { startHarness } from '../support/webhook-harness.js';

/** The review bodies; the already-injected pod is the webhook's own output (its status is signed by it). */
async function bodies(port: number): Promise<{ injected: Buffer; skipped: Buffer; already: Buffer }> {
  const pod = samplePod();
  const review = parseReview(await postReview(port, podReview(pod, { uid: '00000000-0000-4000-8000-000000000000' })));
  assert.ok(review.response.patch, 'the sample pod is injected by the built-in config');
  const injectedPod = applyPatch(pod, decodePatch(review) as JsonPatchOperation[]);
  const optedOut = samplePod('opted-out', { annotations: { 'sidecar.istio.io/inject': 'false' } });
  return {
    injected: Buffer.from(JSON.stringify(podReview(pod, { uid: '00000000-0000-4000-8000-000000000001' }))),
    skipped: Buffer.from(JSON.stringify(podReview(optedOut, { uid: '00000000-0000-4000-8000-000000000002' }))),
    already: Buffer.from(JSON.stringify(podReview(injectedPod, { uid: '00000000-0000-4000-8000-000000000003' }))),
  };
}

test('soak (bounded): valid requests never fail among hostile ones; hostile ones get their documented answers; descriptors return', async (t) => {
  const h = await startHarness();
  t.after(() => h.server.shutdown());
  const b = await bodies(h.port);
  const fdsBefore = procSample(process.pid)?.fds;
  const report = await runSoak({
    port: h.port,
    durationMs: 6000,
    rate: 150,
    hostileShare: 0.2,
    connections: 6,
    valid: [
      uniqueUidRequests({ label: 'injected', body: b.injected, patch: true }),
      uniqueUidRequests({ label: 'injected', body: b.injected, patch: true }),
      uniqueUidRequests({ label: 'skipped', body: b.skipped, patch: false }),
      uniqueUidRequests({ label: 'already-injected', body: b.already, patch: false }),
    ],
  });
  t.diagnostic(`${report.valid.ok} valid, ${report.hostile.ok} hostile answered as documented; p99 ${report.latencyMs.p99?.toFixed(1)} ms (not asserted)`);
  assert.deepEqual(report.problems, [], 'every answer as expected');
  assert.equal(report.valid.failed, 0);
  assert.equal(report.hostile.failed, 0);
  assert.ok(report.valid.ok > 300, `${report.valid.ok} valid requests answered`);
  const classes = HOSTILE.filter((x) => x.weight >= 1).map((x) => x.label);
  assert.deepEqual(
    classes.filter((c) => report.byLabel[c] === undefined),
    [],
    'every regular hostile class was sent',
  );
  await new Promise((r) => setTimeout(r, 300));
  const fdsAfter = procSample(process.pid)?.fds;
  if (fdsBefore !== undefined && fdsAfter !== undefined) assert.ok(fdsAfter <= fdsBefore + 10, `descriptors ${fdsBefore} before, ${fdsAfter} after`);
});

test('an oversize body is refused with 413 and Connection: close, so the next request on that client does not hit a cut connection', async (t) => {
  const h = await startHarness();
  t.after(() => h.server.shutdown());
  const b = await bodies(h.port);
  const oversize = HOSTILE.find((x) => x.label === 'oversize-8mib');
  assert.ok(oversize);
  const agent = makeAgent(1, {});
  t.after(() => agent.destroy());
  for (let i = 0; i < 5; i++) {
    const refused = await sendOne(agent, { port: h.port }, oversize.make(), performance.now());
    assert.equal(refused.problem, undefined, `the oversize body: ${refused.problem}`);
    const next = await sendOne(agent, { port: h.port }, validRequest('injected', b.injected, '00000000-0000-4000-8000-000000000001', true), performance.now());
    assert.equal(next.problem, undefined, `the request after it: ${next.problem}`);
  }
});
