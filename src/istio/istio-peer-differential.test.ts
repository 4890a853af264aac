/**
 * Differential testing against the live Istio peer (skipped, and reported as skipped, when
 * e2e/build/istio.sh has not built it): 300 generated workloads through `istioctl kube-inject`
 * and through our inject with the same config files; any difference not covered by a documented
 * intended deviation fails; then 100 more as a revision (`istioctl kube-inject -r canary` with
 * the revisioned values, against our `serve --revision canary`). Also pins our side of each intended deviation, and checks that the
 * comparison itself can tell a difference (so that "0 unexplained" means something).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { injectObject } from '../manual-inject/index.js';
import { istioChartConfig, istioChartPresent } from '../../test/support/istio-chart.js';
import { compare, describeComparison, ourOutcome, runDifferential, templateOf } from '../../test/support/istio-differential.js';
import { sampleWorkloads } from '../../test/support/workload-arbitraries.js';
import { INTENDED_DEVIATIONS } from '../../test/support/istio-deviations.js';
import { findIstioPeer, istioPeerDir, peerConfig } from '../../test/support/istio-peer.js';
import type { JsonObject } from '../util/json.js';

const peer = findIstioPeer();
const RUNS = 300;
const REVISION_RUNS = 100;

describe('differential testing against istioctl kube-inject', () => {
  it(`${RUNS} generated workloads: every difference is an intended deviation`, {
    skip: peer === undefined ? `Istio peer not built (${istioPeerDir()}); run e2e/build/istio.sh` : false,
  }, (t) => {
    const r = runDifferential(peer!, RUNS, 16);
    const deviating = [...r.deviations.values()].reduce((a, b) => a + b, 0);
    t.diagnostic(
      `${r.runs} workloads: identical ${r.identical}, intended deviation ${deviating}, unexplained ${r.unexplained.length} (${r.seconds.toFixed(1)} s, ${r.istioctlInvocations} istioctl runs)`,
    );
    assert.deepEqual(r.unexplained.map(describeComparison), []);
    // Guard against a degenerate run (everything refused or skipped would compare nothing).
    assert.ok((r.decisions['injected/injected'] ?? 0) > RUNS / 3, JSON.stringify(r.decisions));
    assert.ok(r.identical > RUNS / 2, `only ${r.identical} identical`);
  });

  it(`${REVISION_RUNS} generated workloads as revision canary (istioctl -r canary, serve --revision canary)`, {
    skip: peer === undefined ? `Istio peer not built (${istioPeerDir()}); run e2e/build/istio.sh` : false,
  }, (t) => {
    const r = runDifferential(peer!, REVISION_RUNS, 32, 100, undefined, 'canary');
    const deviating = [...r.deviations.values()].reduce((a, b) => a + b, 0);
    t.diagnostic(`${r.runs} workloads as revision canary: identical ${r.identical}, intended deviation ${deviating}, unexplained ${r.unexplained.length}`);
    assert.deepEqual(r.unexplained.map(describeComparison), []);
    assert.ok((r.decisions['injected/injected'] ?? 0) > REVISION_RUNS / 3, JSON.stringify(r.decisions));
    // The comparison sees the revision: a pod injected as the default revision differs from Istio's canary one.
    const w = sampleWorkloads(1, 7)[0]!;
    const canary = ourOutcome(w, peerConfig(peer!, { nativeSidecars: true, revision: 'canary' }));
    const plain = ourOutcome(w, peerConfig(peer!, { nativeSidecars: true }));
    if (canary.decision === 'injected') {
      assert.match(JSON.stringify(canary.template), /"istio\.io\/rev":"canary"/);
      assert.equal(compare(w, true, canary, plain).verdict, 'unexplained');
    }
  });
});

describe('intended deviations from Istio (our side pinned)', {
  skip: istioChartPresent() ? false : 'Istio chart not found (../shared/conformance/istio)',
}, () => {
  const config = () => istioChartConfig();
  const deployment = (ns: string, annotations: Record<string, string> = {}, labels: Record<string, string> = {}): JsonObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: ns },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web', ...labels }, annotations }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
    },
  });

  it('kube-inject-system-namespace: a Deployment in kube-system is skipped', () => {
    const r = injectObject(deployment('kube-system'), 0, {}, config(), {});
    assert.equal(r.changed, 0);
    assert.equal(r.notes.find((n) => n.type === 'skipped')?.reason, 'ignored-namespace');
  });

  it('kube-inject-proxy-config-before-decision: an opted-out workload with a bad proxy.istio.io/config is skipped, not refused', () => {
    const r = injectObject(deployment('shop', { 'proxy.istio.io/config': '{bad' }, { 'sidecar.istio.io/inject': 'false' }), 0, {}, config(), {});
    assert.equal(r.changed, 0);
    // ...while one that would be injected is refused, naming the annotation, as Istio does.
    assert.throws(() => injectObject(deployment('shop', { 'proxy.istio.io/config': '{bad' }), 0, {}, config(), {}), /proxy\.istio\.io\/config/);
  });

  it('every deviation has a reason and a pinning test; the comparison reports an unlisted difference as unexplained', () => {
    for (const d of INTENDED_DEVIATIONS) assert.ok(d.reason.length > 40 && d.pinnedBy.length > 0, d.id);
    const w = deployment('shop');
    const template = templateOf(w);
    const changed = { ...template, metadata: { ...(template.metadata as JsonObject), labels: { extra: 'x' } } };
    const same = compare(w, true, { decision: 'injected', template }, { decision: 'injected', template });
    assert.equal(same.verdict, 'identical');
    const differs = compare(w, true, { decision: 'injected', template }, { decision: 'injected', template: changed });
    assert.equal(differs.verdict, 'unexplained');
    assert.match(describeComparison(differs), /\.metadata\.labels/);
    assert.equal(compare(w, true, { decision: 'injected', template }, { decision: 'skipped', template }).verdict, 'unexplained');
    assert.equal(
      compare(deployment('kube-system'), true, { decision: 'injected', template }, { decision: 'skipped', template }).deviation?.id,
      'kube-inject-system-namespace',
    );
  });
});
