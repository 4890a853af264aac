/**
 * bench:start's split of a start's CPU profile (start-profile.ts): each sample goes to the
 * innermost part of ours on its stack, the module loader's work to `node and modules` only
 * outside ours, and the parts add up to every sampled millisecond.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startParts } from './start-profile.js';

/** A profile from stacks (root first) and the µs each was sampled for. */
function profile(stacks: [string[], number][]): unknown {
  const nodes: { id: number; callFrame: { functionName: string; url: string }; children: number[] }[] = [
    { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [] },
  ];
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  for (const [stack, us] of stacks) {
    let at = nodes[0];
    for (const name of stack) {
      let next = at.children.map((c) => nodes[c - 1]).find((n) => n.callFrame.functionName === name);
      if (next === undefined) {
        next = { id: nodes.length + 1, callFrame: { functionName: name, url: '' }, children: [] };
        nodes.push(next);
        at.children.push(next.id);
      }
      at = next;
    }
    samples.push(at.id);
    timeDeltas.push(us);
  }
  return { nodes, samples, timeDeltas, startTime: 0, endTime: timeDeltas.reduce((a, b) => a + b, 0) };
}

test('a start splits into its parts, nested work counted once, the parts adding up to the profile', () => {
  const r = startParts(
    profile([
      [['run', 'evaluate', 'runCli', 'loadConfig', 'parseTemplate'], 3000],
      [['runServe', 'assertServable', 'checkConfig', 'injectPod'], 2000],
      // The gate inside a config load is the gate's.
      [['loadConfig', 'assertServable', 'injectPod'], 500],
      [['processImmediate', 'warmUp', 'handler', 'injectPod'], 4000],
      [['run', 'compileSourceTextModule'], 5000],
      [['readFileHandle', 'fstat'], 1000],
      [['(garbage collector)'], 1500],
      [['(idle)'], 700],
      [['startServer', 'createSecureContext'], 300],
    ]),
  );
  assert.deepEqual(r.parts, {
    'node and modules': 6,
    'config load': 3,
    'config gate': 2.5,
    'warm-up': 4,
    'garbage collector': 1.5,
    idle: 0.7,
    other: 0.3,
  });
  assert.equal(r.spanMs, 18);
});

test('what is not a V8 CPU profile is refused with what it lacks', () => {
  assert.throws(() => startParts({ nodes: [] }), /not a V8 CPU profile \(nodes, samples, timeDeltas\)/);
  assert.throws(() => startParts(null), /not a V8 CPU profile/);
});
