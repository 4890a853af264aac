/**
 * The reload storm, bounded for CI (the full one is `npm run reload-storm`): config reloads and
 * certificate rotations, half of them bad, against the real webhook (real core, a config
 * directory and a Secret-like certificate directory updated by kubelet-style swaps) while
 * requests flow, some on fresh connections. Asserted: no request fails, each answer comes from
 * one accepted config, after every write a new client gets the last good config and
 * certificate, and the failure counters are exact. Latency is not asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStorm, seedStorm, stormMaterial, type ReloadCounters } from '../support/reload-storm-driver.js';
import { podReview, samplePod } from '../support/review-fixtures.js';
import { realConfig, startHarness } from '../support/webhook-harness.js';

test('reload storm (bounded): bad configs and certificates never serve, good ones do, no request fails, counters exact', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'reload-storm-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const configDir = join(dir, 'config');
  const certDir = join(dir, 'tls');
  const m = await stormMaterial();
  const first = await seedStorm(m, configDir, certDir);
  const h = await startHarness({
    config: realConfig(configDir),
    tls: { kind: 'files', certFile: join(certDir, 'tls.crt'), keyFile: join(certDir, 'tls.key') },
    reload: { debounceMs: 30, pollMs: 60_000 }, // the directory watch must find every change
  });
  t.after(() => h.server.shutdown());
  const uid = '00000000-0000-4000-8000-0000000000aa';
  const status = async (): Promise<{ config: ReloadCounters; certificate: ReloadCounters }> => {
    const detail = h.server.readiness().detail as { config: ReloadCounters; certificate: ReloadCounters };
    return { config: detail.config, certificate: detail.certificate };
  };
  const report = await runStorm({ port: h.port, configDir, certDir, status }, m, first, {
    configReloads: 16,
    certRotations: 12,
    badShare: 0.5,
    rate: 40,
    connections: 3,
    review: Buffer.from(JSON.stringify(podReview(samplePod(), { uid }))),
    uid,
    noticeTimeoutMs: 10_000,
  });
  t.diagnostic(
    `${report.requests.ok} requests; good versions live after at most ${report.maxLiveMs.config.toFixed(0)} ms (config), ${report.maxLiveMs.cert.toFixed(0)} ms (certificate); not asserted`,
  );
  assert.deepEqual(report.failures, []);
  assert.equal(report.requests.failed, 0);
  assert.ok(report.requests.ok > 50, `${report.requests.ok} requests answered`);
  assert.deepEqual(report.countedFailures, { config: 8, cert: 6 }, 'every bad version counted once');
  const variants = new Set(report.events.filter((e) => !e.good).map((e) => `${e.kind}: ${e.variant}`));
  for (const v of [
    'config: invalid YAML',
    'config: YAML bomb',
    'config: config file deleted',
    'cert: expired',
    'cert: key mismatch',
    'cert: cert file missing',
  ]) {
    assert.ok(variants.has(v), `${v} was tried`);
  }
  assert.ok(report.servedCerts >= 4, `clients saw ${report.servedCerts} certificates: rotations reached new connections`);
});
