import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InjectorError } from '../errors.js';
import { cloneJson, type JsonObject } from '../util/json.js';
import { createPatch } from './json-patch-diff.js';
import { assertPatchTransforms } from '../../test/support/patch/appliers.js';
import { jsonArb, jsonPairArb, objectOf, podArb, podPairArb } from '../../test/support/patch/arbitraries.js';

function pod(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          ports: [{ containerPort: 8080 }],
          env: [{ name: 'MODE', value: 'prod' }],
          volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
        },
      ],
      volumes: [{ name: 'cache', emptyDir: {} }],
    },
  };
}

const proxy = { name: 'istio-proxy', image: 'proxyv2:1.26', args: ['proxy', 'sidecar'] };
const init = { name: 'istio-init', image: 'proxyv2:1.26', args: ['istio-iptables'] };

test('an injection patch is a few adds, not a rewrite of the pod', () => {
  const original = pod();
  const injected = cloneJson(original);
  const spec = injected.spec as JsonObject;
  (spec.containers as JsonObject[]).push(proxy);
  spec.initContainers = [init];
  (spec.volumes as JsonObject[]).push({ name: 'istio-envoy', emptyDir: { medium: 'Memory' } }, { name: 'istio-data', emptyDir: {} });
  (injected.metadata as JsonObject).annotations = { 'sidecar.istio.io/status': '{"containers":["istio-proxy"]}' };

  const ops = createPatch(original, injected);
  assert.deepEqual(ops, [
    { op: 'add', path: '/metadata/annotations', value: { 'sidecar.istio.io/status': '{"containers":["istio-proxy"]}' } },
    { op: 'add', path: '/spec/containers/-', value: proxy },
    { op: 'add', path: '/spec/volumes/-', value: { name: 'istio-envoy', emptyDir: { medium: 'Memory' } } },
    { op: 'add', path: '/spec/volumes/-', value: { name: 'istio-data', emptyDir: {} } },
    { op: 'add', path: '/spec/initContainers', value: [init] },
  ]);
  assertPatchTransforms(original, injected, ops);
});

test('a prepended sidecar is one add at index 0', () => {
  const original = pod();
  const injected = cloneJson(original);
  (injected.spec as JsonObject).containers = [proxy, ...((original.spec as JsonObject).containers as JsonObject[])];
  const ops = createPatch(original, injected);
  assert.deepEqual(ops, [{ op: 'add', path: '/spec/containers/0', value: proxy }]);
  assertPatchTransforms(original, injected, ops);
});

test('missing or null parents are added whole, never through a child path (kubernetes#90623)', () => {
  for (const annotations of [undefined, null]) {
    const original = pod();
    if (annotations === null) (original.metadata as JsonObject).annotations = null;
    const modified = cloneJson(original);
    (modified.metadata as JsonObject).annotations = { 'sidecar.istio.io/status': 'x', 'a~b': 'y' };
    const ops = createPatch(original, modified);
    assert.deepEqual(ops, [{ op: 'add', path: '/metadata/annotations', value: { 'sidecar.istio.io/status': 'x', 'a~b': 'y' } }]);
    assertPatchTransforms(original, modified, ops);
  }
});

test('keys with "/" and "~" are escaped in paths', () => {
  const original = { metadata: { annotations: { 'sidecar.istio.io/status': 'old', 'a~b': '1' } } };
  const modified = { metadata: { annotations: { 'sidecar.istio.io/status': 'new', 'a~b': '2', '~1': 'x' } } };
  const ops = createPatch(original, modified);
  assert.deepEqual(ops, [
    { op: 'replace', path: '/metadata/annotations/sidecar.istio.io~1status', value: 'new' },
    { op: 'replace', path: '/metadata/annotations/a~0b', value: '2' },
    { op: 'add', path: '/metadata/annotations/~01', value: 'x' },
  ]);
  assertPatchTransforms(original, modified, ops);
});

test('a type change is one replace; a root type change is a single replace of ""', () => {
  assert.deepEqual(createPatch({ a: { b: 1 } }, { a: [1] }), [{ op: 'replace', path: '/a', value: [1] }]);
  assert.deepEqual(createPatch({ a: 'x' }, { a: { b: 1 } }), [{ op: 'replace', path: '/a', value: { b: 1 } }]);
  assert.deepEqual(createPatch({ a: 1 }, [1]), [{ op: 'replace', path: '', value: [1] }]);
  assert.deepEqual(createPatch(null, { a: 1 }), [{ op: 'replace', path: '', value: { a: 1 } }]);
  assertPatchTransforms({ a: 1 }, [1], createPatch({ a: 1 }, [1]));
});

test('removals run from the highest index down so earlier indexes stay valid', () => {
  const original = { l: ['a', 'b', 'c', 'd', 'e'] };
  const modified = { l: ['a', 'c', 'e'] };
  const ops = createPatch(original, modified);
  assert.deepEqual(ops, [
    { op: 'remove', path: '/l/3' },
    { op: 'remove', path: '/l/1' },
  ]);
  assertPatchTransforms(original, modified, ops);
});

test('a changed container is patched inside, matched by name even when others move', () => {
  const original = {
    c: [
      { name: 'a', image: '1' },
      { name: 'b', image: '1' },
      { name: 'c', image: '1' },
    ],
  };
  const modified = { c: [{ name: 'x', image: '9' }, { name: 'b', image: '2' }, { name: 'c', image: '1' }, { name: 'y' }] };
  const ops = createPatch(original, modified);
  assert.deepEqual(ops, [
    { op: 'remove', path: '/c/0' },
    { op: 'add', path: '/c/0', value: { name: 'x', image: '9' } },
    { op: 'replace', path: '/c/1/image', value: '2' },
    { op: 'add', path: '/c/-', value: { name: 'y' } },
  ]);
  assertPatchTransforms(original, modified, ops);
});

test('equal documents give an empty patch', () => {
  fc.assert(
    fc.property(jsonArb(), (doc) => {
      assert.deepEqual(createPatch(doc, doc), []);
      assert.deepEqual(createPatch(doc, cloneJson(doc)), []);
    }),
  );
});

test('property: any JSON pair patches correctly under three appliers', () => {
  fc.assert(
    fc.property(jsonPairArb(), ([a, b]) => {
      assertPatchTransforms(a, b, createPatch(a, b));
    }),
    { numRuns: 600 },
  );
});

test('property: pod + sidecar insertions/removals/edits patch correctly, with only small ops', () => {
  fc.assert(
    fc.property(podPairArb(), ([a, b]) => {
      const ops = createPatch(a, b);
      assertPatchTransforms(a, b, ops);
      // Never a rewrite: nothing replaces the whole spec or metadata.
      for (const op of ops) assert.ok(!['', '/spec', '/metadata', '/spec/containers'].includes(op.path), JSON.stringify(op));
    }),
    { numRuns: 400 },
  );
  fc.assert(
    fc.property(podArb(), podArb(), (a, b) => {
      assertPatchTransforms(a, b, createPatch(a, b));
    }),
    { numRuns: 200 },
  );
});

test('__proto__ and constructor keys are plain data: patched, and nothing is polluted', () => {
  const original = JSON.parse('{"metadata":{"annotations":{"__proto__":{"x":1},"constructor":"c"}}}');
  const modified = JSON.parse('{"metadata":{"annotations":{"__proto__":{"x":2,"polluted":true},"constructor":{"prototype":1},"toString":"t"}}}');
  const ops = createPatch(original, modified);
  assert.deepEqual(ops, [
    { op: 'replace', path: '/metadata/annotations/__proto__/x', value: 2 },
    { op: 'add', path: '/metadata/annotations/__proto__/polluted', value: true },
    { op: 'replace', path: '/metadata/annotations/constructor', value: { prototype: 1 } },
    { op: 'add', path: '/metadata/annotations/toString', value: 't' },
  ]);
  // fast-json-patch refuses __proto__ paths and rfc6902 mishandles them: our applier only.
  assertPatchTransforms(original, modified, ops, { ownOnly: true });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).x, undefined);
  fc.assert(
    fc.property(jsonPairArb(true), ([a, b]) => {
      assertPatchTransforms(a, b, createPatch(a, b), { ownOnly: true });
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    }),
    { numRuns: 300 },
  );
});

test('values that JSON cannot carry are an SI_PATCH error naming the path, not a silently wrong patch', () => {
  for (const bad of [undefined, Number.NaN, () => 1, new Date(0), 10n]) {
    assert.throws(
      () => createPatch({ a: [1] }, { a: [bad] }),
      (err: unknown) => err instanceof InjectorError && err.code === 'SI_PATCH' && err.message.includes('/a/0'),
    );
  }
  // An undefined member is simply absent, as it would be once serialized.
  assert.deepEqual(createPatch({ a: 1 }, { a: 1, b: undefined }), []);
  assert.deepEqual(
    createPatch(
      { a: 1, b: 2 },
      objectOf([
        ['a', 1],
        ['b', undefined],
      ]),
    ),
    [{ op: 'remove', path: '/b' }],
  );
});

test('complexity guard: 2,000 env vars plus an appended sidecar diff fast and in few ops', () => {
  const env = Array.from({ length: 2000 }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` }));
  const original = { metadata: { name: 'big' }, spec: { containers: [{ name: 'app', image: 'app:1', env }] } };
  const modified = cloneJson(original) as typeof original;
  modified.spec.containers.push({ name: 'istio-proxy', image: 'proxy', env: [{ name: 'X', value: '1' }] });
  modified.spec.containers[0].env.splice(1000, 0, { name: 'INJECTED', value: 'yes' });
  modified.spec.containers[0].env[1999].value = 'changed';

  const started = performance.now();
  const ops = createPatch(original, modified);
  const elapsed = performance.now() - started;

  assert.equal(ops.length, 3, JSON.stringify(ops));
  assert.ok(elapsed < 200, `2,000 env vars took ${elapsed.toFixed(1)} ms; the diff must stay near-linear`);
  assertPatchTransforms(original, modified, ops);

  // 200 containers reversed: still one pass, correct, and bounded.
  const many = { c: Array.from({ length: 200 }, (_, i) => ({ name: `c${i}`, env: env.slice(0, 10) })) };
  const reversed = { c: [...many.c].reverse() };
  const t2 = performance.now();
  const ops2 = createPatch(many, reversed);
  assert.ok(performance.now() - t2 < 200);
  assertPatchTransforms(many, reversed, ops2, { ownOnly: true });
});

test('createPatch refuses an added value that is not JSON data, naming where it is', () => {
  const cases: [unknown, string][] = [
    [{ spec: { containers: [{ name: 'a', ports: [80, Number.NaN] }] } }, '/spec/containers/0/ports/1'],
    [{ metadata: { labels: { 'a/b': () => 1 } } }, '/metadata/labels/a~1b'],
    [{ spec: { when: new Date(0) } }, '/spec/when'],
  ];
  for (const [modified, path] of cases) {
    assert.throws(
      () => createPatch({}, modified),
      (err: unknown) => err instanceof InjectorError && err.code === 'SI_PATCH' && err.message.includes(`"${path}"`),
      path,
    );
  }
  // Valid data of the same shapes passes, and so do undefined entries in maps (JSON drops them).
  assert.deepEqual(createPatch({}, { spec: { containers: [{ name: 'a', ports: [80, 81] }] }, x: undefined }), [
    { op: 'add', path: '/spec', value: { containers: [{ name: 'a', ports: [80, 81] }] } },
  ]);
});

test('createPatch refuses an added value nested past the depth limit', () => {
  const deep: Record<string, unknown> = {};
  let at = deep;
  for (let i = 0; i < 2000; i++) at = (at.n = {}) as Record<string, unknown>;
  assert.throws(
    () => createPatch({}, { spec: deep }),
    (err: unknown) => err instanceof InjectorError && err.code === 'SI_INPUT_LIMIT',
  );
});
