/**
 * The cache hit that never parses (result-cache.ts `probe`, replay.ts): taken only when the
 * body is a stored one with another plain uid, exactly once, at a proven request.uid place; its
 * answer, counters and log line are the full path's, byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig } from '../profiles/index.js';
import type { LoadedConfig } from '../config/types.js';
import { injectPod } from '../inject/index.js';
import type { InjectionContext, JsonPatchOperation } from '../inject/types.js';
import { applyPatch } from '../patch/index.js';
import { createMetrics } from '../telemetry/metrics.js';
import { captureLogger } from '../testing/logs.js';
import { podReview, samplePod } from '../testing/review-fixtures.js';
import { createHandler, type AdmissionCall } from './handler.js';
import { ResultCache } from './result-cache.js';
import { plainStringEnd, uidWrittenPlainly } from './uid-span.js';

const config = defaultConfig();

function setup(level: 'info' | 'debug' = 'info', now: () => number = () => 1) {
  let cores = 0;
  const inject = (pod: unknown, ctx: InjectionContext, cfg: LoadedConfig) => {
    cores++;
    return injectPod(pod, ctx, cfg);
  };
  const logs = captureLogger(level);
  const metrics = createMetrics({ processMetrics: false });
  const cache = new ResultCache();
  const handler = createHandler({ inject, getConfig: () => config, cache, metrics, logger: logs.logger, now });
  return { handler, cache, metrics, logs: logs.lines, cores: () => cores };
}

/** A handler without a cache: what every answer must equal. Its clock is fixed like setup's: calls start at 0, and
 * performance.now() counts from process start, so a process that took 2.5 s to load (a busy machine) timed them out. */
const fresh = createHandler({ inject: injectPod, getConfig: () => config, now: () => 1 });

const call = (body: Buffer | string, path = '/inject'): AdmissionCall => ({ body: Buffer.isBuffer(body) ? body : Buffer.from(body), path, query: '', startedAt: 0 });

/** Run `fn`, counting JSON.parse calls on a review (the full path parses the body once; the core may parse other text). */
function parses<T>(fn: () => T): { value: T; parses: number } {
  const original = JSON.parse;
  let n = 0;
  JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    if (String(text).includes('AdmissionReview')) n++;
    return original(text, reviver);
  }) as typeof JSON.parse;
  try {
    return { value: fn(), parses: n };
  } finally {
    JSON.parse = original;
  }
}

const uid = (n: number): string => `0a1b2c3d-0000-4000-8000-${String(n).padStart(12, '0')}`;
const review = (n: number, pod: unknown = samplePod('')): string => JSON.stringify(podReview(pod, { uid: uid(n) }));

test('a repeated pod is answered without parsing, byte for byte the answer of a fresh handler', () => {
  const { handler, cores } = setup();
  const first = parses(() => handler(call(review(1))));
  assert.equal(first.parses, 1);
  for (const n of [2, 3, 4]) {
    const again = parses(() => handler(call(review(n))));
    assert.equal(again.parses, 0, `request ${n} is not parsed`);
    assert.equal(again.value.status, 200);
    assert.equal(again.value.outcome, 'injected');
    assert.equal(again.value.body, fresh(call(review(n))).body);
  }
  assert.equal(cores(), 1);
});

test('skipped and already-injected answers replay too, and a v1beta1 review keeps its version', () => {
  const { handler } = setup();
  const optedOut = samplePod('', { annotations: { 'sidecar.istio.io/inject': 'false' } });
  const beta = (n: number) => JSON.stringify(podReview(samplePod(''), { uid: uid(n), apiVersion: 'admission.k8s.io/v1beta1' }));
  for (const [make, outcome] of [[(n: number) => review(n, optedOut), 'skipped'], [beta, 'injected']] as const) {
    handler(call(make(10)));
    const again = parses(() => handler(call(make(11))));
    assert.equal(again.parses, 0);
    assert.equal(again.value.outcome, outcome);
    assert.equal(again.value.body, fresh(call(make(11))).body);
  }
  // The pod as the webhook left it: answered "already injected" (no patch), replayed alike.
  const out = JSON.parse(fresh(call(review(12))).body) as { response: { patch: string } };
  const injectedPod = applyPatch(samplePod(''), JSON.parse(Buffer.from(out.response.patch, 'base64').toString()) as JsonPatchOperation[]);
  handler(call(review(13, injectedPod)));
  const again = parses(() => handler(call(review(14, injectedPod))));
  assert.equal(again.parses, 0);
  assert.equal(again.value.outcome, 'skipped');
  assert.equal(again.value.body, fresh(call(review(14, injectedPod))).body);
  assert.equal((JSON.parse(again.value.body) as { response: { patch?: string } }).response.patch, undefined);
});

test('the replayed log line and counters are those of the full path', async () => {
  const { handler, logs, metrics } = setup();
  handler(call(review(30)));
  handler(call(review(31)));
  const [full, replayed] = logs.filter((l) => l.msg === 'admission');
  for (const k of ['namespace', 'pod', 'kind', 'operation', 'dryRun', 'decision', 'reason', 'patchOps']) assert.deepEqual(replayed[k], full[k], k);
  assert.equal(full.uid, uid(30));
  assert.equal(replayed.uid, uid(31));
  assert.equal(typeof replayed.durationMs, 'number');
  const text = (await metrics.render()).body;
  assert.match(text, /sidecar_injector_result_cache_total\{result="hit"\} 1/);
  assert.match(text, /sidecar_injector_injections_total 2/);
});

test('a uid that occurs twice (also in the pod) is not replayed, and is answered correctly', () => {
  const { handler } = setup();
  handler(call(review(40)));
  const echo = uid(41);
  // Same length as the stored pod's text around the uid would need: the pod differs, so this is
  // a miss anyway; the point is that the probe refuses before hashing a twice-present uid.
  const body = review(41, samplePod('', { annotations: { echo } }));
  const r = parses(() => handler(call(body)));
  assert.equal(r.parses, 1);
  assert.equal(r.value.body, fresh(call(body)).body);
});

test('the same body with its uid twice is parsed, not replayed, after a replayable entry exists', () => {
  const { handler } = setup();
  const pod = samplePod('', { annotations: { note: uid(51) } });
  handler(call(review(50, pod)));
  // Request 51 carries uid 51 in the annotation too: its bytes occur twice.
  const r = parses(() => handler(call(review(51, pod))));
  assert.equal(r.parses, 1);
  assert.equal(r.value.body, fresh(call(review(51, pod))).body);
});

test('a uid absent from the probed place (another layout) falls back to the full path', () => {
  const { handler } = setup();
  handler(call(review(60)));
  // request.uid moved to the end of request: the stored offset now points into `kind`.
  const moved = podReview(samplePod(''), { uid: uid(61) }) as { request: Record<string, unknown> };
  const { uid: u, ...rest } = moved.request;
  const body = JSON.stringify({ ...moved, request: { ...rest, uid: u } });
  const r = parses(() => handler(call(body)));
  assert.equal(r.parses, 1);
  assert.equal(r.value.body, fresh(call(body)).body);
  // A body without any uid string is still a clean 400.
  const none = JSON.stringify({ ...moved, request: rest });
  assert.equal(handler(call(none)).status, 400);
});

test('an escaped uid is never replayed: neither stored as replayable nor taken from the bytes', () => {
  const { handler } = setup();
  // request.uid written with \u0061 escapes; the same characters appear plainly in the pod.
  const plain = 'a0a0a0a0';
  const pod = samplePod('', { annotations: { look: plain } });
  const escaped = JSON.stringify(podReview(pod, { uid: plain })).replace(`"uid":"${plain}"`, '"uid":"\\u0061\\u0030a0a0a0"');
  assert.equal((JSON.parse(escaped) as { request: { uid: string } }).request.uid, plain);
  assert.equal(uidWrittenPlainly(Buffer.from(escaped), plain), false);
  const first = handler(call(escaped));
  assert.equal(first.body, fresh(call(escaped)).body);
  const again = parses(() => handler(call(escaped)));
  assert.equal(again.parses, 1, 'the look-alike in the pod is not taken for the uid');
  assert.equal(JSON.parse(again.value.body).response.uid, plain);
  // A new body whose uid at the replayable offset is escaped is parsed, and answered with its uid.
  handler(call(review(70)));
  const esc = review(71).replace(uid(71), `\\u0030${uid(71).slice(1)}`);
  const r = parses(() => handler(call(esc)));
  assert.equal(r.parses, 1);
  assert.equal(r.value.body, fresh(call(esc)).body);
  assert.equal(JSON.parse(r.value.body).response.uid, uid(71));
});

test('whitespace variants replay at their own offsets', () => {
  const { handler } = setup();
  const pretty = (n: number) => JSON.stringify(podReview(samplePod(''), { uid: uid(n) }), null, 2);
  const spaced = (n: number) => review(n).replace('"uid":', '"uid" :  ');
  for (const make of [pretty, spaced]) {
    handler(call(make(80)));
    const r = parses(() => handler(call(make(81))));
    assert.equal(r.parses, 0);
    assert.equal(r.value.body, fresh(call(make(81))).body);
  }
  // Both layouts are remembered: the first one still replays.
  assert.equal(parses(() => handler(call(pretty(82)))).parses, 0);
});

test('a uid that smuggles quotes or controls into the probed place is a miss, answered by the full path', () => {
  const { handler, cores } = setup();
  handler(call(review(90)));
  const base = review(91);
  // The bytes up to the next quote are a uid; the rest of the body then differs from the stored one.
  const smuggled = base.replace(uid(91), `${uid(91)}","note":"x`);
  const r = parses(() => handler(call(smuggled)));
  assert.equal(r.parses, 1);
  assert.equal(r.value.body, fresh(call(smuggled)).body);
  const tab = base.replace(uid(91), `${uid(91).slice(0, -1)}\t`);
  assert.equal(handler(call(tab)).status, 400, 'a raw control character is invalid JSON, not a replay');
  assert.equal(cores(), 2);
});

/** The crafted pair of issue 13 (result-cache.test.ts), sent after replayable entries exist. */
test('the crafted pair shares no key with each other or with replayable entries', () => {
  const { handler } = setup();
  handler(call(review(100)));
  handler(call(review(101)));
  const podA = { metadata: { name: 'a', namespace: 'shop', labels: { 'sidecar.istio.io/inject': 'false' } }, spec: { containers: [{ name: 'a', image: 'a:1' }] } };
  const uidA = '1},"x":{"y":1';
  const head = JSON.stringify(podReview(podA, { uid: uidA, namespace: 'shop' }));
  const P = `${head.slice(0, head.lastIndexOf('}}'))},"zz":`;
  const S = `,"uid":"123456\\u0037","object":${JSON.stringify(samplePod(''))}}}`;
  const bodyA = Buffer.from(P + uidA + S);
  const bodyB = Buffer.from(`${P}1234567${S}`);
  const b = JSON.parse(handler(call(bodyB)).body) as { response: { uid: string; patch?: string } };
  assert.equal(b.response.uid, '1234567');
  assert.ok(b.response.patch);
  const a = parses(() => handler(call(bodyA)));
  assert.equal(a.parses, 1);
  const replyA = JSON.parse(a.value.body) as { response: { uid: string; patch?: string } };
  assert.equal(replyA.response.uid, uidA);
  assert.equal(replyA.response.patch, undefined, "A opted out: it must not get B's patch");
});

test('a replay candidate past its deadline gets the full path (the timeout answer)', () => {
  let t = 0;
  const { handler } = setup('info', () => t);
  handler(call(review(110)));
  t = 60_000;
  const r = parses(() => handler({ ...call(review(111)), query: 'timeout=10s' }));
  assert.equal(r.parses, 1);
  assert.match(r.value.body, /SI_ADMISSION_TIMEOUT/);
});

test('at debug level (the patch is logged) nothing is replayed', () => {
  const { handler, logs } = setup('debug');
  handler(call(review(120)));
  const r = parses(() => handler(call(review(121))));
  assert.equal(r.parses, 1);
  assert.equal(logs.filter((l) => l.msg === 'admission patch').length, 2);
});

test('another path or a reloaded config never replays an entry made for the first', () => {
  let cfg = config;
  let cores = 0;
  const cache = new ResultCache();
  const handler = createHandler({
    inject: (pod: unknown, ctx: InjectionContext, c: LoadedConfig) => {
      cores++;
      return injectPod(pod, ctx, c);
    },
    getConfig: () => cfg,
    cache,
    now: () => 1,
  });
  handler(call(review(130)));
  assert.equal(parses(() => handler(call(review(131), '/inject/cluster/c1'))).parses, 1);
  cfg = Object.assign(Object.create(Object.getPrototypeOf(config) as object) as LoadedConfig, config);
  assert.equal(parses(() => handler(call(review(132)))).parses, 1);
  assert.equal(cores, 3);
});

test('plainStringEnd takes 1 to max printable ASCII characters after a quote, without a backslash', () => {
  const b = Buffer.from('{"uid":"abc","x":"","y":"a\\"b","z":"é"}');
  assert.equal(plainStringEnd(b, 8, 128), 11);
  assert.equal(plainStringEnd(b, 8, 2), -1, 'longer than max');
  assert.equal(plainStringEnd(b, 18, 128), -1, 'empty');
  assert.equal(plainStringEnd(b, 25, 128), -1, 'a backslash');
  assert.equal(plainStringEnd(b, b.indexOf('é'), 128), -1, 'not ASCII');
  assert.equal(plainStringEnd(b, 7, 128), -1, 'not after a quote');
  assert.equal(uidWrittenPlainly(Buffer.from('{"a":"x\\u002fy"}'), 'abc'), true);
  assert.equal(uidWrittenPlainly(Buffer.from('{"a":"\\u0062"}'), 'abc'), false);
  assert.equal(uidWrittenPlainly(Buffer.from('{}'), 'a/b'), false, '\\/ decodes to a slash');
});

test('consecutive replicas (compared byte for byte with the last one) replay; one changed byte anywhere else does not', () => {
  const { handler, cores } = setup();
  for (const n of [140, 141, 142, 143]) assert.equal(handler(call(review(n))).body, fresh(call(review(n))).body);
  assert.equal(cores(), 1);
  assert.equal(parses(() => handler(call(review(144)))).parses, 0);
  // Same length, same uid offset, one byte of the pod changed (a name's last letter).
  const changed = review(145).replace('"web-7d9c6b5f4-"', '"web-7d9c6b5f5-"');
  assert.notEqual(changed, review(145));
  const r = parses(() => handler(call(changed)));
  assert.equal(r.parses, 1);
  assert.equal(r.value.body, fresh(call(changed)).body);
  assert.equal(cores(), 2);
  // A changed byte just before and just after the uid's quotes.
  const before = review(146).replace('"uid":"0a1b', '"uiD":"0a1b');
  assert.equal(parses(() => handler(call(before))).parses, 1);
  const after = review(147).replace(`${uid(147)}","kind"`, `${uid(147)}","kinD"`);
  assert.equal(parses(() => handler(call(after))).parses, 1);
  // And the original replays again.
  assert.equal(parses(() => handler(call(review(148)))).parses, 0);
  assert.equal(handler(call(review(149))).body, fresh(call(review(149))).body);
});
