import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '../util/json.js';
import { assertUniqueNames, mergeOverlays } from './merge.js';
import type { Pod } from './pod-types.js';

type Obj = Record<string, unknown>;
const user = (): Pod => ({
  metadata: { labels: { a: '1' } },
  spec: {
    containers: [
      { name: 'app', image: 'app:1' },
      { name: 'proxy', image: 'auto', args: ['mine'], resources: null },
    ],
    volumes: [{ name: 'data' }],
  },
});

describe('mergeOverlays', () => {
  it('merges overlays in order, collects injected names, and lets the user customise an injected container', () => {
    const r = mergeOverlays(user(), [
      {
        name: 'a',
        overlay: {
          spec: { containers: [{ name: 'proxy', image: 'proxy:1', args: ['default'], resources: { limits: { cpu: '1' } } }], volumes: [{ name: 'certs' }] },
        },
      },
      {
        name: 'b',
        overlay: { metadata: { labels: { $patch: 'replace', b: '2' } as unknown as JsonObject }, spec: { initContainers: [{ name: 'init', image: 'i' }] } },
      },
    ]);
    assert.deepEqual(r.injected, { initContainers: ['init'], containers: ['proxy'], volumes: ['certs'], imagePullSecrets: [] });
    const proxy = ((r.pod.spec as Obj).containers as Obj[]).find((c) => c.name === 'proxy')!;
    assert.equal(proxy.image, 'proxy:1', 'image: auto keeps the injected image');
    assert.deepEqual(proxy.args, ['mine'], "the user's fields win");
    assert.deepEqual(proxy.resources, { limits: { cpu: '1' } }, 'a null in the user container is absent, not a deletion');
    assert.deepEqual((r.pod.metadata as Obj).labels, { b: '2' }, '$patch: replace works');
    assert.deepEqual(r.overrides.containers, [{ name: 'proxy', args: ['mine'] }]);
    assert.deepEqual(r.sidecars.containers, ['proxy']);
  });

  it("a template item without an image that patches the user's container is not a sidecar (keeps its place)", () => {
    const r = mergeOverlays(user(), [{ name: 'a', overlay: { spec: { containers: [{ name: 'app', env: [{ name: 'X', value: '1' }] }] } } }]);
    assert.deepEqual(r.injected.containers, ['app']);
    assert.deepEqual(r.sidecars.containers, []);
  });

  it('a later template customising a native sidecar under containers merges into it', () => {
    const r = mergeOverlays({ spec: { containers: [{ name: 'app' }] } }, [
      { name: 'sidecar', overlay: { spec: { initContainers: [{ name: 'proxy', image: 'p', restartPolicy: 'Always' }] } } },
      { name: 'extra', overlay: { spec: { containers: [{ name: 'proxy', volumeMounts: [{ name: 'sock', mountPath: '/s' }] }] } } },
    ]);
    const spec = r.pod.spec as Obj;
    assert.deepEqual(
      (spec.containers as Obj[]).map((c) => c.name),
      ['app'],
    );
    assert.deepEqual((spec.initContainers as Obj[])[0], {
      name: 'proxy',
      image: 'p',
      restartPolicy: 'Always',
      volumeMounts: [{ name: 'sock', mountPath: '/s' }],
    });
    assert.deepEqual(r.injected.containers, []);
  });

  it('a user container written for containers moves to initContainers when the template injects it there', () => {
    const r = mergeOverlays({ spec: { containers: [{ name: 'app' }, { name: 'proxy', image: 'auto', args: ['x'] }] } }, [
      { name: 'sidecar', overlay: { spec: { initContainers: [{ name: 'proxy', image: 'p', restartPolicy: 'Always' }] } } },
    ]);
    const spec = r.pod.spec as Obj;
    assert.deepEqual(
      (spec.containers as Obj[]).map((c) => c.name),
      ['app'],
    );
    assert.deepEqual((spec.initContainers as Obj[])[0], { name: 'proxy', image: 'p', restartPolicy: 'Always', args: ['x'] });
  });

  it('assertUniqueNames refuses duplicates across containers and init containers, and duplicate volumes', () => {
    assert.throws(() => assertUniqueNames({ spec: { containers: [{ name: 'a' }], initContainers: [{ name: 'a' }] } }, ['t']), /two containers named "a"/);
    assert.throws(() => assertUniqueNames({ spec: { containers: [], volumes: [{ name: 'v' }, { name: 'v' }] } }, ['t']), /two volumes named "v"/);
  });
});
