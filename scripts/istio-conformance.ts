/**
 * Istio conformance of the injection core: runs Istio's injection test inputs
 * (../shared/conformance/istio/inject) through injectPod with Istio's chart config and reports
 * whether each pod template is injected or skipped as in Istio's goldens (the gate), the
 * bad-annotation cases, and how many injected templates match the goldens semantically.
 *
 *   npx tsx scripts/istio-conformance.ts [--verbose] [--case NAME]
 *
 * Exit status 1 when an injected/skipped status or an expected error does not match.
 */
import { istioCases, istioInjectDataPresent, runIstioCase, summarize } from '../src/testing/istio-conformance.js';

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const only = args.includes('--case') ? args[args.indexOf('--case') + 1] : undefined;

if (!istioInjectDataPresent()) {
  console.log('Istio conformance data not found (../shared/conformance/istio); nothing to do');
  process.exit(0);
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
if (s.mismatches.length > 0) {
  console.log('  MISMATCHES:');
  for (const m of s.mismatches) console.log(`    ${m}`);
  process.exit(1);
}
