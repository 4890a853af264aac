/**
 * Istio's own ConfigMap is a drop-in (issue 12): `kubectl get configmap istio-sidecar-injector
 * -o yaml`, loaded through `--config` as a user would, with no key of ours (no nativeSidecars,
 * no values.istioPostProcessing), gives on Istio's conformance inputs exactly the results of
 * the config with the explicit keys: the same pods injected, byte-equal JSON, the same skips
 * and the same errors.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../profiles/index.js';
import type { LoadedConfig } from '../config/types.js';
import { InjectorError } from '../errors.js';
import { istioChartConfig, istioChartConfigMap, istioChartPresent, ISTIO_INJECT_DIR, type IstioChartOptions } from '../../test/support/istio-chart.js';
import { casePods, istioCases, istioInjectDataPresent, runIstioCase, summarize } from '../../test/support/istio-conformance.js';
import { injectPod } from '../inject/index.js';

const present = istioChartPresent() && istioInjectDataPresent();

describe("Istio's plain ConfigMap as --config", { skip: present ? false : 'Istio conformance data not found' }, () => {
  let dir: string;
  const plain = new Map<string, LoadedConfig>();
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'si-istio-dropin-'));
    for (const c of istioCases()) {
      const key = JSON.stringify(c.options);
      if (plain.has(key)) continue;
      const file = join(dir, `cm-${plain.size}.yaml`);
      writeFileSync(file, istioChartConfigMap(c.options));
      plain.set(key, await loadConfig(file));
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const plainFor = (o: IstioChartOptions) => plain.get(JSON.stringify(o))!;

  it('is detected as Istio: post-processing on, native sidecars from values.pilot.env', () => {
    const c = plainFor({});
    assert.equal(c.compatibility.mode, 'istio');
    assert.match(c.compatibility.reason, /istio-sidecar-injector/);
    assert.equal(c.nativeSidecars, true);
    assert.equal(plainFor({ nativeSidecars: false }).nativeSidecars, false);
    assert.equal(c.values.istioPostProcessing, undefined);
  });

  it('gives the same result as the explicit keys on every pod template of every case', () => {
    let compared = 0;
    for (const c of istioCases()) {
      const explicit = istioChartConfig(c.options);
      const dropIn = plainFor(c.options);
      for (const { pod, ctx, owner } of casePods(c)) {
        // The template hash covers the values, which differ by the explicit key: mask it.
        const run = (config: LoadedConfig) => {
          try {
            const r = injectPod(pod, ctx, config);
            const text = JSON.stringify(r.kind === 'injected' ? { kind: r.kind, pod: r.pod, patch: r.patch } : { kind: r.kind, reason: r.decision.reason });
            return text.replace(/(templateHash\\*":\\*")[0-9a-f]{16}/g, '$1HASH');
          } catch (err) {
            return `error ${err instanceof InjectorError ? err.code : String(err)}`;
          }
        };
        const ours = run(dropIn);
        if (ours.startsWith('{"kind":"injected"')) assert.ok(ours.includes('HASH'), 'the template hash is masked');
        assert.equal(ours, run(explicit), `${c.want || c.in} ${owner.kind}/${owner.name}`);
        compared++;
      }
    }
    assert.ok(compared > 100, `only ${compared} pod templates compared`);
  });

  it('passes the conformance gate as the explicit config does', () => {
    const s = summarize(istioCases().map((c) => runIstioCase(c, ISTIO_INJECT_DIR, plainFor)));
    const t = summarize(istioCases().map((c) => runIstioCase(c)));
    assert.deepEqual(s.mismatches, []);
    assert.equal(s.errorCasesMatched, s.errorCases);
    assert.equal(s.identical, t.identical);
    assert.equal(s.statusMatched, t.statusMatched);
  });
});
