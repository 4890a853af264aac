/**
 * The benchmark's every-pod-new inputs and the tools that send them (bench/fixtures.ts variant
 * sets, bench/lib/load.ts): the variants are distinct, deterministic, about F1/F2's size and
 * injected with a patch each; one DaemonSet's pods differ only by node affinity and uid; wrk's
 * script and the open-loop child really send every body in turn (checked on loopback against a
 * recorder, short and bounded); the report takes the every-pod-new goals from those rows and
 * says what each row sends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { reviewBodies, variantBodies, variantPod, writeVariants, type VariantSet } from '../fixtures.js';
import { openLoopRate, wrkSetup } from './load.js';
import type { FixedRateResult, ThroughputResult } from './results.js';
import { evaluateTargets, renderMarkdown } from './report.js';
import type { BenchResults, Rounds, ServerName } from './types.js';
import { injectPod } from '../../src/inject/index.js';
import { defaultConfig } from '../../src/profiles/index.js';
import { uidRecorder } from '../../test/support/uid-recorder.js';

type Obj = Record<string, any>;
const parse = (b: Buffer): Obj => JSON.parse(b.toString('utf8')) as Obj;

test('variant bodies are deterministic, each distinct, with their own uids, and close to F1/F2 in size', async () => {
  const base = await reviewBodies();
  for (const [set, like] of [
    ['F1-new', base.F1],
    ['F2-new', base.F2],
    ['F1-daemonset', base.F1],
  ] as [VariantSet, Buffer][]) {
    const a = variantBodies(set, 64);
    const b = variantBodies(set, 64);
    assert.deepEqual(a, b, `${set}: same bytes on every call`);
    assert.equal(new Set(a.map((x) => x.toString('utf8'))).size, 64, `${set}: 64 different bodies`);
    assert.equal(new Set(a.map((x) => parse(x).request.uid)).size, 64, `${set}: a uid each`);
    assert.ok(!a.some((x) => x.equals(like)), `${set}: none is the fixture itself`);
    for (const x of a) assert.ok(Math.abs(x.length - like.length) / like.length < 0.1, `${set}: ${x.length} B vs ${like.length} B`);
  }
});

test('distinct workloads differ in owner, labels, containers, images, ports and annotations', () => {
  for (const set of ['F1-new', 'F2-new'] as VariantSet[]) {
    const pods = Array.from({ length: 64 }, (_, i) => variantPod(set, i) as Obj);
    const distinct = (f: (p: Obj) => unknown): number => new Set(pods.map((p) => JSON.stringify(f(p)))).size;
    assert.equal(
      distinct((p) => p.metadata.ownerReferences[0].name),
      64,
      `${set}: owner names`,
    );
    assert.equal(
      distinct((p) => p.metadata.ownerReferences[0].uid),
      64,
      `${set}: owner uids`,
    );
    assert.equal(
      distinct((p) => p.metadata.generateName),
      64,
      `${set}: generateName`,
    );
    assert.equal(
      distinct((p) => p.metadata.labels),
      64,
      `${set}: labels`,
    );
    assert.equal(
      distinct((p) => p.spec.containers.map((c: Obj) => c.name)),
      64,
      `${set}: container names`,
    );
    assert.equal(
      distinct((p) => p.spec.containers.map((c: Obj) => c.image)),
      64,
      `${set}: images`,
    );
    assert.ok(distinct((p) => p.spec.containers[0].ports) > 32, `${set}: ports`);
    assert.equal(
      distinct((p) => p.metadata.annotations),
      64,
      `${set}: annotations`,
    );
    for (const p of pods) assert.equal(p.metadata.ownerReferences[0].kind, 'ReplicaSet');
  }
});

test("one DaemonSet's pods are identical except node affinity and the request uid", () => {
  const bodies = variantBodies('F1-daemonset', 32).map(parse);
  const nodes = bodies.map(
    (r) => r.request.object.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0],
  );
  assert.equal(new Set(nodes.map((m) => m.values[0])).size, 32);
  for (const m of nodes) assert.deepEqual([m.key, m.operator], ['metadata.name', 'In']);
  const rest = bodies.map((r) => {
    delete r.request.uid;
    delete r.request.object.spec.affinity;
    return JSON.stringify(r);
  });
  assert.equal(new Set(rest).size, 1);
  assert.equal(bodies[0].request.object.metadata.ownerReferences[0].kind, 'DaemonSet');
});

test('every variant is injected by the built-in config: distinct workloads get distinct patches, the DaemonSet one', () => {
  const config = defaultConfig();
  for (const [set, want] of [
    ['F1-new', 12],
    ['F2-new', 12],
    ['F1-daemonset', 1],
  ] as [VariantSet, number][]) {
    const patches = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const r = injectPod(variantPod(set, i), { namespace: 'shop', mode: 'webhook' }, config);
      assert.equal(r.kind, 'injected', `${set} #${i}`);
      if (r.kind === 'injected') patches.add(JSON.stringify(r.patch));
    }
    assert.equal(patches.size, want, set);
  }
});

/** A server that records the uid of every review it is sent and answers 200. */
const hasWrk = spawnSync('wrk', ['--version']).error === undefined;

/** wrk for one second with `args` and `env` (asynchronously: the recorder answers from this process's event loop). */
function runWrk(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn('wrk', ['-d1s', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 20_000 });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('close', (code) => resolve({ code, err }));
  });
}

test("wrk's cycling script sends every listed body in turn", { skip: hasWrk ? false : 'wrk not installed' }, async () => {
  const rec = await uidRecorder('http');
  try {
    const v = writeVariants(rec.dir, 3)['F1-new'];
    const { args, env } = wrkSetup({ name: 'recorder', port: rec.port, pid: process.pid, path: '/inject', scheme: 'http' }, v, rec.dir, 2);
    const r = await runWrk(args, env);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual([...new Set(rec.uids)].sort(), [...v.uids].sort(), 'every body was sent');
    // Handed out in turn: counts differ by at most one, plus the requests in flight at the end.
    const counts = v.uids.map((u) => rec.uids.filter((x) => x === u).length);
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 3, `counts ${counts.join(', ')}`);
  } finally {
    rec.close();
  }
});

test("wrk's cycling script starts at body BENCH_START: a measured run goes on where its warm-up stopped", {
  skip: hasWrk ? false : 'wrk not installed',
}, async () => {
  const rec = await uidRecorder('http');
  try {
    const v = writeVariants(rec.dir, 5)['F1-new'];
    const { args, env } = wrkSetup({ name: 'recorder', port: rec.port, pid: process.pid, path: '/inject', scheme: 'http' }, v, rec.dir, 1);
    const r = await runWrk(args, { ...env, BENCH_START: '7' });
    assert.equal(r.code, 0, r.err);
    // One connection: the bodies arrive in the order handed out, from 7 mod 5 = 2 on.
    assert.deepEqual(
      rec.uids.slice(0, 6),
      [2, 3, 4, 0, 1, 2].map((i) => v.uids[i]),
    );
  } finally {
    rec.close();
  }
});

test('the open-loop child goes on after its warm-up from the next body, not from the first', async () => {
  const rec = await uidRecorder('https');
  try {
    const v = writeVariants(rec.dir, 7)['F1-new'];
    await openLoopRate({ name: 'recorder', port: rec.port, pid: process.pid, path: '/inject' }, v, { rate: 50, connections: 1, warmupS: 0.3, durationS: 0.3 });
    assert.ok(rec.uids.length > 14, `${rec.uids.length} requests`);
    // Warm-up and measured run together are one unbroken cycle through the bodies.
    assert.deepEqual(
      rec.uids,
      rec.uids.map((_, k) => v.uids[k % 7]),
    );
  } finally {
    rec.close();
  }
});

test('the open-loop child sends every listed body in turn at a fixed rate', async () => {
  const rec = await uidRecorder('https');
  try {
    const v = writeVariants(rec.dir, 4)['F2-new'];
    const r = await openLoopRate({ name: 'recorder', port: rec.port, pid: process.pid, path: '/inject' }, v, {
      rate: 100,
      connections: 2,
      warmupS: 0,
      durationS: 0.5,
    });
    assert.equal(r.non200, 0);
    assert.ok(r.count > 0);
    assert.deepEqual([...new Set(rec.uids)].sort(), [...v.uids].sort(), 'every body was sent');
    const counts = v.uids.map((u) => rec.uids.filter((x) => x === u).length);
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, `in turn: counts ${counts.join(', ')}`);
  } finally {
    rec.close();
  }
});

function fakeRounds<T>(server: ServerName, a: T, o: T): Rounds<T> {
  return { rounds: [{ anchor: a, [server]: o }], vsAnchor: { [server]: 0.5 }, anchorSpread: 0, flagged: false };
}

test('the report takes every-pod-new goals from the distinct-body rows and says what each row sends', () => {
  const t = (rps: number): ThroughputResult => ({ rps, p50Ms: 1, p99Ms: 2, requests: rps * 3, errors: 0, serverCpu: 1, tool: 'test' });
  const l = (p99: number): FixedRateResult => ({
    targetRps: 1000,
    achievedRps: 1000,
    count: 3000,
    non200: 0,
    p50Ms: 1,
    p90Ms: 1,
    p99Ms: p99,
    p999Ms: p99,
    maxMs: p99,
    serverCpu: 0.5,
    tool: 'vegeta v12.12.0 open loop, 512 bodies in turn',
  });
  const set = (name: VariantSet) => ({
    set: name,
    describe: `desc ${name}`,
    count: 512,
    bytesMin: 6800,
    bytesMedian: 6900,
    bytesMax: 7000,
    ok: 512,
    failures: [],
    patchOps: 7,
    distinctPatches: name === 'F1-daemonset' ? 1 : 512,
  });
  const r = {
    env: {
      date: '2026-11-27T00:00:00Z',
      node: 'v20',
      cores: 2,
      cpu: 'x',
      memoryGiB: 1,
      kernel: 'k',
      loadStart: [0, 0, 0],
      commit: 'c',
      dirty: false,
      coreWired: { source: true, built: true },
    },
    settings: {
      pairs: 1,
      warmupS: 1,
      durationS: 3,
      connections: 10,
      rate: 1000,
      coldReps: 3,
      peprRate: 200,
      ours: ['ours', 'ours-new'],
      variants: 512,
      oursFlags: [],
      command: 'x',
      tools: { taskset: true, notes: [] },
    },
    fixtures: [{ name: 'F1', bytes: 6898, status: 200, allowed: true, patchOps: 7, patchBytes: 1, expected: 'patch', ok: true }],
    targets: [],
    notes: [],
    throughput: { F1: { ...fakeRounds('ours', t(1000), t(1300)), vsAnchor: { ours: 1.3 } } },
    newPods: {
      sets: [set('F1-new'), set('F2-new'), set('F1-daemonset')],
      throughput: { F1: { ...fakeRounds('ours-new', t(1024), t(512)), vsAnchor: { 'ours-new': 0.5 } } },
      daemonSet: { ...fakeRounds('ours-new', t(1000), t(700)), vsAnchor: { 'ours-new': 0.7 } },
      latency: { F1: { ...fakeRounds('ours-new', l(1), l(1.5)), vsAnchor: { 'ours-new': 0.5 } } },
    },
  } as unknown as BenchResults;
  const targets = evaluateTargets(r);
  const row = (re: RegExp) => targets.find((x) => re.test(x.metric));
  assert.match(row(/^F1 max RPS .*every pod new \(512 distinct/)!.measured, /^0\.500/);
  assert.equal(row(/^F1 max RPS .*every pod new \(512 distinct/)!.met, true);
  assert.match(row(/^F1 max RPS .*replica pods/)!.measured, /^1\.300/);
  assert.equal(row(/one DaemonSet/)!.informational, true);
  assert.match(row(/one DaemonSet/)!.measured, /^0\.700/);
  assert.match(row(/^F1 p99 .*every pod new/)!.measured, /^\+0\.50 ms/);
  assert.match(row(/^F1 p99 .*every pod new/)!.metric, /\(vegeta open loop, arrivals spread out\)$/, 'names the client that ran');
  r.targets = targets;
  const md = renderMarkdown(r);
  assert.match(md, /\| information \|/);
  assert.match(md, /Sends: the F1 body \(6,898 B\), the same bytes on every request/);
  assert.match(md, /Sends: 512 desc F1-new \(6,800-7,000 B\), in turn, the same sequence to the anchor and to ours/);
  assert.match(md, /each body went out about 6\.0 times to the anchor and 3\.0 times to ours/);
  assert.match(md, /Sends: 512 desc F1-daemonset/);
  assert.match(md, /Fixed rate 1000\/s, F1, every pod new \(vegeta \(a Go open-loop load generator\) pinned to the generator's core/);
  assert.match(md, /\| F1-daemonset \| 512 \| 6,800 \/ 6,900 \/ 7,000 \| 512 of 512 \| 7 \| 1 \|/);
});
