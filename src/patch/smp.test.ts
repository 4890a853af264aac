import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InjectorError } from '../errors.js';
import { cloneJson, type JsonObject } from '../util/json.js';
import { strategicMerge } from './smp.js';
import type { SmpSchema } from './smp-schema.js';
import { overlayArb, podArb } from '../../test/support/patch/arbitraries.js';

function userPod(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', labels: { app: 'web' }, annotations: { team: 'shop', 'prometheus.io/port': '9090' } },
    spec: {
      initContainers: [{ name: 'migrate', image: 'migrate:1' }],
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          env: [
            { name: 'MODE', value: 'prod' },
            { name: 'PORT', value: '8080' },
          ],
          volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
          ports: [{ containerPort: 8080, name: 'http' }],
        },
      ],
      volumes: [{ name: 'cache', emptyDir: {} }],
      tolerations: [{ key: 'a', operator: 'Exists' }],
    },
  };
}

function sidecarOverlay(): JsonObject {
  return {
    metadata: { annotations: { 'sidecar.istio.io/status': '{"containers":["istio-proxy"]}' }, labels: { 'security.istio.io/tlsMode': 'istio' } },
    spec: {
      initContainers: [{ name: 'istio-init', image: 'proxyv2', args: ['istio-iptables'] }],
      containers: [{ name: 'istio-proxy', image: 'proxyv2', args: ['proxy', 'sidecar'], env: [{ name: 'ISTIO_META_X', value: '1' }] }],
      volumes: [
        { name: 'istio-envoy', emptyDir: { medium: 'Memory' } },
        { name: 'istio-data', emptyDir: {} },
      ],
    },
  };
}

const names = (list: unknown) => (list as JsonObject[]).map((c) => c.name);

function mergeFails(original: JsonObject, patch: unknown, path: string, fragment: string, schema?: SmpSchema): void {
  assert.throws(
    () => strategicMerge(original, patch, schema),
    (err: unknown) => {
      assert.ok(err instanceof InjectorError, String(err));
      assert.equal(err.code, 'SI_INJECT_MERGE');
      assert.ok(err.message.includes(`at ${path}:`), err.message);
      assert.ok(err.message.includes(fragment), err.message);
      return true;
    },
  );
}

test('a sidecar overlay adds its containers, volumes and metadata where Kubernetes puts them', () => {
  const merged = strategicMerge(userPod(), sidecarOverlay());
  const spec = merged.spec as JsonObject;
  // New items go before the pod's own items (Kubernetes' mergeSlice order); Istio reorders later.
  assert.deepEqual(names(spec.containers), ['istio-proxy', 'web']);
  assert.deepEqual(names(spec.initContainers), ['istio-init', 'migrate']);
  assert.deepEqual(names(spec.volumes), ['istio-envoy', 'istio-data', 'cache']);
  assert.deepEqual((merged.metadata as JsonObject).annotations, {
    team: 'shop',
    'prometheus.io/port': '9090',
    'sidecar.istio.io/status': '{"containers":["istio-proxy"]}',
  });
  assert.deepEqual((merged.metadata as JsonObject).labels, { app: 'web', 'security.istio.io/tlsMode': 'istio' });
  // The user's container is untouched.
  assert.deepEqual((spec.containers as JsonObject[])[1], (userPod().spec as JsonObject & { containers: JsonObject[] }).containers[0]);
});

test('$setElementOrder puts the sidecar last when the overlay asks for it', () => {
  const overlay = sidecarOverlay();
  (overlay.spec as JsonObject)['$setElementOrder/containers'] = [{ name: 'web' }, { name: 'istio-proxy' }];
  const merged = strategicMerge(userPod(), overlay);
  assert.deepEqual(names((merged.spec as JsonObject).containers), ['web', 'istio-proxy']);
});

test("a user container named like the sidecar is merged in place: user fields kept, overlay's win", () => {
  const pod = userPod();
  (pod.spec as JsonObject).containers = [
    { name: 'istio-proxy', image: 'custom-proxy:dev', resources: { limits: { cpu: '2' } }, env: [{ name: 'USER_SET', value: 'u' }] },
    ...((pod.spec as JsonObject).containers as JsonObject[]),
  ];
  const merged = strategicMerge(pod, sidecarOverlay());
  const containers = (merged.spec as JsonObject).containers as JsonObject[];
  assert.deepEqual(names(containers), ['istio-proxy', 'web']);
  assert.deepEqual(containers[0], {
    name: 'istio-proxy',
    image: 'proxyv2',
    resources: { limits: { cpu: '2' } },
    // env merges by name: the overlay's new var comes first, the user's stays.
    env: [
      { name: 'ISTIO_META_X', value: '1' },
      { name: 'USER_SET', value: 'u' },
    ],
    args: ['proxy', 'sidecar'],
  });
});

test('env merges by name and volumeMounts by mountPath, in place', () => {
  const merged = strategicMerge(userPod(), {
    spec: {
      containers: [
        {
          name: 'web',
          env: [
            { name: 'PORT', value: '9999' },
            { name: 'NEW', value: 'n' },
          ],
          volumeMounts: [
            { mountPath: '/cache', readOnly: true },
            { name: 'istio-envoy', mountPath: '/etc/istio/proxy' },
          ],
        },
      ],
    },
  });
  const web = ((merged.spec as JsonObject).containers as JsonObject[])[0];
  assert.deepEqual(web.env, [
    { name: 'MODE', value: 'prod' },
    { name: 'PORT', value: '9999' },
    { name: 'NEW', value: 'n' },
  ]);
  assert.deepEqual(web.volumeMounts, [
    { name: 'cache', mountPath: '/cache', readOnly: true },
    { name: 'istio-envoy', mountPath: '/etc/istio/proxy' },
  ]);
  assert.deepEqual(web.ports, [{ containerPort: 8080, name: 'http' }]);
});

test('null deletes an annotation; a null for a missing key adds nothing', () => {
  const merged = strategicMerge(userPod(), { metadata: { annotations: { 'prometheus.io/port': null, absent: null } } });
  assert.deepEqual((merged.metadata as JsonObject).annotations, { team: 'shop' });
  // Nulls inside a brand-new value are dropped too (apimachinery discardNullValuesFromPatch).
  const fresh = strategicMerge({ metadata: { name: 'x' } }, { metadata: { annotations: { a: '1', b: null } } });
  assert.deepEqual(fresh, { metadata: { name: 'x', annotations: { a: '1' } } });
});

test('$patch: replace on a container map replaces just that map', () => {
  const pod = userPod();
  ((pod.spec as JsonObject).containers as JsonObject[])[0].securityContext = { runAsUser: 0, privileged: true };
  const merged = strategicMerge(pod, {
    spec: { containers: [{ name: 'web', securityContext: { $patch: 'replace', runAsNonRoot: true, drop: null } }] },
  });
  assert.deepEqual(((merged.spec as JsonObject).containers as JsonObject[])[0].securityContext, { runAsNonRoot: true });
});

test('a "- $patch: replace" list item makes the overlay\'s items the whole list', () => {
  const merged = strategicMerge(userPod(), {
    spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'x' }] },
  });
  assert.deepEqual((merged.spec as JsonObject).containers, [{ name: 'only', image: 'x' }]);
});

test('replacing one container: $patch: delete plus a new item (a replace item that carries data is an error)', () => {
  const merged = strategicMerge(userPod(), {
    spec: {
      containers: [
        { name: 'web', $patch: 'delete' },
        { name: 'web', image: 'fresh' },
      ],
    },
  });
  assert.deepEqual((merged.spec as JsonObject).containers, [{ name: 'web', image: 'fresh' }]);
  mergeFails(userPod(), { spec: { containers: [{ name: 'web', $patch: 'replace', image: 'x' }] } }, 'spec.containers[0]', 'replaces the whole list');
});

test('$patch: delete removes a list item by key, or empties a whole map', () => {
  const merged = strategicMerge(userPod(), {
    spec: {
      volumes: [
        { name: 'cache', $patch: 'delete' },
        { name: 'nope', $patch: 'delete' },
      ],
    },
    metadata: { labels: { $patch: 'delete' } },
  });
  assert.deepEqual((merged.spec as JsonObject).volumes, []);
  assert.deepEqual((merged.metadata as JsonObject).labels, {});
});

test('$patch: merge on a map is the default; unknown $patch values are errors naming the path', () => {
  const merged = strategicMerge(userPod(), { metadata: { labels: { $patch: 'merge', extra: 'y' } } });
  assert.deepEqual((merged.metadata as JsonObject).labels, { app: 'web', extra: 'y' });
  mergeFails(userPod(), { metadata: { labels: { $patch: 'frobnicate' } } }, 'metadata.labels', 'unknown directive');
  mergeFails(userPod(), { spec: { volumes: [{ name: 'x', $patch: 'merge' }] } }, 'spec.volumes[0]', 'not supported on list items');
  mergeFails(userPod(), { spec: { volumes: [{ name: 'x', $patch: 'keep' }] } }, 'spec.volumes[0]', 'unknown directive');
});

test('an overlay list item without its merge key is an error naming the path (Kubernetes errors too)', () => {
  mergeFails(userPod(), { spec: { containers: [{ name: 'web' }, { image: 'no-name' }] } }, 'spec.containers[1]', 'has no "name"');
  mergeFails(
    userPod(),
    { spec: { containers: [{ name: 'web', volumeMounts: [{ name: 'v' }] }] } },
    'spec.containers[name="web"].volumeMounts[0]',
    'has no "mountPath"',
  );
  mergeFails(userPod(), { spec: { containers: ['istio-proxy'] } }, 'spec.containers[0]', 'merged by "name"');
  mergeFails(userPod(), { spec: { containers: [{ name: { a: 1 } }] } }, 'spec.containers[0]', 'must be a string or a number');
  // A pod item without the key cannot be merged into either.
  const broken = userPod();
  ((broken.spec as JsonObject).volumes as JsonObject[]).push({ emptyDir: {} });
  mergeFails(broken, { spec: { volumes: [{ name: 'x', emptyDir: {} }] } }, 'spec.volumes[1]', 'has no "name"');
});

test('the overlay must be a map; null means no change', () => {
  assert.throws(
    () => strategicMerge(userPod(), ['x']),
    (err: unknown) => err instanceof InjectorError && err.code === 'SI_INJECT_MERGE',
  );
  assert.throws(
    () => strategicMerge(userPod(), 'spec: {}'),
    (err: unknown) => err instanceof InjectorError && /must be a map/.test(err.message),
  );
  assert.deepEqual(strategicMerge(userPod(), null), userPod());
});

test('type mismatches: the overlay value replaces the pod value (as Kubernetes)', () => {
  const merged = strategicMerge({ spec: { containers: [{ name: 'a' }], extra: { k: 'v' } } }, { spec: { extra: ['list'], containers: { odd: true } } });
  assert.deepEqual(merged, { spec: { containers: { odd: true }, extra: ['list'] } });
  const nulled = strategicMerge({ spec: { initContainers: null } } as JsonObject, { spec: { initContainers: [{ name: 'istio-init' }] } });
  assert.deepEqual(nulled, { spec: { initContainers: [{ name: 'istio-init' }] } });
});

test('lists without a merge strategy are replaced; unknown fields merge as maps and survive', () => {
  const pod = userPod();
  (pod.spec as JsonObject).futureField = { keep: 1, nested: { a: 1 } };
  const merged = strategicMerge(pod, {
    spec: { tolerations: [{ key: 'b', operator: 'Exists' }], futureField: { nested: { b: 2 } }, containers: [{ name: 'web', args: ['x'] }] },
  });
  const spec = merged.spec as JsonObject;
  assert.deepEqual(spec.tolerations, [{ key: 'b', operator: 'Exists' }]);
  assert.deepEqual(spec.futureField, { keep: 1, nested: { a: 1, b: 2 } });
  assert.deepEqual((spec.containers as JsonObject[])[0].args, ['x']);
});

test('other merge keys: ports by containerPort, hostAliases by ip, ownerReferences by uid, finalizers as a set', () => {
  const merged = strategicMerge(
    {
      metadata: { finalizers: ['a', 'b'], ownerReferences: [{ uid: 'u1', kind: 'ReplicaSet' }] },
      spec: { hostAliases: [{ ip: '10.0.0.1', hostnames: ['x'] }], containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP' }] }] },
    },
    {
      metadata: { finalizers: ['b', 'c'], ownerReferences: [{ uid: 'u1', controller: true }] },
      spec: { hostAliases: [{ ip: '10.0.0.1', hostnames: ['y'] }], containers: [{ name: 'c', ports: [{ containerPort: 80, name: 'http' }] }] },
    },
  );
  assert.deepEqual(merged, {
    metadata: { finalizers: ['a', 'b', 'c'], ownerReferences: [{ uid: 'u1', kind: 'ReplicaSet', controller: true }] },
    spec: { hostAliases: [{ ip: '10.0.0.1', hostnames: ['y'] }], containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] }] },
  });
});

test('hostAliases merge by ip: an alias of the pod that the overlay does not name stays, a named one is updated', () => {
  // Replacing the list instead would drop 10.0.0.2; merging by another key would duplicate 10.0.0.1.
  // Order as in Kubernetes: the overlay's items in its order, then the pod's other items.
  const merged = strategicMerge(
    {
      spec: {
        hostAliases: [
          { ip: '10.0.0.1', hostnames: ['a'] },
          { ip: '10.0.0.2', hostnames: ['b'] },
        ],
      },
    },
    {
      spec: {
        hostAliases: [
          { ip: '10.0.0.1', hostnames: ['a2'] },
          { ip: '10.0.0.3', hostnames: ['c'] },
        ],
      },
    },
  );
  assert.deepEqual(merged, {
    spec: {
      hostAliases: [
        { ip: '10.0.0.1', hostnames: ['a2'] },
        { ip: '10.0.0.3', hostnames: ['c'] },
        { ip: '10.0.0.2', hostnames: ['b'] },
      ],
    },
  });
});

// Order cases from Kubernetes' own strategic-merge tests (the expected results are the facts).
const TEST_SCHEMA: SmpSchema = {
  name: 'MergeItem',
  fields: { mergingList: { type: 'list', mergeKey: 'name' }, mergingIntList: { type: 'set' } },
};

test('Kubernetes order: patch order wins for named items, server-only items keep their place', () => {
  const original: JsonObject = { mergingList: [{ name: 1 }, { name: 2, value: 'b' }, { name: 3 }] };
  assert.deepEqual(
    strategicMerge(
      original,
      {
        mergingList: [
          { name: 3, value: 'c' },
          { name: 1, value: 'a' },
          { name: 2, other: 'x' },
        ],
      },
      TEST_SCHEMA,
    ),
    {
      mergingList: [
        { name: 3, value: 'c' },
        { name: 1, value: 'a' },
        { name: 2, value: 'b', other: 'x' },
      ],
    },
  );
  assert.deepEqual(
    strategicMerge(
      original,
      {
        mergingList: [
          { name: 3, value: 'c' },
          { name: 1, value: 'a' },
        ],
      },
      TEST_SCHEMA,
    ),
    {
      mergingList: [
        { name: 2, value: 'b' },
        { name: 3, value: 'c' },
        { name: 1, value: 'a' },
      ],
    },
  );
  assert.deepEqual(strategicMerge({ mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1] }, TEST_SCHEMA), { mergingIntList: [2, 3, 1] });
  assert.deepEqual(strategicMerge({ mergingIntList: [1, 2] }, { mergingIntList: [2, 3] }, TEST_SCHEMA), { mergingIntList: [1, 2, 3] });
});

test('Kubernetes order with $setElementOrder, and its consistency check', () => {
  assert.deepEqual(
    strategicMerge(
      { mergingList: [{ name: 1 }, { name: 2, value: 2 }] },
      {
        '$setElementOrder/mergingList': [{ name: 4 }, { name: 1 }, { name: 2 }, { name: 3 }],
        mergingList: [
          { name: 4, value: 4 },
          { name: 3, value: 3 },
        ],
      },
      TEST_SCHEMA,
    ),
    { mergingList: [{ name: 4, value: 4 }, { name: 1 }, { name: 2, value: 2 }, { name: 3, value: 3 }] },
  );
  assert.deepEqual(strategicMerge({ mergingIntList: [1, 3] }, { '$setElementOrder/mergingIntList': [3, 2, 1] }, TEST_SCHEMA), {
    mergingIntList: [3, 1],
  });
  mergeFails(
    { mergingList: [{ name: 1 }, { name: 3 }, { name: 2 }] },
    {
      '$setElementOrder/mergingList': [{ name: 1 }, { name: 2 }, { name: 3 }],
      mergingList: [
        { name: 3, value: 3 },
        { name: 1, value: 1 },
      ],
    },
    'mergingList',
    'does not match',
    TEST_SCHEMA,
  );
});

test('$deleteFromPrimitiveList and $retainKeys', () => {
  assert.deepEqual(strategicMerge({ metadata: { finalizers: ['a', 'b', 'c'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'zz'] } }), {
    metadata: { finalizers: ['a', 'c'] },
  });
  // A delete list for a field the pod lacks adds nothing.
  assert.deepEqual(strategicMerge({ metadata: {} }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } }), { metadata: {} });
  const vol = strategicMerge(
    { spec: { volumes: [{ name: 'v', emptyDir: {}, other: 1 }] } },
    { spec: { volumes: [{ name: 'v', $retainKeys: ['name', 'configMap'], configMap: { name: 'cm' } }] } },
  );
  assert.deepEqual(vol, { spec: { volumes: [{ name: 'v', configMap: { name: 'cm' } }] } });
  mergeFails(
    { spec: { volumes: [{ name: 'v' }] } },
    { spec: { volumes: [{ name: 'v', $retainKeys: ['name'], secret: {} }] } },
    'spec.volumes[name="v"]',
    '"$retainKeys" does not list it',
  );
  mergeFails({ metadata: {} }, { metadata: { $deleteFromPrimitiveListfinalizers: [] } }, 'metadata', 'malformed');
});

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function objectsIn(value: unknown, into = new Set<object>()): Set<object> {
  if (value !== null && typeof value === 'object') {
    into.add(value);
    for (const v of Object.values(value)) objectsIn(v, into);
  }
  return into;
}

function assertUniqueNames(pod: JsonObject): void {
  const spec = pod.spec as JsonObject | undefined;
  for (const field of ['containers', 'initContainers', 'volumes']) {
    const list = spec?.[field];
    if (!Array.isArray(list)) continue;
    const seen = names(list);
    assert.equal(new Set(seen).size, seen.length, `${field} names repeat: ${JSON.stringify(seen)}`);
    for (const c of list as JsonObject[]) {
      if (Array.isArray(c.env)) assert.equal(new Set(names(c.env)).size, (c.env as unknown[]).length, 'env names repeat');
    }
  }
}

test('property: merging is idempotent, never mutates or shares its inputs, and keeps names unique', () => {
  fc.assert(
    fc.property(podArb(), overlayArb({ deletes: false }), (pod, overlay) => {
      const frozenPod = deepFreeze(cloneJson(pod));
      const frozenOverlay = deepFreeze(cloneJson(overlay));
      const once = strategicMerge(frozenPod, frozenOverlay); // frozen inputs: any write would throw
      assert.deepEqual(strategicMerge(once, frozenOverlay), once);
      assert.deepEqual(frozenPod, pod);
      const inputs = new Set([...objectsIn(frozenPod), ...objectsIn(frozenOverlay)]);
      for (const o of objectsIn(once)) assert.ok(!inputs.has(o), 'the result shares an object with an input');
      assertUniqueNames(once);
    }),
    { numRuns: 400 },
  );
  // With nulls in the overlay, still no mutation and unique names.
  fc.assert(
    fc.property(podArb(), overlayArb(), (pod, overlay) => {
      const merged = strategicMerge(deepFreeze(cloneJson(pod)), deepFreeze(cloneJson(overlay)));
      assertUniqueNames(merged);
    }),
    { numRuns: 200 },
  );
});

test('property: {share: true} gives the same result, shares only untouched pod subtrees, and never mutates', () => {
  fc.assert(
    fc.property(podArb(), overlayArb(), (pod, overlay) => {
      const frozenPod = deepFreeze(cloneJson(pod));
      const frozenOverlay = deepFreeze(cloneJson(overlay));
      let copied: JsonObject | Error;
      try {
        copied = strategicMerge(frozenPod, frozenOverlay);
      } catch (err) {
        copied = err as Error;
      }
      let shared: JsonObject | Error;
      try {
        shared = strategicMerge(frozenPod, frozenOverlay, undefined, { share: true }); // frozen: any write would throw
      } catch (err) {
        shared = err as Error;
      }
      if (copied instanceof Error) {
        assert.ok(shared instanceof Error, 'only the copying merge failed');
        assert.equal(shared.message, copied.message);
        return;
      }
      assert.ok(!(shared instanceof Error), `only the sharing merge failed: ${String(shared)}`);
      assert.deepEqual(shared, copied);
      assert.deepEqual(frozenPod, pod);
      assert.ok(!Object.isFrozen(shared), 'the top level is always a fresh map');
      const overlayNodes = objectsIn(frozenOverlay);
      for (const o of objectsIn(shared)) assert.ok(!overlayNodes.has(o), 'the result shares an object with the overlay');
    }),
    { numRuns: 400 },
  );
  // It does share: a pod subtree the overlay does not touch is the same object.
  const pod = {
    metadata: { labels: { a: 'b' } },
    spec: { containers: [{ name: 'app', env: [{ name: 'X', value: '1' }] }], volumes: [{ name: 'v', emptyDir: {} }] },
  };
  const merged = strategicMerge(pod, { spec: { containers: [{ name: 'proxy' }] } }, undefined, { share: true });
  assert.equal(merged.metadata, pod.metadata);
  assert.equal((merged.spec as JsonObject).volumes, pod.spec.volumes);
  assert.equal(((merged.spec as JsonObject).containers as JsonObject[])[1], pod.spec.containers[0]);
  assert.notEqual(merged.spec, pod.spec);
});

test('2,000 env vars merge without quadratic blow-up', () => {
  const env = Array.from({ length: 2000 }, (_, i) => ({ name: `VAR_${i}`, value: String(i) }));
  const pod = { spec: { containers: [{ name: 'app', env }] } };
  const overlay = { spec: { containers: [{ name: 'app', env: env.map((e) => ({ name: e.name, value: 'x' })) }, { name: 'istio-proxy' }] } };
  const started = performance.now();
  const merged = strategicMerge(pod, overlay);
  assert.ok(performance.now() - started < 500);
  const app = ((merged.spec as JsonObject).containers as JsonObject[]).find((c) => c.name === 'app') as JsonObject;
  assert.equal((app.env as JsonObject[]).length, 2000);
  assert.ok((app.env as JsonObject[]).every((e) => e.value === 'x'));
});

test('absurd nesting is a clear SI_INPUT_LIMIT error, not a stack overflow', () => {
  let deep: JsonObject = {};
  const overlay: JsonObject = { metadata: deep };
  for (let i = 0; i < 5000; i++) {
    const next: JsonObject = {};
    deep.x = next;
    deep = next;
  }
  assert.throws(
    () => strategicMerge({ metadata: {} }, overlay),
    (err: unknown) => err instanceof InjectorError && err.code === 'SI_INPUT_LIMIT',
  );
});
