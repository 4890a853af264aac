/**
 * Slowloris, bounded for CI (the full one is `npm run slowloris`): while 120 sockets sit idle,
 * trickle headers or a body, or never finish the handshake, normal requests on keep-alive
 * connections keep being answered, and the server cuts the slow ones by its timeouts (shortened
 * here so the test takes seconds). Latency is reported, not asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { procSample } from '../support/proc-stats.js';
import { podReview, samplePod } from '../support/review-fixtures.js';
import { startAttack } from '../support/slowloris-attacker.js';
import { runSlowloris } from '../support/slowloris-driver.js';
import { uniqueUidRequests } from '../support/soak-requests.js';
import { startHarness } from '../support/webhook-harness.js';

test('slowloris (bounded): idle and slow sockets are cut by the server timeouts; normal requests never fail meanwhile', async (t) => {
  const h = await startHarness({
    limits: { headersTimeoutMs: 1500, requestTimeoutMs: 2500, handshakeTimeoutMs: 1500 },
  });
  t.after(() => h.server.shutdown());
  const fdsBefore = procSample(process.pid)?.fds;
  const body = Buffer.from(JSON.stringify(podReview(samplePod(), { uid: '00000000-0000-4000-8000-000000000001' })));
  const report = await runSlowloris({
    port: h.port,
    rate: 80,
    connections: 3,
    phaseMs: 3000,
    rampMs: 500,
    next: uniqueUidRequests({ label: 'injected', body, patch: true }),
    startAttack: () => startAttack(h.port, 120, 200),
    maxP99Ratio: Number.POSITIVE_INFINITY, // latency is not a CI assertion
  });
  t.diagnostic(
    `p99 ${report.baseline.latencyMs.p99.toFixed(1)} ms alone, ${report.attack.latencyMs.p99.toFixed(1)} ms under attack (not asserted); attacker ${JSON.stringify(report.attacker)}`,
  );
  assert.deepEqual(report.problems, []);
  assert.equal(report.baseline.failed + report.attack.failed, 0, 'no normal request failed');
  assert.ok(report.attack.ok > 200, `${report.attack.ok} normal requests answered under attack`);
  const a = report.attacker;
  assert.ok(a !== undefined);
  assert.ok(a.closedByServer >= 60, `the server cut ${a.closedByServer} slow sockets`);
  assert.ok(a.got408 > 0, 'slow header senders got 408 Request Timeout');
  await new Promise((r) => setTimeout(r, 500));
  const fdsAfter = procSample(process.pid)?.fds;
  if (fdsBefore !== undefined && fdsAfter !== undefined) assert.ok(fdsAfter <= fdsBefore + 10, `descriptors ${fdsBefore} before, ${fdsAfter} after`);
});
