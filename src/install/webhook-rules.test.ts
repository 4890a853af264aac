import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ISTIO_INJECTION_KEYS } from '../config/istio-names.js';
import { compileSelector, selectorMatches } from '../config/selector.js';
import { evaluateScopes, excludedNamespaceList, NAMESPACE_NAME_LABEL, webhookScopes, type WebhookScope } from './webhook-rules.js';

const keys = ISTIO_INJECTION_KEYS;
const INJ = keys.inject;
const NSL = keys.namespaceLabel;
const REV = keys.revisionLabel;
const scopes = webhookScopes(keys, { injectorNamespace: 'sidecar-injector' });
const reached = (s: WebhookScope[], nsName: string, nsLabels: Record<string, string>, pod: Record<string, string>, podObj?: unknown) =>
  evaluateScopes(s, { name: nsName, labels: nsLabels }, pod, podObj);

describe('webhookScopes', () => {
  it('writes Istio-style namespace. and object. entries, both excluding system and own namespaces', () => {
    assert.deepEqual(
      scopes.map((s) => s.name),
      ['namespace.sidecar-injector.io', 'object.sidecar-injector.io'],
    );
    for (const s of scopes) {
      const exclusion = s.namespaceSelector.matchExpressions!.find((e) => e.key === NAMESPACE_NAME_LABEL);
      assert.deepEqual(exclusion, {
        key: NAMESPACE_NAME_LABEL,
        operator: 'NotIn',
        values: ['kube-node-lease', 'kube-public', 'kube-system', 'local-path-storage', 'sidecar-injector'],
      });
      assert.equal(compileSelector(s.namespaceSelector).state, 'ok', 'valid Kubernetes selector');
      assert.equal(compileSelector(s.objectSelector).state, 'ok');
      assert.deepEqual(
        s.matchConditions?.map((c) => c.name),
        ['not-mirror-pod', 'not-host-network'],
      );
    }
  });
  it('adds auto. only when namespaces are enabled by default, and omits matchConditions on request', () => {
    const s = webhookScopes(keys, { injectorNamespace: 'x', enableNamespacesByDefault: true, matchConditions: false, webhookDomain: 'inj.example.com' });
    assert.deepEqual(
      s.map((w) => w.name),
      ['namespace.inj.example.com', 'object.inj.example.com', 'auto.inj.example.com'],
    );
    assert.ok(s.every((w) => w.matchConditions === undefined));
  });
  it('follows renamed keys', () => {
    const renamed = { ...keys, inject: 'example.com/inject', namespaceLabel: 'example-injection', revisionLabel: 'example.com/rev' };
    const text = JSON.stringify(webhookScopes(renamed, { injectorNamespace: 'x' }));
    assert.ok(!text.includes('istio'), text);
    assert.ok(text.includes('example-injection') && text.includes('example.com/inject'));
  });
  it('merges extra exclusions without duplicates', () => {
    assert.deepEqual(excludedNamespaceList({ injectorNamespace: 'kube-system', excludedNamespaces: ['b', 'a', 'b'] }), [
      'a',
      'b',
      'kube-node-lease',
      'kube-public',
      'kube-system',
      'local-path-storage',
    ]);
  });
});

describe('evaluateScopes', () => {
  it('sends pods of an enabled namespace unless they opt out by label', () => {
    const r = reached(scopes, 'shop', { [NSL]: 'enabled' }, { app: 'web' });
    assert.equal(r.reached, true);
    assert.equal(r.via, 'namespace.sidecar-injector.io');
    assert.equal(reached(scopes, 'shop', { [NSL]: 'enabled' }, { [INJ]: 'false' }).reached, false);
    // Any other label value does not opt out at this layer (the injector decides).
    assert.equal(reached(scopes, 'shop', { [NSL]: 'enabled' }, { [INJ]: 'yes' }).reached, true);
  });
  it('sends opted-in pods of an unlabelled namespace, nothing else', () => {
    assert.equal(reached(scopes, 'shop', {}, { [INJ]: 'true' }).via, 'object.sidecar-injector.io');
    assert.equal(reached(scopes, 'shop', {}, {}).reached, false);
    assert.equal(reached(scopes, 'shop', {}, { [INJ]: 'true', [REV]: 'canary' }).reached, false, 'a revision label belongs to another injector');
    assert.equal(reached(scopes, 'shop', { [REV]: 'canary' }, { [INJ]: 'true' }).reached, false);
  });
  it('a disabled namespace blocks even pods labelled inject=true (as Istio)', () => {
    const r = reached(scopes, 'shop', { [NSL]: 'disabled' }, { [INJ]: 'true' });
    assert.equal(r.reached, false);
    assert.ok(
      r.steps.some((s) => s.found.includes(`${NSL}=disabled`) && s.effect.includes('not called')),
      JSON.stringify(r.steps),
    );
  });
  it('never sends pods of system namespaces or of the injector itself, whatever their labels', () => {
    for (const ns of ['kube-system', 'kube-public', 'kube-node-lease', 'local-path-storage', 'sidecar-injector']) {
      assert.equal(reached(scopes, ns, { [NSL]: 'enabled' }, { [INJ]: 'true' }).reached, false, ns);
      assert.equal(reached(scopes, ns, {}, { [INJ]: 'true' }).reached, false, ns);
    }
  });
  it('explains the namespace-name label it assumes', () => {
    const r = reached(scopes, 'shop', { [NSL]: 'enabled' }, {});
    assert.match(r.steps[0].found, /apiserver sets it to "shop"/);
  });
  it('evaluates our matchConditions when given the pod', () => {
    const hostNet = { metadata: { name: 'p' }, spec: { hostNetwork: true, containers: [] } };
    const r = reached(scopes, 'shop', { [NSL]: 'enabled' }, {}, hostNet);
    assert.equal(r.reached, false);
    assert.ok(r.steps.some((s) => s.check.includes('not-host-network') && s.effect.includes('false')));
    const mirror = { metadata: { annotations: { 'kubernetes.io/config.mirror': 'abc' } }, spec: {} };
    assert.equal(reached(scopes, 'shop', { [NSL]: 'enabled' }, {}, mirror).reached, false);
    assert.equal(reached(scopes, 'shop', { [NSL]: 'enabled' }, {}, { metadata: {}, spec: {} }).reached, true);
    // Without a pod the conditions are assumed true and said so.
    assert.ok(reached(scopes, 'shop', { [NSL]: 'enabled' }, {}).steps.some((s) => s.found === 'no pod spec given'));
  });
  it('with auto., unlabelled pods in unlabelled namespaces are sent; the entries stay disjoint', () => {
    const all = webhookScopes(keys, { injectorNamespace: 'inj', enableNamespacesByDefault: true });
    assert.equal(reached(all, 'shop', {}, {}).via, 'auto.sidecar-injector.io');
    assert.equal(reached(all, 'shop', {}, { [INJ]: 'false' }).reached, false);
    assert.equal(reached(all, 'kube-system', {}, {}).reached, false);
  });
  it('empty selectors match everything (webhook semantics, unlike never/always selectors)', () => {
    const open: WebhookScope[] = [{ name: 'all.example.com', namespaceSelector: {}, objectSelector: {} }];
    assert.equal(reached(open, 'kube-system', {}, {}).reached, true);
  });

  // Property: the explanation agrees with whole-selector matching, and at most one entry matches.
  it('agrees with plain LabelSelector matching and the entries are disjoint (property)', () => {
    const all = webhookScopes(keys, { injectorNamespace: 'inj', enableNamespacesByDefault: true, matchConditions: false });
    const nsName = fc.constantFrom('shop', 'kube-system', 'inj', 'default');
    const nsLabel = fc.record({ [NSL]: fc.constantFrom('enabled', 'disabled', ''), [REV]: fc.constantFrom('canary') }, { requiredKeys: [] });
    const podLabel = fc.record(
      { [INJ]: fc.constantFrom('true', 'false', 'TRUE', ''), [REV]: fc.constantFrom('canary'), app: fc.constantFrom('web') },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(nsName, nsLabel, podLabel, (name, nsl, pl) => {
        const nsMap = new Map(Object.entries({ ...(nsl as Record<string, string>), [NAMESPACE_NAME_LABEL]: name }));
        const podMap = new Map(Object.entries(pl as Record<string, string>));
        const matching = all.filter(
          (s) => selectorMatches(compileSelector(s.namespaceSelector), nsMap) && selectorMatches(compileSelector(s.objectSelector), podMap),
        );
        assert.ok(matching.length <= 1, `entries overlap: ${matching.map((m) => m.name).join(', ')}`);
        const r = reached(all, name, nsl as Record<string, string>, pl as Record<string, string>);
        assert.equal(r.reached, matching.length === 1);
        assert.equal(r.via, matching[0]?.name);
        if (['kube-system', 'inj'].includes(name)) assert.equal(r.reached, false);
      }),
    );
  });
});
