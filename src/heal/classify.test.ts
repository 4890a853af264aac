/**
 * classifyPod on pods produced by the real injectPod (the webhook's own path), then "admitted"
 * the way the apiserver stores them (named, defaults filled in), against the built-in config
 * and changed configs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig } from '../profiles/index.js';
import type { LoadedConfig } from '../config/types.js';
import { injectPod } from '../inject/pipeline.js';
import { webhookScopes } from '../install/webhook-rules.js';
import { defaultConfigWith, replicaSetPod, templatesConfig } from '../../test/support/inject-fixtures.js';
import { cloneJson, type JsonObject } from '../util/json.js';
import { classifyPod, type ClassifyContext } from './classify.js';

type Obj = Record<string, unknown>;

const BASE = defaultConfig();
const scopes = (config: LoadedConfig) => webhookScopes(config.injectionKeys, { injectorNamespace: 'sidecar-injector' });
const ENABLED = { 'istio-injection': 'enabled' };

function ctx(config: LoadedConfig = BASE, namespaceLabels: Record<string, string> = ENABLED): ClassifyContext {
  return { config, scopes: scopes(config), namespaceLabels };
}

/** What the apiserver stores after admission: a name from generateName, the namespace, defaults. */
function admitted(pod: JsonObject, name = 'shop-7d9f8b6c5-abcde'): JsonObject {
  const p = cloneJson(pod) as Obj;
  const meta = p.metadata as Obj;
  meta.name = name;
  meta.namespace = 'shop';
  meta.uid = 'pod-uid';
  meta.creationTimestamp = '2026-11-25T12:00:00Z';
  const spec = p.spec as Obj;
  for (const list of ['containers', 'initContainers']) {
    for (const c of (spec[list] as Obj[] | undefined) ?? []) {
      c.terminationMessagePath ??= '/dev/termination-log';
      c.terminationMessagePolicy ??= 'File';
      c.imagePullPolicy ??= 'IfNotPresent';
      c.resources ??= {};
      for (const port of (c.ports as Obj[] | undefined) ?? []) port.protocol ??= 'TCP';
    }
  }
  spec.restartPolicy ??= 'Always';
  p.status = { phase: 'Pending' };
  return p as JsonObject;
}

/** A pod the webhook injected with `config`, as stored. */
function injectedWith(config: LoadedConfig, pod: JsonObject = replicaSetPod()): JsonObject {
  const r = injectPod(pod, { namespace: 'shop', mode: 'webhook' }, config);
  assert.equal(r.kind, 'injected');
  return admitted(r.kind === 'injected' ? r.pod : pod);
}

function withLabel(pod: JsonObject, key: string, value: string): JsonObject {
  const p = cloneJson(pod);
  const meta = p.metadata as Obj;
  meta.labels = { ...(meta.labels as Obj), [key]: value };
  return p;
}

describe('classifyPod', () => {
  it('current: injected by the webhook with the same config, whatever the apiserver added', () => {
    const c = classifyPod(injectedWith(BASE), ctx());
    assert.equal(c.state, 'current', c.message);
    assert.equal(c.reason, 'policy-enabled');
    assert.equal(c.hash?.pod, c.hash?.now);
  });

  it('stale: a new sidecar image is named with both images', () => {
    const pod = injectedWith(BASE);
    const next = defaultConfigWith({ global: { tag: '1.25.0' } });
    const c = classifyPod(pod, ctx(next));
    assert.equal(c.state, 'stale');
    assert.notEqual(c.hash?.pod, c.hash?.now);
    const images = c.changes!.filter((ch) => ch.what === 'image');
    assert.deepEqual(
      images.map((ch) => [ch.item, ch.from, ch.to]),
      [
        ['initContainers/proxy-init', 'docker.io/istio/proxyv2:1.24.2', 'docker.io/istio/proxyv2:1.25.0'],
        ['containers/sidecar-proxy', 'docker.io/istio/proxyv2:1.24.2', 'docker.io/istio/proxyv2:1.25.0'],
      ],
    );
    // Only the image changed: apiserver defaults are not reported as changes.
    assert.deepEqual(
      c.changes!.filter((ch) => ch.what === 'spec'),
      [],
    );
    assert.match(c.message, /sidecar-proxy image docker\.io\/istio\/proxyv2:1\.24\.2 -> docker\.io\/istio\/proxyv2:1\.25\.0/);
  });

  it('stale: a template change shows the container fields it changes', () => {
    const t1 = 'spec:\n  containers:\n  - name: side\n    image: side:1\n    args: ["a"]\n';
    const t2 = 'spec:\n  containers:\n  - name: side\n    image: side:1\n    args: ["a", "b"]\n';
    const pod = injectedWith(templatesConfig({ side: t1 }));
    const c = classifyPod(pod, ctx(templatesConfig({ side: t2 })));
    assert.equal(c.state, 'stale');
    assert.deepEqual(c.changes, [{ what: 'spec', item: 'containers/side', fields: ['args'], detail: 'containers/side args changed' }]);
  });

  it('stale: templates added to the selection, and injected items that appear', () => {
    const side = 'spec:\n  containers:\n  - name: side\n    image: side:1\n';
    const extra = 'spec:\n  volumes:\n  - name: extra\n    emptyDir: {}\n';
    const before = templatesConfig({ side, extra });
    const after = templatesConfig({ side, extra }, { defaultTemplates: ['side', 'extra'] });
    const c = classifyPod(injectedWith(before), ctx(after));
    assert.equal(c.state, 'stale');
    assert.deepEqual(
      c.changes!.map((ch) => ch.detail),
      ['templates side -> side,extra', 'volumes/extra added'],
    );
  });

  it('stale: values that do not change this pod are reported as such, not hidden', () => {
    const t = 'spec:\n  containers:\n  - name: side\n    image: side:1\n';
    const c = classifyPod(injectedWith(templatesConfig({ side: t }, {}, { unused: 1 })), ctx(templatesConfig({ side: t }, {}, { unused: 2 })));
    assert.equal(c.state, 'stale');
    assert.deepEqual(
      c.changes!.map((ch) => ch.what),
      ['template-or-values'],
    );
  });

  it('stale: injected, but the rules now skip it (pod opted out after the config changed)', () => {
    const pod = injectedWith(BASE);
    const c = classifyPod(pod, ctx(defaultConfigWith({}, { policy: 'disabled' })));
    assert.equal(c.state, 'stale');
    assert.equal(c.reason, 'policy-disabled');
    assert.equal(c.changes![0].what, 'decision');
  });

  it('stale: injecting now would fail (template removed) says so', () => {
    const side = 'spec:\n  containers:\n  - name: side\n    image: side:1\n';
    const pod = injectedWith(
      templatesConfig({ side, other: side.replace(/side/g, 'other') }),
      withAnnotation(replicaSetPod(), 'inject.istio.io/templates', 'other'),
    );
    const c = classifyPod(pod, ctx(templatesConfig({ side })));
    assert.equal(c.state, 'stale');
    assert.equal(c.changes![0].what, 'error');
    assert.match(c.message, /SI_INJECT_TEMPLATE_MISSING/);
  });

  it('missing: the rules say inject but the pod has no sidecar (webhook was down, failurePolicy Ignore)', () => {
    const c = classifyPod(admitted(replicaSetPod()), ctx());
    assert.equal(c.state, 'missing');
    assert.equal(c.reason, 'policy-enabled');
  });

  it('missing in an unlabelled namespace only for a pod labelled inject=true', () => {
    assert.equal(classifyPod(admitted(replicaSetPod()), ctx(BASE, {})).state, 'skipped');
    const optedIn = withLabel(replicaSetPod(), 'sidecar.istio.io/inject', 'true');
    assert.equal(classifyPod(admitted(optedIn), ctx(BASE, {})).state, 'missing');
  });

  it('skipped: with the reason, from the webhook layer and from the core', () => {
    const ns = classifyPod(admitted(replicaSetPod()), ctx(BASE, { 'istio-injection': 'disabled' }));
    assert.deepEqual([ns.state, ns.reason], ['skipped', 'namespace-not-selected']);
    const unlabelled = classifyPod(admitted(replicaSetPod()), ctx(BASE, {}));
    assert.deepEqual([unlabelled.state, unlabelled.reason], ['skipped', 'object-not-selected']);
    const optOut = classifyPod(admitted(withLabel(replicaSetPod(), 'sidecar.istio.io/inject', 'false')), ctx());
    assert.deepEqual([optOut.state, optOut.reason], ['skipped', 'object-not-selected']);
    const annotated = classifyPod(admitted(withAnnotation(replicaSetPod(), 'sidecar.istio.io/inject', 'false')), ctx());
    assert.deepEqual([annotated.state, annotated.reason], ['skipped', 'explicit-disabled']);
    const host = admitted(replicaSetPod());
    (host.spec as Obj).hostNetwork = true;
    assert.deepEqual([classifyPod(host, ctx()).state, classifyPod(host, ctx()).reason], ['skipped', 'object-not-selected']);
    const kubeSystem = admitted(replicaSetPod());
    (kubeSystem.metadata as Obj).namespace = 'kube-system';
    assert.equal(classifyPod(kubeSystem, ctx(BASE, ENABLED)).reason, 'namespace-not-selected');
  });

  it('skipped by the core although the webhook is called: policy disabled, no opt-in', () => {
    const c = classifyPod(admitted(replicaSetPod()), ctx(defaultConfigWith({}, { policy: 'disabled' })));
    assert.deepEqual([c.state, c.reason], ['skipped', 'policy-disabled']);
  });

  it("foreign: Istio's status (no templates), an unreadable status, a sidecar added by hand", () => {
    const istio = admitted(withAnnotation(replicaSetPod(), 'sidecar.istio.io/status', '{"containers":["istio-proxy"],"revision":"default"}'));
    (istio.spec as { containers: Obj[] }).containers.push({ name: 'istio-proxy', image: 'istio/proxyv2:1.20' });
    assert.deepEqual([classifyPod(istio, ctx()).state, classifyPod(istio, ctx()).reason], ['foreign', 'other-injector']);

    const broken = admitted(withAnnotation(replicaSetPod(), 'sidecar.istio.io/status', '{not json'));
    assert.deepEqual([classifyPod(broken, ctx()).state, classifyPod(broken, ctx()).reason], ['foreign', 'unreadable-status']);

    const byHand = admitted(replicaSetPod());
    (byHand.spec as { containers: Obj[] }).containers.push({ name: 'sidecar-proxy', image: 'my/proxy:1' });
    assert.deepEqual([classifyPod(byHand, ctx()).state, classifyPod(byHand, ctx()).reason], ['foreign', 'injected-by-hand']);
  });

  it('foreign: a status that lists containers the pod no longer has', () => {
    const pod = injectedWith(BASE);
    const spec = pod.spec as { containers: Obj[] };
    spec.containers = spec.containers.filter((c) => c.name !== 'sidecar-proxy');
    const c = classifyPod(pod, ctx());
    assert.deepEqual([c.state, c.reason], ['foreign', 'edited']);
    assert.match(c.message, /containers\/sidecar-proxy/);
  });

  it('agrees with the webhook on every pod of a small matrix: current exactly when injectPod would change nothing', () => {
    const configs = [BASE, defaultConfigWith({ global: { tag: '9.9.9' } }), defaultConfigWith({}, { policy: 'disabled' })];
    const pods = [
      replicaSetPod(),
      withLabel(replicaSetPod(), 'sidecar.istio.io/inject', 'true'),
      withAnnotation(replicaSetPod(), 'sidecar.istio.io/inject', 'false'),
    ];
    for (const injectWith of configs) {
      for (const pod of pods) {
        const r = injectPod(pod, { namespace: 'shop', mode: 'webhook' }, injectWith);
        const live = admitted(r.kind === 'injected' ? r.pod : pod);
        for (const now of configs) {
          const c = classifyPod(live, ctx(now));
          const again = injectPod(r.kind === 'injected' ? r.pod : pod, { namespace: 'shop', mode: 'webhook' }, now);
          const unchanged = again.kind === 'injected' ? again.patch.length === 0 : r.kind === 'skipped';
          if (c.state === 'current') assert.ok(unchanged, `current but the webhook would change it: ${c.message}`);
          if (c.state === 'skipped') assert.equal(again.kind, 'skipped');
          if (c.state === 'missing') assert.equal(again.kind, 'injected');
          if (c.state === 'stale' && again.kind === 'injected') assert.ok(again.patch.length > 0 || c.changes![0].what === 'template-or-values');
        }
      }
    }
  });

  it('never throws on junk', () => {
    for (const junk of [null, 1, 'x', [], {}, { metadata: [] }]) assert.equal(classifyPod(junk, ctx()).state, 'skipped');
    // A pod the core refuses is reported with the core's error, not thrown.
    const bad = classifyPod({ metadata: {}, spec: 'x' }, ctx());
    assert.equal(bad.state, 'missing');
    assert.equal(bad.changes?.[0].what, 'error');
  });
});

describe('classifyPod across revisions (issue 32)', () => {
  const CANARY = defaultConfig({ revision: 'canary' });
  const canaryCtx = (namespaceLabels: Record<string, string>): ClassifyContext => ({
    config: CANARY,
    scopes: webhookScopes(CANARY.injectionKeys, { injectorNamespace: 'sidecar-injector', revision: 'canary' }),
    namespaceLabels,
  });
  const onCanary = { 'istio.io/rev': 'canary' };

  it("records the revision that injected the pod, and judges its own revision's pods as current", () => {
    const c = classifyPod(injectedWith(CANARY), canaryCtx(onCanary));
    assert.deepEqual([c.state, c.revision], ['current', 'canary']);
    assert.equal(classifyPod(injectedWith(BASE), ctx()).revision, 'default');
  });

  it('a pod of the default revision in a namespace moved to canary: stale in both views, "a restart moves it"', () => {
    const pod = injectedWith(BASE);
    const mine = classifyPod(pod, canaryCtx(onCanary));
    assert.equal(mine.state, 'stale');
    assert.deepEqual(mine.changes, [{ what: 'revision', from: 'default', to: 'canary', detail: 'revision default -> canary' }]);
    const theirs = classifyPod(pod, ctx(BASE, onCanary));
    assert.equal(theirs.state, 'stale');
    assert.equal(theirs.changes?.[0].what, 'revision');
    assert.match(theirs.message, /namespace now selects revision canary: a restart moves the pod there/);
  });

  it('a pod another revision still serves is foreign (other-revision), not stale, from either side', () => {
    const canaryPod = injectedWith(CANARY);
    const c = classifyPod(canaryPod, ctx(BASE, onCanary));
    assert.deepEqual([c.state, c.reason, c.revision], ['foreign', 'other-revision', 'canary']);
    assert.match(c.message, /status --revision canary/);
    assert.equal(classifyPod(injectedWith(BASE), canaryCtx(ENABLED)).reason, 'other-revision');
  });
});

function withAnnotation(pod: JsonObject, key: string, value: string): JsonObject {
  const p = cloneJson(pod);
  const meta = p.metadata as Obj;
  meta.annotations = { ...(meta.annotations as Obj), [key]: value };
  return p;
}
