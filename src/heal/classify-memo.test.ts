/**
 * ClassifyMemo: the same answers as classifyPod on the pods as stored (generated pods, injected
 * with the current config, an older one, or not at all), one shared frozen answer for the
 * replicas of a workload, a different one when the namespace's labels differ, and a bound.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { defaultConfig } from '../profiles/index.js';
import { injectPod } from '../inject/pipeline.js';
import { webhookScopes } from '../install/webhook-rules.js';
import { podArb } from '../../test/support/inject-arbitraries.js';
import { defaultConfigWith, replicaSetPod } from '../../test/support/inject-fixtures.js';
import type { JsonObject } from '../util/json.js';
import { classifyPod } from './classify.js';
import { ClassifyMemo } from './classify-memo.js';

type Obj = Record<string, any>;
const config = defaultConfig();
const older = defaultConfigWith({ global: { tag: '1.23.0' } });
const scopes = webhookScopes(config.injectionKeys, { injectorNamespace: 'sidecar-injector' });
const ENABLED = { 'istio-injection': 'enabled' };

/** As the apiserver stores a pod: named (from generateName when it has one), server fields, a status. */
function stored(pod: JsonObject, i: number): Obj {
  const p = structuredClone(pod) as Obj;
  p.metadata.namespace = 'shop';
  if (typeof p.metadata.generateName === 'string') p.metadata.name = `${p.metadata.generateName}x${i}`;
  else p.metadata.name ??= `pod-${i}`;
  Object.assign(p.metadata, { uid: `uid-${i}`, resourceVersion: String(100 + i), creationTimestamp: `2026-11-25T12:00:0${i % 10}Z` });
  p.status = { phase: 'Pending', qosClass: 'BestEffort' };
  return p;
}

function injected(pod: JsonObject, with_: typeof config): JsonObject {
  const r = injectPod(pod, { namespace: 'shop', mode: 'webhook' }, with_);
  return r.kind === 'injected' ? r.pod : pod;
}

describe('ClassifyMemo', () => {
  it('answers as classifyPod does, for pods injected now, before or never', () => {
    fc.assert(
      fc.property(podArb(), fc.constantFrom('now', 'older', 'never'), fc.boolean(), (pod, how, enabled) => {
        const base = { ...pod, metadata: { ...(pod.metadata as Obj), namespace: 'shop' } } as JsonObject;
        const p = stored(how === 'now' ? injected(base, config) : how === 'older' ? injected(base, older) : base, 1);
        const labels = enabled ? ENABLED : {};
        const memo = new ClassifyMemo({ config, scopes });
        assert.deepEqual(memo.classify(p, labels), classifyPod(p, { config, scopes, namespaceLabels: labels }));
      }),
      { numRuns: 150 },
    );
  });

  it('replicas of a ReplicaSet share one frozen answer; other namespace labels get their own', () => {
    const memo = new ClassifyMemo({ config, scopes });
    const tmpl = injected(replicaSetPod(), older);
    const a = memo.classify(stored(tmpl, 1), ENABLED);
    const b = memo.classify(stored(tmpl, 2), ENABLED);
    assert.equal(a.state, 'stale');
    assert.equal(a, b);
    assert.ok(Object.isFrozen(a) && Object.isFrozen(a.changes));
    assert.deepEqual(memo.stats, { hits: 1, misses: 1 });
    assert.equal(memo.classify(stored(tmpl, 3), {}).state, 'stale');
    assert.deepEqual(memo.stats, { hits: 1, misses: 2 });
    assert.equal(memo.classify(stored(replicaSetPod(), 4), {}).state, 'skipped');
    assert.equal(memo.classify(stored(replicaSetPod(), 5), ENABLED).state, 'missing');
  });

  it('bare pods with their own names are their own inputs; the memo keeps at most its bound', () => {
    const memo = new ClassifyMemo({ config, scopes }, 2);
    const bare = (name: string): Obj => stored({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'a:1' }] } }, 0);
    for (const n of ['a', 'b', 'c', 'a']) memo.classify(bare(n), ENABLED);
    assert.deepEqual(memo.stats, { hits: 0, misses: 4 }, 'a was evicted by c');
    memo.classify(bare('a'), ENABLED);
    assert.equal(memo.stats.hits, 1);
  });

  it('different inputs with equal answers share one object (50,000 records, a few classifications); unequal answers do not', () => {
    const memo = new ClassifyMemo({ config, scopes });
    const bare = (name: string, how: 'older' | 'never'): Obj => {
      const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'shop' }, spec: { containers: [{ name: 'app', image: 'a:1' }] } };
      return stored(how === 'older' ? injected(pod, older) : pod, 0);
    };
    const [a, b] = [memo.classify(bare('a', 'never'), ENABLED), memo.classify(bare('b', 'never'), ENABLED)];
    assert.deepEqual(memo.stats, { hits: 0, misses: 2 }, 'two inputs');
    assert.equal(a.state, 'missing');
    assert.equal(a, b, 'one answer object');
    const [c, d] = [memo.classify(bare('c', 'older'), ENABLED), memo.classify(bare('d', 'older'), ENABLED)];
    assert.equal(c.state, 'stale');
    assert.equal(c, d);
    assert.notEqual(a, c);
    assert.ok(Object.isFrozen(c) && Object.isFrozen(c.changes));
    assert.deepEqual(c, classifyPod(bare('c', 'older'), { config, scopes, namespaceLabels: ENABLED }), 'the shared answer is the right one');
  });
});
