/**
 * The quiet-machine rule (issue 37): a goal is called met or missed only when the 1-minute load
 * average at the start was at most 0.75 per core; otherwise every report says it was not judged,
 * and why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderReport, type ClusterReport } from './cluster-report.js';
import { emptyResult, type ModeResult } from './cluster-run.js';
import { quietLine, quietness, verdict } from './quiet.js';

test('quiet up to 0.75 per core at the start (1.5 on 2 cores); a missing load is never quiet', () => {
  assert.equal(quietness([1.5, 9, 9], 2).quiet, true);
  assert.equal(quietness([1.51, 0, 0], 2).quiet, false);
  assert.equal(quietness([2.9, 0, 0], 4).quiet, true);
  assert.equal(quietness([], 2).quiet, false);
  assert.equal(quietness([Number.NaN], 2).quiet, false);
});

test('a busy machine judges no goal and says why; nothing measured stays n/a', () => {
  const busy = quietness([12.4, 9, 5], 2);
  assert.equal(verdict(true, busy), 'not judged (busy machine)');
  assert.equal(verdict(false, busy), 'not judged (busy machine)');
  assert.equal(verdict(undefined, busy), 'n/a');
  assert.match(quietLine(busy), /busy at the start.*12\.40 > 1\.5 on 2 cores.*no goal is called met or missed/);
  const quiet = quietness([0.4], 2);
  assert.equal(verdict(true, quiet), 'met');
  assert.equal(verdict(false, quiet), 'missed');
  assert.match(quietLine(quiet, false), /^quiet at the start \(load average 0\.40 ≤ 1\.5 on 2 cores\)$/);
});

function mode(name: string, sumS: number): ModeResult {
  return { ...emptyResult(name, 5), pods: 100, apiserver: { buckets: [], sum: sumS, count: 100 } };
}

function report(loadStart: number[]): ClusterReport {
  return {
    env: {
      date: '2026-12-03T00:00:00Z',
      commit: 'abc1234',
      dirty: false,
      node: 'v20',
      cpu: 'cpu',
      cores: 2,
      loadStart,
      loadEnd: [3, 2, 1],
      kubernetes: 'v1.36.3',
      istio: 'v0',
      pod: 'F1',
      reviewBytes: 1,
    },
    settings: { rates: [5], pods: 100, rounds: 1, coldPods: 20, coldRuns: 1, coldRate: 5 },
    // Above the floor: ours 0.2 ms a pod, Istio's 1 ms: 0.2x, under the 0.3x goal.
    rates: [[mode('floor', 0.1), mode('istio', 0.2), mode('ours-ifneeded', 0.12), mode('ours-never', 0.15)]],
    cold: [],
    patches: [],
    variants: {},
  };
}

test("bench:cluster's goals: met or missed on a quiet machine, not judged on a busy one", () => {
  const quiet = renderReport(report([0.3, 0.2, 0.1]));
  assert.match(quiet, /\| Per injected pod above the floor, ours-ifneeded, 5\/s \| ≤ 0\.3x Istio's \| 0\.20x .* \| met \|/);
  assert.match(quiet, /\| Per injected pod above the floor, ours-never, 5\/s \| ≤ 0\.3x Istio's \| 0\.50x .* \| missed \|/);
  const busy = renderReport(report([4.2, 3, 2]));
  assert.match(busy, /\*\*busy at the start\*\* \(load average 4\.20 > 1\.5 on 2 cores\)/);
  assert.doesNotMatch(busy, /\| (met|missed) \|/);
  assert.match(busy, /\| Per injected pod above the floor, ours-ifneeded, 5\/s \| .* \| not judged \(busy machine\) \|/);
});
