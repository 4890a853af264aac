import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig } from '../profiles/index.js';
import type { LoadedConfig } from '../config/types.js';
import { injectPod } from '../inject/index.js';
import type { InjectionContext } from '../inject/types.js';
import { createMetrics } from '../telemetry/metrics.js';
import { podReview, samplePod } from '../testing/review-fixtures.js';
import { createHandler, type AdmissionCall } from './handler.js';
import { ResultCache } from './result-cache.js';

function call(review: unknown, path = '/inject'): AdmissionCall {
  return { body: Buffer.from(JSON.stringify(review)), path, query: '', startedAt: 0 };
}

interface Reply {
  response: { uid: string; allowed: boolean; patch?: string; warnings?: string[] };
}

function setup(cache: ResultCache | undefined, config: () => LoadedConfig = defaultConfig) {
  let calls = 0;
  const inject = (pod: unknown, ctx: InjectionContext, cfg: LoadedConfig) => {
    calls++;
    return injectPod(pod, ctx, cfg);
  };
  const metrics = createMetrics({ processMetrics: false });
  const handler = createHandler({ inject, getConfig: config, cache, metrics, now: () => 1 });
  return { handler, metrics, calls: () => calls };
}

const answer = (body: string): Reply => JSON.parse(body) as Reply;

test('replicas of one pod (same body, different uid) are injected once, each answered with its own uid and the same patch', async () => {
  const { handler, metrics, calls } = setup(new ResultCache());
  const pod = samplePod('');
  const first = answer(handler(call(podReview(pod, { uid: '0a1b2c3d-0000-4000-8000-000000000001' }))).body);
  const second = answer(handler(call(podReview(pod, { uid: '0a1b2c3d-0000-4000-8000-000000000002' }))).body);
  assert.equal(calls(), 1);
  assert.equal(first.response.uid, '0a1b2c3d-0000-4000-8000-000000000001');
  assert.equal(second.response.uid, '0a1b2c3d-0000-4000-8000-000000000002');
  assert.ok(first.response.patch);
  assert.equal(second.response.patch, first.response.patch);
  const text = (await metrics.render()).body;
  assert.match(text, /sidecar_injector_result_cache_total\{result="hit"\} 1/);
  assert.match(text, /sidecar_injector_result_cache_total\{result="miss"\} 1/);
});

test('a cached answer is byte-identical to an uncached one', () => {
  const pod = samplePod('');
  const review = podReview(pod, { uid: 'aaaaaaaa-0000-4000-8000-00000000000a' });
  const uncached = setup(undefined).handler(call(review)).body;
  const { handler } = setup(new ResultCache());
  handler(call(podReview(pod, { uid: 'aaaaaaaa-0000-4000-8000-00000000000b' })));
  assert.equal(handler(call(review)).body, uncached);
});

test('a different pod, a different path or a reloaded config is injected afresh', () => {
  let config = defaultConfig();
  const { handler, calls } = setup(new ResultCache(), () => config);
  const pod = samplePod('');
  handler(call(podReview(pod, { uid: 'bbbbbbbb-0000-4000-8000-000000000001' })));
  handler(call(podReview(samplePod('', { annotations: { team: 'blue' } }), { uid: 'bbbbbbbb-0000-4000-8000-000000000002' })));
  assert.equal(calls(), 2);
  handler(call(podReview(pod, { uid: 'bbbbbbbb-0000-4000-8000-000000000003' }), '/inject/cluster/c1'));
  assert.equal(calls(), 3);
  config = Object.assign(Object.create(Object.getPrototypeOf(config) as object) as LoadedConfig, config);
  handler(call(podReview(pod, { uid: 'bbbbbbbb-0000-4000-8000-000000000004' })));
  assert.equal(calls(), 4);
});

test('a body in which the uid also appears elsewhere is not cached (the key would not be sound)', () => {
  const { handler, calls } = setup(new ResultCache());
  const uid = 'cccccccc-0000-4000-8000-000000000001';
  const pod = samplePod('', { annotations: { 'echo-uid': uid } });
  handler(call(podReview(pod, { uid })));
  handler(call(podReview(pod, { uid })));
  assert.equal(calls(), 2);
});

test('keys are short digests: equal for bodies that differ only in the uid, different otherwise', () => {
  const cache = new ResultCache();
  const a = cache.key(Buffer.from('{"uid":"u-aaaa","pod":1}'), 'u-aaaa', '/inject')!;
  const b = cache.key(Buffer.from('{"uid":"u-bbbb","pod":1}'), 'u-bbbb', '/inject')!;
  assert.equal(a, b);
  assert.ok(a.length < 64);
  assert.notEqual(cache.key(Buffer.from('{"uid":"u-aaaa","pod":2}'), 'u-aaaa', '/inject'), a);
  assert.notEqual(cache.key(Buffer.from('{"uid":"u-aaaa","pod":1}'), 'u-aaaa', '/inject/x'), a);
  assert.notEqual(cache.key(Buffer.from('{"uid":"u-aaaa"  ,"pod":1}'), 'u-aaaa', '/inject'), a, 'every byte of the body counts');
});

test('the cache is bounded: the least recently used entry goes first', () => {
  const cache = new ResultCache({ maxEntries: 2 });
  const config = {};
  const skipped = { kind: 'skipped' as const, decision: { inject: false, reason: 'host-network' as const, message: '', steps: [], warnings: [] }, warnings: [] };
  const keyFor = (n: number) => cache.key(Buffer.from(`{"uid":"u-${n}-uid","x":${n}}`), `u-${n}-uid`, '/inject')!;
  cache.set(config, keyFor(1), skipped);
  cache.set(config, keyFor(2), skipped);
  assert.ok(cache.get(config, keyFor(1)), 'touch 1 so 2 is the oldest');
  cache.set(config, keyFor(3), skipped);
  assert.equal(cache.size(config), 2);
  assert.equal(cache.get(config, keyFor(2)), undefined);
  assert.ok(cache.get(config, keyFor(1)));
  assert.ok(cache.get(config, keyFor(3)));
  const injected = { kind: 'injected' as const, decision: skipped.decision, warnings: [], patch: [{ op: 'add' as const, path: '/metadata/labels', value: { big: 'x'.repeat(100) } }] };
  const tiny = new ResultCache({ maxBytes: 50 });
  tiny.set(config, keyFor(4), injected);
  assert.equal(tiny.size(config), 0, 'a patch over the byte bound is answered but not remembered');
  tiny.set(config, keyFor(5), skipped);
  assert.equal(tiny.size(config), 1);
});

/**
 * The crafted pair: one prefix P and one suffix S around a cut, two different pods, and a uid cut
 * that crosses string boundaries. Body A's `request.uid` is written escaped and decodes to the raw
 * bytes of its cut, which close `request` early, so S's second `uid` and `object` land in a
 * top-level member and A's pod is the first one (opted out). Body B's cut is a plain number, so
 * S's `uid` and `object` are request members and, being last, win: B's pod is the second one.
 * Cutting the uid's bytes wherever they occur gave both bodies one key, and A got B's patch.
 */
test('a crafted pair whose uid cut crosses string boundaries shares no key: each pod is answered on its own', () => {
  const podA = { metadata: { name: 'a', namespace: 'shop', labels: { 'sidecar.istio.io/inject': 'false' } }, spec: { containers: [{ name: 'a', image: 'a:1' }] } };
  const podB = samplePod('');
  const uidA = '1},"x":{"y":1';
  const uidB = '1234567';
  const head = JSON.stringify(podReview(podA, { uid: uidA, namespace: 'shop' }));
  const P = `${head.slice(0, head.lastIndexOf('}}'))},"zz":`;
  const S = `,"uid":"123456\\u0037","object":${JSON.stringify(podB)}}}`;
  const bodyA = Buffer.from(P + uidA + S);
  const bodyB = Buffer.from(P + uidB + S);
  const a = JSON.parse(bodyA.toString()) as { request: { uid: string; object: unknown } };
  const b = JSON.parse(bodyB.toString()) as { request: { uid: string; object: unknown } };
  assert.equal(a.request.uid, uidA);
  assert.deepEqual(a.request.object, podA);
  assert.equal(b.request.uid, uidB);
  assert.deepEqual(b.request.object, podB);
  // What the old key did: the uid's bytes occur once in each body, at the same offset, with the
  // same bytes around them.
  assert.equal(bodyA.indexOf(uidA), P.length);
  assert.equal(bodyB.indexOf(uidB), P.length);
  assert.equal(bodyA.indexOf(uidA, P.length + 1), -1);
  assert.equal(bodyB.indexOf(uidB, P.length + 1), -1);

  const cache = new ResultCache();
  assert.equal(cache.key(bodyA, uidA, '/inject'), undefined, 'a cut that is not one whole string is not a key');
  assert.equal(cache.key(bodyB, uidB, '/inject'), undefined);

  const { handler, calls } = setup(cache);
  const send = (body: Buffer) => answer(handler({ body, path: '/inject', query: '', startedAt: 0 }).body);
  assert.ok(send(bodyB).response.patch, 'B is injected');
  const replyA = send(bodyA);
  assert.equal(replyA.response.uid, uidA);
  assert.equal(replyA.response.patch, undefined, "A opted out: it must not get B's patch");
  assert.equal(calls(), 2);
});
