/**
 * Istio conformance: every case of ../shared/conformance/istio/inject-required.yaml (Istio's
 * TestInjectRequired plus added cases) through `decide`, webhook mode, config from the case.
 * Skips cleanly when the shared data is not there (e.g. a packaged checkout).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { ISTIO_IGNORED_NAMESPACES } from '../config/istio-names.js';
import { decisionConfig } from '../../test/support/decision-config.js';
import { decide } from './decide.js';
import type { DecisionReason } from './types.js';

const TABLE = fileURLToPath(new URL('../../../shared/conformance/istio/inject-required.yaml', import.meta.url));

interface Case {
  name: string;
  source: string;
  config: { policy: string; neverInjectSelector: unknown[]; alwaysInjectSelector: unknown[] };
  pod: { namespace: string; hostNetwork: boolean; labels: Record<string, string>; annotations: Record<string, string> };
  inject: boolean;
}

/**
 * The reasons a correct answer may carry, derived from the case data alone: the hard skips
 * and an unknown policy each have one reason; otherwise the reason must agree with the outcome,
 * and with no inject key and no selectors only the policy can have decided.
 */
function expectedReasons(c: Case): DecisionReason[] {
  if (c.pod.hostNetwork) return ['host-network'];
  if (ISTIO_IGNORED_NAMESPACES.includes(c.pod.namespace)) return ['ignored-namespace'];
  if (c.config.policy !== 'enabled' && c.config.policy !== 'disabled') return ['policy-invalid'];
  const key = 'sidecar.istio.io/inject';
  const untouched =
    !(key in c.pod.labels) && !(key in c.pod.annotations) && c.config.neverInjectSelector.length === 0 && c.config.alwaysInjectSelector.length === 0;
  if (untouched) return [c.inject ? 'policy-enabled' : 'policy-disabled'];
  return c.inject ? ['explicit-enabled', 'always-inject-selector', 'policy-enabled'] : ['explicit-disabled', 'never-inject-selector', 'policy-disabled'];
}

const present = existsSync(TABLE);
describe('Istio injectRequired conformance (inject-required.yaml)', { skip: present ? false : `conformance data not found at ${TABLE}` }, () => {
  if (!present) return;
  const cases = (parse(readFileSync(TABLE, 'utf8')) as { cases: Case[] }).cases;

  it('has the 36 Istio cases and the added ones', () => {
    assert.equal(cases.filter((c) => c.source === 'istio').length, 36);
    assert.ok(cases.length >= 70, `only ${cases.length} cases`);
  });

  for (const c of cases) {
    it(c.name, () => {
      // Istio skips invalid selectors at decision time, so the case configs load in skip mode.
      const config = decisionConfig(c.config, { invalidSelectors: 'skip', invalidPolicy: 'off' });
      const pod = { metadata: { namespace: c.pod.namespace, labels: c.pod.labels, annotations: c.pod.annotations }, spec: { hostNetwork: c.pod.hostNetwork } };
      const d = decide(pod, { namespace: 'request-namespace', mode: 'webhook' }, config);
      assert.equal(d.inject, c.inject, `inject: ${d.message}\n${JSON.stringify(d.steps, null, 1)}`);
      assert.ok(expectedReasons(c).includes(d.reason), `reason ${d.reason} not in ${expectedReasons(c).join(', ')}`);
    });
  }
});
