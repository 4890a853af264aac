/**
 * Copy on write (cow.ts): the injection shares what it does not change with the pod as
 * received, never writes into it, and still gives the same pod, patch and undo record as a
 * pipeline that copies everything.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig } from '../profiles/index.js';
import { injectChecked, replicaSetPod, WEBHOOK } from '../../test/support/inject-fixtures.js';
import { cloneJson, type JsonObject } from '../util/json.js';
import { ownWriterFrame } from './cow.js';
import { deepFreeze } from '../util/json.js';
import { injectPod, uninjectPod } from './index.js';

type Obj = Record<string, unknown>;

/** A pod with enough untouched structure to share: env, probes, volumes, a second container. */
function appPod(): JsonObject {
  const pod = replicaSetPod();
  const spec = pod.spec as Obj;
  spec.containers = [
    {
      name: 'shop',
      image: 'registry.example/shop:2.1',
      env: Array.from({ length: 50 }, (_, i) => ({ name: `V${i}`, value: String(i) })),
      readinessProbe: { httpGet: { path: '/ready', port: 8080 } },
      securityContext: { runAsUser: 1000 },
    },
    { name: 'worker', image: 'registry.example/worker:1', args: ['--queue', 'orders'] },
  ];
  spec.volumes = [{ name: 'data', emptyDir: {} }];
  return pod;
}

describe('copy on write', () => {
  it('injects into a deep-frozen pod: nothing is written into the input', () => {
    const pod = appPod();
    deepFreeze(pod);
    const r = injectChecked(pod, WEBHOOK, defaultConfig());
    assert.ok(r.patch.length > 0);
  });

  it('shares the subtrees the injection did not change, and the result is the same as from a private copy', () => {
    const pod = appPod();
    const fromCopy = injectPod(cloneJson(pod), WEBHOOK, defaultConfig());
    const r = injectPod(pod, WEBHOOK, defaultConfig());
    assert.equal(r.kind, 'injected');
    assert.equal(fromCopy.kind, 'injected');
    if (r.kind !== 'injected' || fromCopy.kind !== 'injected') return;
    assert.deepEqual(r.pod, fromCopy.pod);
    assert.deepEqual(r.patch, fromCopy.patch);
    assert.deepEqual(r.status, fromCopy.status);
    const shop = ((r.pod.spec as Obj).containers as Obj[]).find((c) => c.name === 'shop')!;
    const inputShop = ((pod.spec as Obj).containers as Obj[])[0];
    // The 50-entry env list is the input's own (not copied), and so are the untouched volumes' items.
    assert.equal(shop.env, inputShop.env);
    assert.equal(
      ((r.pod.spec as Obj).volumes as Obj[]).find((v) => v.name === 'data'),
      ((pod.spec as Obj).volumes as Obj[])[0],
    );
    // Uninjecting the shared result gives the input back, and leaves the result as it was.
    const resultBefore = JSON.stringify(r.pod);
    const undone = uninjectPod(r.pod, defaultConfig());
    assert.equal(undone.kind, 'uninjected');
    if (undone.kind === 'uninjected') assert.deepEqual(undone.pod, pod);
    assert.equal(JSON.stringify(r.pod), resultBefore);
  });

  it('ownWriterFrame copies the frame only: the lists, and the injected items with their env, args and securityContext', () => {
    const user = { name: 'app', env: [{ name: 'A', value: '1' }], readinessProbe: { exec: { command: ['true'] } } };
    const sidecar = { name: 'proxy', env: [{ name: 'B', value: '2' }], args: ['x'], securityContext: { runAsUser: 1 } };
    const shared = { metadata: { annotations: { a: 'b' }, labels: { l: 'v' } }, spec: { containers: [user, sidecar], volumes: [{ name: 'v' }] } };
    deepFreeze(shared);
    const merged = { ...shared } as JsonObject;
    ownWriterFrame(merged, new Set(['proxy']));
    const meta = merged.metadata as Obj;
    const spec = merged.spec as Obj;
    const [app, proxy] = spec.containers as Obj[];
    for (const node of [meta, meta.annotations, meta.labels, spec, spec.containers, proxy, proxy.env, proxy.args, proxy.securityContext]) {
      assert.ok(!Object.isFrozen(node), 'a frame node is writable');
    }
    // Outside the frame, still the shared objects: the user's container (replaced, never edited), the volumes.
    assert.equal(app, user);
    assert.equal(spec.volumes, shared.spec.volumes);
    assert.deepEqual(merged, shared);
  });
});
