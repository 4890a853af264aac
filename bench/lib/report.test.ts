/**
 * The benchmark's bookkeeping (bench/lib): the server order rotates between rounds, every
 * section flags a noisy anchor (Pepr's too), and ratios are medians of per-round (per-pair)
 * ratios, idle RSS included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { interleave, rotation, rpsRatio } from './rounds.js';
import { idleRatio, perCpuRatio, renderMarkdown } from './report.js';
import type { ThroughputResult } from './results.js';
import type { BenchResults, ServerName } from './types.js';

const tp = (rps: number, cpu = 1): ThroughputResult => ({ rps, p50Ms: 1, p99Ms: 2, requests: rps, errors: 0, serverCpu: cpu, tool: 'test' });

test('rotation gives every server each slot equally often', () => {
  const names = ['anchor', 'ours', 'ours-new'];
  const firsts = [0, 1, 2, 3, 4, 5].map((i) => rotation(names, i)[0]);
  assert.deepEqual(firsts, ['anchor', 'ours', 'ours-new', 'anchor', 'ours', 'ours-new']);
  for (let i = 0; i < 6; i++) assert.deepEqual([...rotation(names, i)].sort(), [...names].sort());
});

test('interleave measures in the rotated order and keeps the order beside the rounds', async () => {
  const seen: string[] = [];
  const targets = { anchor: { name: 'anchor', port: 1, pid: 1, path: '/' }, ours: { name: 'ours', port: 2, pid: 2, path: '/' } };
  const r = await interleave(
    3,
    targets,
    async (t) => (seen.push(t.name), tp(t.name === 'anchor' ? 100 : 80)),
    rpsRatio,
    (x) => x.rps,
    () => undefined,
  );
  assert.deepEqual(seen, ['anchor', 'ours', 'ours', 'anchor', 'anchor', 'ours']);
  assert.deepEqual(r.orders, [
    ['anchor', 'ours'],
    ['ours', 'anchor'],
    ['anchor', 'ours'],
  ]);
  assert.equal(r.vsAnchor.ours, 0.8);
  assert.deepEqual(Object.keys(r.rounds[1]), ['anchor', 'ours'], 'tables keep the anchor first');
});

function results(): BenchResults {
  const rounds = <T>(a: T[], o: T[]) => ({
    rounds: a.map((x, i) => ({ anchor: x, ours: o[i] }) as Partial<Record<ServerName, T>>),
    vsAnchor: { ours: 1 },
    anchorSpread: 0,
    flagged: false,
  });
  return {
    env: {
      date: '2026-11-25T00:00:00Z',
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
      pairs: 3,
      warmupS: 1,
      durationS: 3,
      connections: 10,
      rate: 1000,
      coldReps: 3,
      peprRate: 200,
      ours: ['ours'],
      oursFlags: [],
      command: 'x',
      tools: { taskset: true, notes: [] },
    },
    fixtures: [],
    targets: [],
    notes: [],
    cold: {
      anchor: [50, 60, 100].map((m) => ({ readyMs: 100, idleRss: m * 2 ** 20 })),
      ours: [100, 60, 110].map((m) => ({ readyMs: 200, idleRss: m * 2 ** 20 })),
    },
    throughput: { F1: rounds([tp(100, 0.5), tp(100, 1), tp(100, 1)], [tp(90, 0.25), tp(90, 1), tp(90, 1)]) },
    pepr: {
      version: '1.1.4',
      dir: '/tmp/p',
      coldStartMs: [1],
      idleRss: [1],
      oursOverPepr: {},
      throughput: {
        rounds: [
          { anchor: tp(100), pepr: tp(10) },
          { anchor: tp(300), pepr: tp(10) },
        ],
        vsAnchor: { pepr: 0.05 },
        anchorSpread: 1.0,
        flagged: true,
      },
    },
  } as unknown as BenchResults;
}

test('idle RSS is the median of per-pair ratios, not a ratio of medians', () => {
  // Pairs: 2.0, 1.0, 1.1 -> median 1.1; the ratio of medians would be 100 / 60 = 1.67.
  assert.equal(idleRatio(results()).toFixed(2), '1.10');
});

test('requests per server CPU-second compare like with like when a server got less CPU', () => {
  // Round 1: ours 90 rps on a quarter core vs the anchor's 100 on half a core: 1.8x per CPU.
  const t = results().throughput!.F1!;
  assert.equal(perCpuRatio(t, 'ours').toFixed(2), '0.90');
  t.rounds.push({ anchor: tp(100, 0.5), ours: tp(90, 0.25) }, { anchor: tp(100, 0.5), ours: tp(90, 0.25) });
  assert.equal(perCpuRatio(t, 'ours').toFixed(2), '1.80');
});

test("the Pepr section flags its anchor's spread like the other sections", () => {
  const md = renderMarkdown(results());
  const pepr = md.slice(md.indexOf('Side by side with Pepr'));
  assert.match(pepr, /Anchor spread 100\.0 % \(\*\*over 10 %: flagged as noisy\*\*\)/);
  assert.match(md, /Idle RSS ours \/ anchor, median of per-pair ratios: 1\.10x/);
});
