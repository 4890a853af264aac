/**
 * The benchmark's sections against other injectors (bench/lib/istio.ts, pepr-run.ts and their
 * reports): every pod new sends a variant set, the same sequence to ours and
 * to the other injector; replica pods stay one body repeated; F3, without a variant set, stays
 * one body and the report says so; every comparison's "Sends:" line says what was sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeVariants, type FixtureName } from '../fixtures.js';
import { comparisonBodies, istioPlan } from './istio.js';
import { renderIstio } from './istio-report.js';
import { wrkSetup } from './load.js';
import type { FixedRateResult, ThroughputResult } from './results.js';
import { renderPepr } from './pepr-report.js';
import type { IstioResults, PeprResults, Rounds, ServerName, VariantCheck } from './types.js';

const files = { F1: '/fx/f1.json', F2: '/fx/f2.json', F3: '/fx/f3.json', F4: '/fx/f4.json', F5: '/fx/f5.json' } as Record<FixtureName, string>;

test('the Istio section compares every pod new on the variant sets and replica pods on one body; F3 keeps its one body', () => {
  const plan = istioPlan(100);
  const summary = plan.map((c) => `${c.fixture} ${c.set ?? 'one body'}: ${c.servers.join(' ')} @${c.rate}`);
  assert.deepEqual(summary, [
    'F1 one body: anchor ours istio @100',
    'F1 F1-new: anchor ours-new istio @100',
    'F2 one body: anchor ours istio @100',
    'F2 F2-new: anchor ours-new istio @100',
    'F3 one body: anchor ours ours-new istio @20',
  ]);
});

test("the Istio section's every-pod-new comparisons send the variant set's bodies in turn (wrk's cycling script), replica pods the fixture file", () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-peers-'));
  try {
    const variants = writeVariants(dir, 3);
    const target = { name: 'istio', port: 1, pid: 1, path: '/inject' };
    for (const c of istioPlan(100)) {
      const bodies = comparisonBodies(c, files, variants);
      const { env } = wrkSetup(target, bodies, dir, 10);
      if (c.set === undefined) {
        assert.equal(env.BENCH_BODY, files[c.fixture], `${c.fixture} one body`);
        assert.equal(env.BENCH_BODIES, undefined);
      } else {
        assert.equal(env.BENCH_BODIES, variants[c.set].listFile, c.set);
        const listed = readFileSync(env.BENCH_BODIES!, 'utf8').trim().split('\n');
        assert.deepEqual(listed, variants[c.set].files, `${c.set}: every body listed, in order`);
      }
    }
    assert.throws(() => comparisonBodies({ fixture: 'F1', set: 'F1-new', servers: [], rate: 1 }, files, {}), /F1-new not written/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const tp = (rps: number): ThroughputResult => ({ rps, p50Ms: 1, p99Ms: 2, requests: rps * 3, errors: 0, serverCpu: 1, tool: 'test' });
const fr = (p99: number): FixedRateResult => ({
  targetRps: 100,
  achievedRps: 100,
  count: 300,
  non200: 0,
  p50Ms: p99 / 2,
  p90Ms: p99,
  p99Ms: p99,
  p999Ms: p99,
  maxMs: p99,
  serverCpu: 0.5,
  tool: 'test',
});
function rounds<T>(r: Partial<Record<ServerName, T>>): Rounds<T> {
  return { rounds: [r], vsAnchor: {}, anchorSpread: 0, flagged: false };
}
const check = (set: VariantCheck['set'], ok = 512): VariantCheck => ({
  set,
  describe: `desc ${set}`,
  count: 512,
  bytesMin: 6885,
  bytesMedian: 6900,
  bytesMax: 6967,
  ok,
  failures: ok === 512 ? [] : ['#3: no patch'],
  patchOps: 9,
  distinctPatches: ok,
});
const bytesOf = (f: string): string => ({ F1: '6,898', F3: '94,000' })[f] ?? 'n/a';

test('the Istio report says what each comparison sent, how often each body came round, and that both servers injected every variant', () => {
  const plan = istioPlan(100).filter((c) => c.fixture !== 'F2');
  plan[0].throughput = rounds({ anchor: tp(3000), ours: tp(2000), istio: tp(100) });
  plan[1].throughput = rounds({ anchor: tp(3072), 'ours-new': tp(512), istio: tp(256) });
  plan[1].latency = rounds({ anchor: fr(1), 'ours-new': fr(4), istio: fr(8) });
  plan[2].throughput = rounds({ anchor: tp(500), ours: tp(400), 'ours-new': tp(300), istio: tp(10) });
  const x: IstioResults = {
    version: 'v0',
    patchOps: { F1: { 'ours-new': 9, istio: 9 } },
    variantChecks: { 'F1-new': { 'ours-new': check('F1-new'), istio: check('F1-new') } },
    comparisons: plan,
    oursOverIstio: { F1: { everyPodNew: 2, replicaPods: 20 }, F3: { everyPodNew: 30, replicaPods: 40 } },
  };
  const md = renderIstio(x, bytesOf).join('\n');
  assert.match(md, /Sends: the F1 body \(6,898 B\), the same bytes on every request \(one uid\), to the anchor, to ours and to Istio's injector\./);
  assert.match(
    md,
    /Sends: 512 desc F1-new \(6,885-6,967 B\), in turn, the same sequence to the anchor, to ours \(every pod new\) and to Istio's injector; wrk cycles through them/,
  );
  assert.match(md, /each body went out about 18\.0 times to the anchor, 3\.0 times to ours and 1\.5 times to Istio/);
  assert.match(
    md,
    /Sends: the F3 body \(94,000 B\), the same bytes on every request \(one uid\), to the anchor, to ours, to ours \(every pod new\) and to Istio's injector\. F3 has no variant set, so ours still reuses/,
  );
  assert.match(md, /\| F1 \| 9 \/ 9 \| 512 F1-new bodies in turn \| \*\*2\.00x\*\* \| \*\*20\.00x\*\* \| 2\.00 \/ 4\.00, 4\.00 \/ 8\.00 \(at 100\/s\) \|/);
  assert.match(md, /\| F3 \| n\/a \/ n\/a \| the F3 body repeated \(no F3 variant set\): not every pod new for ours \|/);
  assert.match(md, /\| F1-new \| 6,885 \/ 6,900 \/ 6,967 \| 512 of 512, 9 ops, 512 distinct patches \| 512 of 512, 9 ops, 512 distinct patches \|/);
  assert.match(md, /Fixed rate 100\/s, F1, every pod new, the Node open-loop client/);
  assert.doesNotMatch(md, /each fixture's one body, repeated, to every server/);
});

test('the Pepr report sends F1 repeated for replica pods and F1-new in turn for every pod new, and says a failed check', () => {
  const p: PeprResults = {
    version: '1.1.4',
    dir: '/tmp/p',
    coldStartMs: [900],
    idleRss: [2 ** 26],
    oursOverPepr: { ours: 20, 'ours-new': 3 },
    throughput: rounds({ anchor: tp(3000), ours: tp(2000), pepr: tp(100) }),
    latency: rounds({ anchor: fr(1), ours: fr(1.2), pepr: fr(9) }),
    newPods: {
      set: 'F1-new',
      checks: { 'ours-new': check('F1-new'), pepr: check('F1-new', 511) },
      throughput: rounds({ anchor: tp(1024), 'ours-new': tp(512), pepr: tp(128) }),
    },
  };
  const md = renderPepr(p, 200, bytesOf).join('\n');
  assert.match(md, /Sends: the F1 body \(6,898 B\), the same bytes on every request \(one uid\), to the anchor, to ours and to Pepr\./);
  assert.match(md, /Sends: 512 desc F1-new \(6,885-6,967 B\), in turn, the same sequence to the anchor, to ours \(every pod new\) and to Pepr; wrk cycles/);
  assert.match(md, /about 6\.0 times to the anchor, 3\.0 times to ours and 0\.8 times to Pepr/);
  assert.match(md, /ours 512 of 512 \(512 distinct patches\); Pepr 511 of 512 \*\*\(#3: no patch\)\*\*/);
  assert.match(md, /ours \(every pod new\) \*\*3\.0x\*\*/);
  assert.doesNotMatch(md, /to every server/);
});
