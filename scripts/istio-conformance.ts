/**
 * Istio conformance of the injection core, in two parts.
 *
 * 1. Istio's goldens: Istio's injection test inputs (../shared/conformance/istio/inject) through
 *    injectPod with Istio's chart config; whether each pod template is injected or skipped as in
 *    the goldens, the bad-annotation cases, and how many injected templates match the goldens
 *    semantically (every difference must be listed, with its reason, in
 *    test/support/istio-golden-differences.ts).
 * 2. The live peer, when built (e2e/build/istio.sh): N generated workloads through
 *    `istioctl kube-inject` and through our inject, reported as identical / intended deviation /
 *    unexplained (test/support/istio-differential.ts).
 *
 *   npm run conformance:istio -- [--runs N] [--seed S] [--batch B] [--verbose] [--case NAME]
 *
 * Exit status 1 when an injected/skipped status or an expected error does not match, when a
 * golden differs without a documented reason, or when a generated workload differs unexplained.
 */
import { istioCases, istioInjectDataPresent, runIstioCase, summarize } from '../test/support/istio-conformance.js';
import { unexplainedGoldenDifferences } from '../test/support/istio-golden-differences.js';
import { runDifferentialCli } from './istio-differential-cli.js';

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const only = args.includes('--case') ? args[args.indexOf('--case') + 1] : undefined;

/** Part 1; false when something does not match. */
function goldens(): boolean {
  if (!istioInjectDataPresent()) {
    console.log('Istio conformance data not found (../shared/conformance/istio); skipping the golden comparison');
    return true;
  }
  const cases = istioCases().filter((c) => only === undefined || c.want === only || c.in === only);
  const results = cases.map((c) => runIstioCase(c));
  const s = summarize(results);
  if (verbose) {
    for (const r of results) {
      for (const t of r.templates) {
        if (t.identical === false) {
          console.log(`\n${r.case.want} ${t.where}:`);
          for (const d of t.differences ?? []) console.log(`  ${d}`);
        }
      }
    }
    console.log('');
  }
  console.log(`Istio conformance: ${s.cases} cases, ${s.templates} pod templates`);
  console.log(`  injected/skipped as in Istio: ${s.statusMatched} of ${s.templates}`);
  console.log(`  bad-annotation cases failing with the annotation named: ${s.errorCasesMatched} of ${s.errorCases}`);
  console.log(`  ${s.identical} of ${s.injectedBoth} injected documents identical to Istio's golden (normalised JSON, status annotation ignored)`);
  if (s.topDifferences.length > 0) {
    console.log('  top differences (path: templates):');
    for (const [path, n] of s.topDifferences) console.log(`    ${path}: ${n}`);
  }
  if (s.deviations.length > 0) {
    console.log(`  deliberate differences (${s.deviations.length}):`);
    for (const d of s.deviations) console.log(`    ${d}`);
  }
  const unexplained = only === undefined ? unexplainedGoldenDifferences(results) : [];
  for (const u of unexplained) console.log(`  UNEXPLAINED golden difference: ${u}`);
  if (s.mismatches.length > 0) {
    console.log('  MISMATCHES:');
    for (const m of s.mismatches) console.log(`    ${m}`);
  }
  return s.mismatches.length === 0 && unexplained.length === 0;
}

const goldensOk = goldens();
const liveOk = only === undefined ? runDifferentialCli(args, verbose) : true;
process.exit(goldensOk && liveOk ? 0 : 1);
