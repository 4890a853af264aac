/**
 * The policy's selection (bindings + match conditions) against the core's `decide`, on Istio's
 * decision table (../shared/conformance/istio/inject-required.yaml) and on a table of our own,
 * with the CEL evaluated offline by an independent CEL implementation (@marcbachmann/cel-js).
 * The e2e scenario 17-policy runs the same table through the real apiserver.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { evaluate } from '@marcbachmann/cel-js';
import { parse } from 'yaml';
import { compileSelector, selectorMatches } from '../config/selector.js';
import type { LoadedConfig } from '../config/types.js';
import { decide } from '../inject/decide.js';
import { webhookScopes } from '../install/webhook-rules.js';
import { decisionConfig } from '../../test/support/decision-config.js';
import { policyMatchConditions } from './match.js';

interface Pod {
  namespace: string;
  hostNetwork?: boolean;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** Does the policy inject this pod in a namespace with these labels? As the apiserver decides: a binding selects it and every condition holds. */
function policyInjects(config: LoadedConfig, pod: Pod, nsLabels: Record<string, string>): boolean {
  const podLabels = new Map(Object.entries(pod.labels));
  const nsMap = new Map(Object.entries({ ...nsLabels, 'kubernetes.io/metadata.name': pod.namespace }));
  const scopes = webhookScopes(config.injectionKeys, { injectorNamespace: '', excludedNamespaces: config.ignoredNamespaces, matchConditions: false });
  const bound = scopes.some(
    (s) => selectorMatches(compileSelector(s.namespaceSelector), nsMap) && selectorMatches(compileSelector(s.objectSelector), podLabels),
  );
  if (!bound) return false;
  // The apiserver omits empty maps and false booleans from the object CEL sees.
  const metadata: Record<string, unknown> = { namespace: pod.namespace };
  if (Object.keys(pod.labels).length > 0) metadata.labels = pod.labels;
  if (Object.keys(pod.annotations).length > 0) metadata.annotations = pod.annotations;
  const object = { metadata, spec: pod.hostNetwork ? { hostNetwork: true } : {} };
  return policyMatchConditions(config).every((c) => {
    const v = evaluate(c.expression, { object, request: { namespace: pod.namespace } });
    assert.equal(typeof v, 'boolean', `${c.name} evaluates to a boolean`);
    return v === true;
  });
}

function coreInjects(config: LoadedConfig, pod: Pod): boolean {
  const obj = { metadata: { namespace: pod.namespace, labels: pod.labels, annotations: pod.annotations }, spec: { hostNetwork: pod.hostNetwork ?? false } };
  return decide(obj, { namespace: pod.namespace, mode: 'webhook' }, config).inject;
}

const TABLE = fileURLToPath(new URL('../../../shared/conformance/istio/inject-required.yaml', import.meta.url));

describe('policy selection == decide, Istio decision table', { skip: existsSync(TABLE) ? false : `no ${TABLE}` }, () => {
  if (!existsSync(TABLE)) return;
  const cases = (parse(readFileSync(TABLE, 'utf8')) as { cases: { name: string; config: Record<string, unknown>; pod: Pod; inject: boolean }[] }).cases;
  for (const c of cases) {
    it(c.name, () => {
      const config = decisionConfig(c.config, { invalidSelectors: 'skip', invalidPolicy: 'off' });
      assert.equal(coreInjects(config, c.pod), c.inject, 'the core agrees with the table');
      // In an opted-in namespace the pod reaches the policy as it reaches the webhook.
      assert.equal(policyInjects(config, c.pod, { 'istio-injection': 'enabled' }), c.inject);
    });
  }
});

describe('policy selection == webhook scopes + decide, our table', () => {
  const keys = {
    inject: 'x.example.com/inject',
    status: 'x.example.com/status',
    templates: 'x.example.com/t',
    namespaceLabel: 'x-injection',
    revisionLabel: 'x.example.com/rev',
  };
  const configs = {
    enabled: decisionConfig({ policy: 'enabled', injectionKeys: keys, ignoredNamespaces: ['infra'] }),
    disabled: decisionConfig({
      policy: 'disabled',
      injectionKeys: keys,
      alwaysInjectSelector: [{ matchLabels: { tier: 'web' } }],
      neverInjectSelector: [{ matchExpressions: [{ key: 'legacy', operator: 'Exists' }] }],
    }),
    off: decisionConfig({ policy: 'off', injectionKeys: keys }, { invalidPolicy: 'off' }),
    // The tutorial's opt-in values, in any case (examples/nginx-sidecar).
    tutorial: decisionConfig({ policy: 'disabled', injectionKeys: keys, injectionValues: { inject: ['y', 'yes', 'true', 'on'], injected: ['injected'] } }),
  };
  const nsOn = { 'x-injection': 'enabled' };
  const rows: [keyof typeof configs, Pod, Record<string, string>, boolean][] = [
    ['enabled', { namespace: 'a', labels: {}, annotations: {} }, nsOn, true],
    ['enabled', { namespace: 'a', labels: {}, annotations: {} }, {}, false], // unlabelled namespace, pod did not opt in
    ['enabled', { namespace: 'a', labels: { 'x.example.com/inject': 'true' }, annotations: {} }, {}, true], // opted in by label
    ['enabled', { namespace: 'a', labels: {}, annotations: { 'x.example.com/inject': 'true' } }, {}, false], // an annotation does not reach the object scope
    ['enabled', { namespace: 'a', labels: { 'x.example.com/inject': 'true' }, annotations: {} }, { 'x.example.com/rev': 'canary' }, false],
    ['enabled', { namespace: 'a', labels: {}, annotations: { 'x.example.com/inject': 'false' } }, nsOn, false],
    ['enabled', { namespace: 'a', labels: { 'x.example.com/inject': 'yes' }, annotations: { 'x.example.com/inject': 'false' } }, nsOn, true], // label present: annotation not read
    ['enabled', { namespace: 'a', hostNetwork: true, labels: {}, annotations: {} }, nsOn, false],
    ['enabled', { namespace: 'a', labels: {}, annotations: { 'kubernetes.io/config.mirror': 'x' } }, nsOn, false],
    ['enabled', { namespace: 'a', labels: {}, annotations: { 'x.example.com/status': '{}' } }, nsOn, false], // already injected
    ['enabled', { namespace: 'infra', labels: {}, annotations: {} }, nsOn, false],
    ['enabled', { namespace: 'kube-system', labels: { 'x.example.com/inject': 'true' }, annotations: {} }, {}, false],
    ['disabled', { namespace: 'a', labels: { tier: 'web' }, annotations: {} }, nsOn, true],
    ['disabled', { namespace: 'a', labels: { tier: 'web', legacy: '' }, annotations: {} }, nsOn, false],
    ['disabled', { namespace: 'a', labels: { tier: 'web', legacy: '', 'x.example.com/inject': 'true' }, annotations: {} }, nsOn, true],
    ['disabled', { namespace: 'a', labels: { tier: 'db' }, annotations: {} }, nsOn, false],
    ['off', { namespace: 'a', labels: { 'x.example.com/inject': 'true' }, annotations: {} }, nsOn, false],
    ['tutorial', { namespace: 'a', labels: {}, annotations: { 'x.example.com/inject': 'Yes' } }, nsOn, true],
    ['tutorial', { namespace: 'a', labels: { 'x.example.com/inject': 'ON' }, annotations: {} }, nsOn, true],
    ['tutorial', { namespace: 'a', labels: {}, annotations: { 'x.example.com/inject': 'y' } }, nsOn, true],
    ['tutorial', { namespace: 'a', labels: {}, annotations: { 'x.example.com/inject': 'yess' } }, nsOn, false],
    ['tutorial', { namespace: 'a', labels: {}, annotations: { 'x.example.com/inject': 'False' } }, nsOn, false],
    ['tutorial', { namespace: 'a', labels: {}, annotations: {} }, nsOn, false],
    ['tutorial', { namespace: 'a', labels: {}, annotations: { 'x.example.com/inject': 'yes', 'x.example.com/status': 'injected' } }, nsOn, false],
  ];
  rows.forEach(([name, pod, ns, expected], i) => {
    it(`row ${i}: ${name} ${JSON.stringify(pod)} in ${JSON.stringify(ns)} -> ${expected}`, () => {
      const config = configs[name];
      assert.equal(policyInjects(config, pod, ns), expected);
      // Where the webhook would be called, the core must agree (the already-injected pod is the core's re-injection case).
      const reached = webhookScopes(config.injectionKeys, { injectorNamespace: '', excludedNamespaces: config.ignoredNamespaces, matchConditions: false }).some(
        (s) =>
          selectorMatches(compileSelector(s.namespaceSelector), new Map(Object.entries({ ...ns, 'kubernetes.io/metadata.name': pod.namespace }))) &&
          selectorMatches(compileSelector(s.objectSelector), new Map(Object.entries(pod.labels))),
      );
      if (!('x.example.com/status' in pod.annotations)) assert.equal(reached && coreInjects(config, pod), expected);
    });
  });
});
