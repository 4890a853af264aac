/**
 * Istio conformance (skipped when ../shared/conformance/istio is absent): every pod template of
 * Istio's injection test inputs is injected or skipped exactly as in Istio's goldens, the
 * `traffic-annotations-bad-*` inputs fail naming the bad annotation, and every injection of
 * Istio's template passes the core's invariants (patch applies under three appliers,
 * re-injection is a no-op, uninjection restores the input). Every injected template equals
 * Istio's golden semantically, except the goldens listed with their reason in
 * GOLDEN_DIFFERENCES (gated both ways: a new difference fails, and so does a listed golden that
 * has become identical). scripts/istio-conformance.ts --verbose prints the differences.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { podTemplates } from '../manifest-io/index.js';
import { istioChartConfig, istioChartPresent, ISTIO_INJECT_DIR } from '../../test/support/istio-chart.js';
import { DELIBERATE_DIFFERENCES, istioCases, istioInjectDataPresent, runIstioCase, summarize, type CaseResult } from '../../test/support/istio-conformance.js';
import { InjectorError } from '../errors.js';
import { GOLDEN_DIFFERENCES, unexplainedGoldenDifferences } from '../../test/support/istio-golden-differences.js';
import { injectChecked } from '../../test/support/inject-fixtures.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { injectPod } from '../inject/index.js';
import type { InjectionContext } from '../inject/types.js';

const present = istioChartPresent() && istioInjectDataPresent();

describe("Istio's injection goldens", { skip: present ? false : 'Istio conformance data not found (../shared/conformance/istio)' }, () => {
  it('injects or skips every pod template as Istio does, and fails the bad-annotation inputs naming the annotation', (t) => {
    const results: CaseResult[] = istioCases().map((c) => runIstioCase(c));
    const s = summarize(results);
    assert.ok(s.templates > 100, `only ${s.templates} pod templates found`);
    assert.equal(s.errorCases, 5);
    assert.deepEqual(s.mismatches, []);
    assert.equal(s.statusMatched + s.deviations.length, s.templates);
    assert.ok(s.deviations.length <= 1, `deliberate differences: ${s.deviations.join('; ')}`);
    for (const d of s.deviations) t.diagnostic(`deliberate difference: ${d}`);
    assert.equal(s.errorCasesMatched, s.errorCases);
    t.diagnostic(`${s.identical} of ${s.injectedBoth} injected templates identical to Istio's goldens (normalised JSON, status annotation ignored)`);
  });

  it("every injected template equals Istio's golden, but for the documented differences", (t) => {
    const results = istioCases().map((c) => runIstioCase(c));
    assert.deepEqual(unexplainedGoldenDifferences(results), []);
    const s = summarize(results);
    const listed = new Set(Object.keys(GOLDEN_DIFFERENCES));
    const differing = results.filter((r) => r.templates.some((x) => x.identical === false)).length;
    assert.equal(differing, listed.size);
    assert.ok(s.identical >= 111, `only ${s.identical} of ${s.injectedBoth} identical`);
    t.diagnostic(`${s.identical} of ${s.injectedBoth} identical; ${listed.size} documented differences`);
  });

  it("every injection with Istio's templates applies as a patch, is idempotent and uninjects to its input", () => {
    let checked = 0;
    for (const c of istioCases()) {
      if (c.expectedError !== undefined) continue;
      const config = istioChartConfig(c.options);
      for (const d of parseAllDocuments(readFileSync(ISTIO_INJECT_DIR + c.in, 'utf8'))) {
        const doc = d.toJS() as JsonObject | null;
        if (doc === null) continue;
        for (const ref of podTemplates(doc)) {
          const isPod = ref.owner.kind === 'Pod';
          const pod = isPod ? doc : ref.template;
          const ctx: InjectionContext = isPod
            ? { namespace: '', mode: 'manual' }
            : { namespace: '', mode: 'manual', owner: { kind: ref.owner.kind, name: ref.owner.name, apiVersion: ref.owner.apiVersion } };
          const annotations = isPlainObject(pod.metadata) && isPlainObject(pod.metadata.annotations) ? pod.metadata.annotations : {};
          // An input Istio injected already comes back stripped of Istio's injection, not as it was.
          if ('sidecar.istio.io/status' in annotations) continue;
          let decided;
          try {
            decided = injectPod(pod, ctx, config);
          } catch (err) {
            // A deliberate difference from Istio (a pod we refuse); anything else is a failure.
            if (c.want in DELIBERATE_DIFFERENCES && err instanceof InjectorError && err.code === DELIBERATE_DIFFERENCES[c.want].code) continue;
            throw err;
          }
          if (decided.kind === 'skipped') continue;
          injectChecked(pod, ctx, config);
          checked++;
        }
      }
    }
    assert.ok(checked > 100, `only ${checked} injections checked`);
  });
});
