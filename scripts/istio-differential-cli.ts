/**
 * The live-peer part of `npm run conformance:istio`: parses --runs/--seed/--batch, runs the
 * differential comparison against istioctl and prints identical / intended deviation /
 * unexplained. Returns false when a difference is unexplained.
 */
import { describeComparison, runDifferential } from '../test/support/istio-differential.js';
import { INTENDED_DEVIATIONS } from '../test/support/istio-deviations.js';
import { findIstioPeer, istioPeerDir } from '../test/support/istio-peer.js';

function intFlag(args: readonly string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(args[i + 1]);
  if (!Number.isInteger(v) || v < 0) {
    console.error(`${name} needs a non-negative integer, got ${args[i + 1] ?? 'nothing'}`);
    process.exit(2);
  }
  return v;
}

export function runDifferentialCli(args: readonly string[], verbose: boolean): boolean {
  const runs = intFlag(args, '--runs', 300);
  const seed = intFlag(args, '--seed', 16);
  const batch = intFlag(args, '--batch', 100);
  const peer = findIstioPeer();
  if (peer === undefined) {
    console.log(`\nLive Istio peer not built (${istioPeerDir()}); run e2e/build/istio.sh for the differential part`);
    return true;
  }
  if (runs === 0) return true;
  console.log(`\nDifferential testing against istioctl kube-inject (${peer.istioctl})`);
  const r = runDifferential(peer, runs, seed, Math.max(1, batch), (done) => {
    if (process.stderr.isTTY) process.stderr.write(`\r  ${done}/${runs}`);
  });
  if (process.stderr.isTTY) process.stderr.write('\n');
  const deviating = [...r.deviations.values()].reduce((a, b) => a + b, 0);
  console.log(`  ${r.runs} generated workloads (seed ${r.seed}), ${r.istioctlInvocations} istioctl runs, ${r.seconds.toFixed(1)} s`);
  console.log(
    `  decisions (Istio/ours): ${Object.entries(r.decisions)
      .sort()
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  console.log(`  identical: ${r.identical}   intended deviation: ${deviating}   unexplained: ${r.unexplained.length}`);
  for (const d of INTENDED_DEVIATIONS) {
    const n = r.deviations.get(d.id);
    if (n !== undefined) console.log(`    ${d.id}: ${n}${verbose ? ` (${d.reason})` : ''}`);
  }
  for (const c of r.unexplained.slice(0, verbose ? 50 : 5)) console.log(`  UNEXPLAINED ${describeComparison(c)}`);
  if (r.unexplained.length > (verbose ? 50 : 5)) console.log(`  ... and ${r.unexplained.length - (verbose ? 50 : 5)} more (--verbose shows 50)`);
  return r.unexplained.length === 0;
}
