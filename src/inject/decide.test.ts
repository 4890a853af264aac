import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decisionConfig } from '../../test/support/decision-config.js';
import { DECIDE_REASONS, decide } from './decide.js';
import type { Decision, DecisionReason } from './types.js';

const KEY = 'sidecar.istio.io/inject';
const enabled = decisionConfig({ policy: 'enabled' });
const disabled = decisionConfig({ policy: 'disabled' });
const webhook = { namespace: 'apps', mode: 'webhook' } as const;
const manual = { namespace: 'apps', mode: 'manual' } as const;

function pod(opts: { labels?: unknown; annotations?: unknown; namespace?: unknown; hostNetwork?: unknown } = {}) {
  const metadata: Record<string, unknown> = { name: 'p' };
  if (opts.labels !== undefined) metadata.labels = opts.labels;
  if (opts.annotations !== undefined) metadata.annotations = opts.annotations;
  if (opts.namespace !== undefined) metadata.namespace = opts.namespace;
  const spec: Record<string, unknown> = { containers: [{ name: 'app', image: 'app' }] };
  if (opts.hostNetwork !== undefined) spec.hostNetwork = opts.hostNetwork;
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

function expect(d: Decision, inject: boolean, reason: DecisionReason) {
  assert.equal(d.inject, inject, d.message);
  assert.equal(d.reason, reason, d.message);
}

describe('decide: hard skips', () => {
  it('refuses things that are not pods without throwing', () => {
    for (const thing of [null, undefined, 'pod', 42, [], [pod()]]) expect(decide(thing, webhook, enabled), false, 'not-a-pod');
  });

  it('skips mirror pods even when they ask for the sidecar', () => {
    const d = decide(pod({ labels: { [KEY]: 'true' }, annotations: { 'kubernetes.io/config.mirror': 'abc' } }), webhook, enabled);
    expect(d, false, 'mirror-pod');
    assert.match(d.message, /mirror pod/);
  });

  it('skips a mirror pod whose annotation value is not a string (YAML turned it into a number, boolean, map...)', () => {
    // The annotation's presence is what counts: a non-string value is invalid, not absent.
    for (const value of [1, true, null, { a: 1 }, ['x']]) {
      const d = decide(pod({ labels: { [KEY]: 'true' }, annotations: { 'kubernetes.io/config.mirror': value } }), webhook, enabled);
      expect(d, false, 'mirror-pod');
    }
  });

  it('skips host-network pods, before anything else is read, in both modes', () => {
    expect(decide(pod({ hostNetwork: true, labels: { [KEY]: 'true' } }), webhook, enabled), false, 'host-network');
    expect(decide(pod({ hostNetwork: true }), manual, enabled), false, 'host-network');
  });

  it('treats a non-boolean hostNetwork as false, with a warning', () => {
    const d = decide(pod({ hostNetwork: 'true' }), webhook, enabled);
    expect(d, true, 'policy-enabled');
    assert.ok(d.warnings.some((w) => /hostNetwork is not a boolean/.test(w)));
  });

  it("skips Istio's ignored namespaces, using the request namespace when the pod has none", () => {
    expect(decide(pod({ namespace: 'kube-system' }), webhook, enabled), false, 'ignored-namespace');
    const d = decide(pod(), { namespace: 'kube-public', mode: 'webhook' }, enabled);
    expect(d, false, 'ignored-namespace');
    assert.ok(d.steps.some((s) => s.check === 'namespace' && /from the request/.test(s.found)));
    // The pod's own namespace wins over the request's.
    expect(decide(pod({ namespace: 'apps' }), { namespace: 'kube-system', mode: 'webhook' }, enabled), true, 'policy-enabled');
  });

  it('skips the namespaces a config adds (e.g. the injector own), keeping Istio four', () => {
    const cfg = decisionConfig({ policy: 'enabled', ignoredNamespaces: ['sidecar-injector'] });
    expect(decide(pod({ namespace: 'sidecar-injector', labels: { [KEY]: 'true' } }), webhook, cfg), false, 'ignored-namespace');
    expect(decide(pod({ namespace: 'kube-node-lease' }), webhook, cfg), false, 'ignored-namespace');
    expect(decide(pod({ namespace: 'apps' }), webhook, cfg), true, 'policy-enabled');
  });
});

describe('decide: the pod choice', () => {
  it('reads exactly "true"/"false" from the label, else the annotation', () => {
    expect(decide(pod({ annotations: { [KEY]: 'true' } }), webhook, disabled), true, 'explicit-enabled');
    expect(decide(pod({ labels: { [KEY]: 'false' } }), webhook, enabled), false, 'explicit-disabled');
    const d = decide(pod({ labels: { [KEY]: 'true' }, annotations: { [KEY]: 'false' } }), webhook, disabled);
    expect(d, true, 'explicit-enabled');
    assert.ok(
      d.warnings.some((w) => /overrides annotation/.test(w)),
      'conflict is pointed out',
    );
  });

  it('lets an empty or invalid label hide the annotation, and says so', () => {
    const d = decide(pod({ labels: { [KEY]: '' }, annotations: { [KEY]: 'true' } }), webhook, disabled);
    expect(d, false, 'policy-disabled');
    assert.ok(
      d.warnings.some((w) => /label sidecar\.istio\.io\/inject="" overrides annotation/.test(w)),
      d.warnings.join('|'),
    );
  });

  for (const [value, write] of [
    ['yes', 'true'],
    ['TRUE', 'true'],
    ['enabled', 'true'],
    ['off', 'false'],
    ['No', 'false'],
  ] as const) {
    it(`warns that "${value}" is not understood and says to write "${write}"`, () => {
      const d = decide(pod({ labels: { [KEY]: value } }), webhook, disabled);
      expect(d, false, 'policy-disabled');
      const w = d.warnings.find((x) => x.includes(`"${value}"`));
      assert.ok(w, d.warnings.join('|'));
      assert.match(w, new RegExp(`Write "${write}"`));
      assert.ok(w.length <= 120, `warning too long: ${w}`);
    });
  }

  it('warns about other junk values without guessing', () => {
    const d = decide(pod({ annotations: { [KEY]: 'random' } }), webhook, enabled);
    expect(d, true, 'policy-enabled');
    assert.ok(d.warnings.some((w) => /"random" ignored/.test(w) && !/Write/.test(w)));
  });

  it('does not crash on non-string labels/annotations; the value counts as invalid', () => {
    const d = decide(pod({ labels: { [KEY]: true, app: 3 }, annotations: ['x'] }), webhook, disabled);
    expect(d, false, 'policy-disabled');
    assert.ok(d.warnings.some((w) => /metadata\.annotations is a list/.test(w)));
    assert.ok(d.warnings.some((w) => /not a string; ignored/.test(w)));
    expect(decide({ metadata: 'x', spec: 7 }, webhook, enabled), true, 'policy-enabled');
  });

  it('points out the namespace label used on a pod and misspelt keys', () => {
    const d = decide(pod({ labels: { 'istio-injection': 'enabled' }, annotations: { 'sidecar.istio.io/Inject': 'false' } }), webhook, enabled);
    expect(d, true, 'policy-enabled');
    assert.ok(d.warnings.some((w) => /istio-injection does nothing on a pod/.test(w)));
    assert.ok(d.warnings.some((w) => /"sidecar\.istio\.io\/Inject" is not read; did you mean sidecar\.istio\.io\/inject/.test(w)));
  });

  it('uses renamed keys and then ignores the Istio ones', () => {
    const cfg = decisionConfig({ policy: 'disabled', injectionKeys: { inject: 'mesh.example.com/inject', namespaceLabel: 'mesh-injection' } });
    expect(decide(pod({ labels: { 'mesh.example.com/inject': 'true' } }), webhook, cfg), true, 'explicit-enabled');
    expect(decide(pod({ labels: { [KEY]: 'true' } }), webhook, cfg), false, 'policy-disabled');
  });
});

describe('decide: selectors and policy', () => {
  const cfg = decisionConfig({
    policy: 'disabled',
    neverInjectSelector: [{ matchLabels: { legacy: 'yes-really' } }],
    alwaysInjectSelector: [{ matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] }],
  });

  it('consults never then always, only without an explicit choice', () => {
    expect(decide(pod({ labels: { app: 'web' } }), webhook, cfg), true, 'always-inject-selector');
    expect(decide(pod({ labels: { app: 'web', legacy: 'yes-really' } }), webhook, cfg), false, 'never-inject-selector');
    expect(decide(pod({ labels: { app: 'web', [KEY]: 'false' } }), webhook, cfg), false, 'explicit-disabled');
    expect(decide(pod({ labels: { app: 'db' } }), webhook, cfg), false, 'policy-disabled');
  });

  it('records each selector tried in the steps', () => {
    const d = decide(pod({ labels: { app: 'api' } }), webhook, cfg);
    const checks = d.steps.map((s) => s.check);
    assert.ok(checks.includes('neverInjectSelector[0]') && checks.includes('alwaysInjectSelector[0]'), checks.join(','));
    assert.match(d.message, /alwaysInjectSelector\[0\] \(app in \(api,web\)\)/);
  });

  it('turns injection off for an unknown policy, even when asked, and says why', () => {
    const bad = decisionConfig({ policy: 'on' }, { invalidPolicy: 'off' });
    const d = decide(pod({ labels: { [KEY]: 'true' } }), webhook, bad);
    expect(d, false, 'policy-invalid');
    assert.ok(d.warnings.some((w) => /policy "on" is not enabled\/disabled/.test(w)));
    assert.ok(
      bad.warnings.some((w) => /policy: "on" is not "enabled" or "disabled"/.test(w)),
      bad.warnings.join('|'),
    );
  });

  it('manual mode forces policy enabled and ignores selectors, like istioctl kube-inject', () => {
    expect(decide(pod({ labels: { legacy: 'yes-really' } }), manual, cfg), true, 'policy-enabled');
    expect(decide(pod(), manual, decisionConfig({ policy: 'nonsense' }, { invalidPolicy: 'off' })), true, 'policy-enabled');
    expect(decide(pod({ annotations: { [KEY]: 'false' } }), manual, cfg), false, 'explicit-disabled');
    expect(decide(pod({ namespace: 'kube-system' }), manual, cfg), false, 'ignored-namespace');
  });

  it('explains a decision step by step, in order', () => {
    const d = decide(pod({ labels: { [KEY]: 'true' } }), webhook, enabled);
    assert.deepEqual(
      d.steps.map((s) => s.check),
      ['annotation kubernetes.io/config.mirror', 'spec.hostNetwork', 'namespace', `label ${KEY}`, `annotation ${KEY}`, 'policy'],
    );
    assert.equal(d.steps[3].effect, 'explicit yes');
  });
});

describe('decide: reasons and robustness', () => {
  it('produces every reason it declares, and only reasons of the DecisionReason union', () => {
    // Compile-time check: this record must list the whole union, no more, no less.
    const union = {
      'host-network': 1,
      'ignored-namespace': 1,
      'mirror-pod': 1,
      'explicit-enabled': 1,
      'explicit-disabled': 1,
      'never-inject-selector': 1,
      'always-inject-selector': 1,
      'policy-enabled': 1,
      'policy-disabled': 1,
      'policy-invalid': 1,
      'already-injected': 1,
      'not-a-pod': 1,
      'namespace-not-selected': 1,
      'object-not-selected': 1,
    } satisfies Record<DecisionReason, 1>;
    const sel = decisionConfig({ policy: 'enabled', neverInjectSelector: [{ matchLabels: { a: 'n' } }], alwaysInjectSelector: [{ matchLabels: { a: 'y' } }] });
    const seen = new Set<DecisionReason>([
      decide(7, webhook, enabled).reason,
      decide(pod({ annotations: { 'kubernetes.io/config.mirror': '' } }), webhook, enabled).reason,
      decide(pod({ hostNetwork: true }), webhook, enabled).reason,
      decide(pod({ namespace: 'kube-system' }), webhook, enabled).reason,
      decide(pod({ labels: { [KEY]: 'true' } }), webhook, enabled).reason,
      decide(pod({ labels: { [KEY]: 'false' } }), webhook, enabled).reason,
      decide(pod({ labels: { a: 'n' } }), webhook, sel).reason,
      decide(pod({ labels: { a: 'y' } }), webhook, sel).reason,
      decide(pod(), webhook, enabled).reason,
      decide(pod(), webhook, disabled).reason,
      decide(pod(), webhook, decisionConfig({ policy: '' }, { invalidPolicy: 'off' })).reason,
      decide(pod({ annotations: { 'sidecar.istio.io/status': 'injected' } }), webhook, {
        ...enabled,
        injectionValues: { inject: null, injected: ['injected'] },
      }).reason,
    ]);
    assert.deepEqual([...seen].sort(), [...DECIDE_REASONS].sort());
    for (const r of DECIDE_REASONS) assert.ok(Object.hasOwn(union, r), r);
  });

  it('never throws on arbitrary input, and its warnings are short printable ASCII', () => {
    const value = fc.oneof(fc.constantFrom('true', 'false', '', 'yes', 'TRUE'), fc.string(), fc.anything());
    const map = fc.oneof(
      fc.dictionary(fc.oneof(fc.constantFrom(KEY, 'istio-injection', 'sidecar.istio.io/injekt', '__proto__'), fc.string()), value),
      fc.anything(),
    );
    const arbPod = fc.oneof(
      fc.record(
        {
          metadata: fc.record({ labels: map, annotations: map, namespace: fc.oneof(fc.string(), fc.anything()) }, { requiredKeys: [] }),
          spec: fc.record({ hostNetwork: fc.anything() }, { requiredKeys: [] }),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    fc.assert(
      fc.property(arbPod, fc.constantFrom('webhook', 'manual'), (p, mode) => {
        const d = decide(p, { namespace: 'apps', mode: mode as 'webhook' | 'manual' }, enabled);
        assert.ok((DECIDE_REASONS as readonly string[]).includes(d.reason));
        assert.ok(d.message.length > 0 && d.steps.length > 0);
        for (const w of d.warnings) assert.match(w, /^[\x20-\x7e]{1,200}$/, w);
      }),
      { numRuns: 2000 },
    );
  });

  it('stays fast on a pod with 20,000 labels and annotations (complexity guard)', () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 20_000; i++) many[`example.com/key-${i}`] = `v${i}`;
    const sel = decisionConfig({
      policy: 'enabled',
      neverInjectSelector: [{ matchExpressions: [{ key: 'example.com/key-19999', operator: 'NotIn', values: ['v19999'] }] }],
    });
    const start = process.hrtime.bigint();
    const d = decide(pod({ labels: many, annotations: many }), webhook, sel);
    assert.ok(Number(process.hrtime.bigint() - start) / 1e6 < 1000);
    expect(d, true, 'policy-enabled');
  });

  it('with policy enabled and no selectors, injects unless the effective value is exactly "false"', () => {
    const v = fc.option(fc.oneof(fc.constantFrom('true', 'false', '', 'False'), fc.string()), { nil: undefined });
    fc.assert(
      fc.property(v, v, (label, annotation) => {
        const labels = label === undefined ? {} : { [KEY]: label };
        const annotations = annotation === undefined ? {} : { [KEY]: annotation };
        const effective = label !== undefined ? label : annotation;
        assert.equal(decide(pod({ labels, annotations }), webhook, enabled).inject, effective !== 'false');
        assert.equal(decide(pod({ labels, annotations }), webhook, disabled).inject, effective === 'true');
      }),
    );
  });
});
