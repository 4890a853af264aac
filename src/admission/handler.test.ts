import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyWithFastJsonPatch } from '../../test/support/patch/appliers.js';
import { createHandler, type AdmissionCall } from './handler.js';
import { defaultConfig } from '../profiles/index.js';
import { injectPod } from '../inject/index.js';
import { podReview, samplePod } from '../../test/support/review-fixtures.js';
import { captureLogger } from '../../test/support/logs.js';
import { createMetrics } from '../telemetry/metrics.js';
import type { InjectionContext, InjectionResult } from '../inject/types.js';

interface Out {
  response: { uid: string; allowed: boolean; patch?: string; warnings?: string[]; status?: { code: number; message: string } };
  apiVersion: string;
}

function call(body: unknown, extra: Partial<AdmissionCall> = {}): AdmissionCall {
  return { body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), path: '/inject', query: 'timeout=10s', startedAt: 0, ...extra };
}

/** The real core and the built-in config; calls are recorded so tests see what the core got. */
const config = defaultConfig();
const lastCall: { pod?: unknown; ctx?: InjectionContext } = {};
const recordingInject: typeof injectPod = (pod, ctx, cfg) => {
  lastCall.pod = pod;
  lastCall.ctx = ctx;
  return injectPod(pod, ctx, cfg);
};
/** An annotation value the built-in (Istio-style) config refuses: SI_INJECT_ANNOTATION. */
const BAD_ANNOTATION = { 'sidecar.istio.io/proxyCPU': 'bad value' };

function setup(options: { onError?: 'deny' | 'allow'; inject?: typeof injectPod; now?: () => number } = {}) {
  const logs = captureLogger('debug');
  const metrics = createMetrics({ processMetrics: false });
  const handler = createHandler({
    inject: options.inject ?? recordingInject,
    getConfig: () => config,
    onError: options.onError,
    logger: logs.logger,
    metrics,
    now: options.now ?? (() => 1),
  });
  return { handler, logs: logs.lines, metrics };
}

const parse = (body: string): Out => JSON.parse(body) as Out;

test('a pod CREATE is answered with a patch that applies and adds the sidecar', () => {
  const { handler, logs } = setup();
  const pod = samplePod();
  const reply = handler(call(podReview(pod, { uid: 'u-1' })));
  assert.equal(reply.status, 200);
  assert.equal(reply.outcome, 'injected');
  const out = parse(reply.body);
  assert.equal(out.response.uid, 'u-1');
  assert.equal(out.response.allowed, true);
  const ops = JSON.parse(Buffer.from(out.response.patch as string, 'base64').toString());
  const patchedPod = applyWithFastJsonPatch(pod, ops) as { spec: { containers: { name: string }[] } };
  assert.deepEqual(
    patchedPod.spec.containers.map((c) => c.name),
    ['web', 'log-shipper', 'sidecar-proxy'],
  );
  const line = logs.find((l) => l.msg === 'admission');
  assert.equal(line?.decision, 'injected');
  assert.equal(line?.uid, 'u-1');
  assert.equal(line?.pod, 'web-7d9c6b5f4-x2x9q');
  assert.ok(
    logs.some((l) => l.msg === 'admission patch' && l.level === 'debug'),
    'the patch is logged at debug only',
  );
});

test('the core gets the pod as received (managedFields are its business: inject/pod-input), and the original object is not modified', () => {
  const { handler } = setup();
  const pod = samplePod();
  const before = structuredClone(pod);
  handler(call(podReview(pod)));
  const seen = lastCall.pod as { metadata: Record<string, unknown> };
  assert.equal(Object.hasOwn(seen.metadata, 'managedFields'), true, 'the handler passes the pod on as received');
  assert.equal(seen.metadata.name, 'web-7d9c6b5f4-x2x9q');
  assert.deepEqual(pod, before);
});

test('anything but a Pod CREATE is allowed untouched, with the reason counted', async () => {
  const { handler, metrics } = setup();
  const cases = [
    podReview(samplePod(), { operation: 'UPDATE' }),
    podReview(samplePod(), { operation: 'DELETE' }),
    podReview(samplePod(), { operation: 'CONNECT' }),
    podReview({ kind: 'Deployment' }, { kind: { group: 'apps', version: 'v1', kind: 'Deployment' } }),
    podReview(samplePod(), { subResource: 'status' }),
  ];
  for (const review of cases) {
    const reply = handler(call(review));
    assert.equal(reply.status, 200);
    const out = parse(reply.body);
    assert.equal(out.response.allowed, true);
    assert.equal(out.response.patch, undefined);
  }
  const text = (await metrics.render()).body;
  assert.match(text, /sidecar_injector_skips_total\{reason="operation-not-create"\} 3/);
  assert.match(text, /sidecar_injector_skips_total\{reason="not-a-pod"\} 1/);
  assert.match(text, /sidecar_injector_skips_total\{reason="subresource"\} 1/);
});

test('the answer is in the request version, v1beta1 included', () => {
  const { handler } = setup();
  const out = parse(handler(call(podReview(samplePod(), { apiVersion: 'admission.k8s.io/v1beta1' }))).body);
  assert.equal(out.apiVersion, 'admission.k8s.io/v1beta1');
});

test('injection failure: --on-error=deny refuses with the error code; allow admits unmodified with a warning', async () => {
  const pod = samplePod('p', { annotations: BAD_ANNOTATION });
  const deny = setup({ onError: 'deny' });
  const d = parse(deny.handler(call(podReview(pod, { uid: 'u-d' }))).body);
  assert.equal(d.response.uid, 'u-d');
  assert.equal(d.response.allowed, false);
  assert.equal(d.response.status?.code, 400);
  assert.match(d.response.status?.message ?? '', /SI_INJECT_ANNOTATION.*bad value/);
  assert.match((await deny.metrics.render()).body, /failures_total\{code="SI_INJECT_ANNOTATION",action="denied"\} 1/);

  const allow = setup({ onError: 'allow' });
  const a = parse(allow.handler(call(podReview(pod, { uid: 'u-a' }))).body);
  assert.equal(a.response.allowed, true);
  assert.equal(a.response.patch, undefined);
  assert.match(a.response.warnings?.[0] ?? '', /^sidecar not injected \(SI_INJECT_ANNOTATION\)/);
  assert.ok((a.response.warnings?.[0].length ?? 0) <= 120);
  assert.match((await allow.metrics.render()).body, /failures_total\{code="SI_INJECT_ANNOTATION",action="allowed"\} 1/);
});

test('a bug in the core follows --on-error and logs its stack at error level', () => {
  const buggy: typeof injectPod = (pod, ctx, cfg) => {
    // A genuine TypeError, as a bug in the core would produce.
    (undefined as unknown as { boom(): void }).boom();
    return injectPod(pod, ctx, cfg);
  };
  const { handler, logs } = setup({ onError: 'deny', inject: buggy });
  const reply = handler(call(podReview(samplePod('p'), { uid: 'u-bug' })));
  assert.equal(reply.status, 200);
  const out = parse(reply.body);
  assert.equal(out.response.allowed, false);
  assert.equal(out.response.status?.code, 500);
  const line = logs.find((l) => l.level === 'error');
  assert.equal(line?.uid, 'u-bug');
  assert.match(String(line?.stack), /TypeError/);
});

test('a bug in the handler itself becomes an HTTP 500 that still carries the uid', () => {
  const broken = (() => ({ kind: 'injected' })) as unknown as typeof injectPod; // result without decision
  const { handler, logs } = setup({ inject: broken });
  const reply = handler(call(podReview(samplePod(), { uid: 'u-500' })));
  assert.equal(reply.status, 500);
  assert.equal(reply.outcome, 'error');
  const out = parse(reply.body);
  assert.equal(out.response.uid, 'u-500');
  assert.equal(out.response.allowed, false);
  assert.ok(logs.some((l) => l.level === 'error' && typeof l.stack === 'string'));
});

test('object null, an array or a string is never patched', () => {
  for (const object of [null, [1], 'pod']) {
    for (const onError of ['deny', 'allow'] as const) {
      const { handler } = setup({ onError });
      const out = parse(handler(call(podReview(object))).body);
      assert.equal(out.response.patch, undefined);
      assert.equal(out.response.allowed, onError === 'allow');
    }
  }
});

test('past the internal deadline the core is not called and --on-error answers', () => {
  let clock = 0;
  let called = false;
  const spy = (...args: Parameters<typeof injectPod>): InjectionResult => {
    called = true;
    return injectPod(...args);
  };
  const { handler } = setup({ inject: spy, now: () => clock });
  clock = 1600; // budget for ?timeout=2s is 1.5 s
  const out = parse(handler(call(podReview(samplePod()), { query: 'timeout=2s', startedAt: 0 })).body);
  assert.equal(called, false);
  assert.equal(out.response.allowed, false);
  assert.match(out.response.status?.message ?? '', /SI_ADMISSION_TIMEOUT/);
  clock = 1400;
  const ok = parse(handler(call(podReview(samplePod()), { query: 'timeout=2s', startedAt: 0 })).body);
  assert.equal(called, true);
  assert.equal(ok.response.allowed, true);
});

test('dry-run requests get the same patch as real ones', () => {
  const { handler } = setup();
  const pod = samplePod();
  const real = parse(handler(call(podReview(pod, { uid: 'same' }))).body);
  const dry = parse(handler(call(podReview(pod, { uid: 'same', dryRun: true }))).body);
  assert.deepEqual(dry, real);
});

test('the namespace comes from the request when the pod has none; path params reach the core', () => {
  const { handler } = setup();
  const pod = samplePod();
  delete (pod.metadata as Record<string, unknown>).namespace;
  delete (pod.metadata as Record<string, unknown>).name;
  handler(call(podReview(pod, { namespace: 'team-a' }), { path: '/inject/cluster/c1/net/n1' }));
  const ctx = lastCall.ctx;
  assert.equal(ctx?.namespace, 'team-a');
  assert.equal(ctx?.mode, 'webhook');
  assert.deepEqual({ ...ctx?.pathParams }, { cluster: 'c1', net: 'n1' });
});

test('skip reasons worth knowing and the core hints become warnings; plain opt-outs stay quiet', () => {
  const { handler } = setup();
  const host = samplePod();
  (host.spec as Record<string, unknown>).hostNetwork = true;
  const h = parse(handler(call(podReview(host))).body);
  assert.equal(h.response.allowed, true);
  assert.match(h.response.warnings?.[0] ?? '', /^sidecar not injected \(host-network\)/);
  const off = parse(handler(call(podReview(samplePod('p', { annotations: { 'sidecar.istio.io/inject': 'false' } })))).body);
  assert.equal(off.response.patch, undefined);
  assert.equal(off.response.warnings, undefined);
  const yes = parse(handler(call(podReview(samplePod('p', { annotations: { 'sidecar.istio.io/inject': 'yes' } })))).body);
  assert.ok(yes.response.patch);
  assert.deepEqual(yes.response.warnings, [
    'annotation sidecar.istio.io/inject="yes" ignored: only "true" or "false" count; the default applies. Write "true".',
  ]);
});

test('an already injected pod gets no patch and is counted as already-injected', async () => {
  const { handler, metrics } = setup();
  const pod = samplePod();
  const first = parse(handler(call(podReview(pod))).body);
  const ops = JSON.parse(Buffer.from(first.response.patch as string, 'base64').toString());
  const injected = applyWithFastJsonPatch(pod, ops);
  const again = parse(handler(call(podReview(injected))).body);
  assert.equal(again.response.allowed, true);
  assert.equal(again.response.patch, undefined);
  assert.match((await metrics.render()).body, /skips_total\{reason="already-injected"\} 1/);
});

test('malformed reviews are 400 with a Status body and no core call', () => {
  const { handler } = setup();
  const reply = handler(call('{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":null}'));
  assert.equal(reply.status, 400);
  assert.equal(reply.outcome, 'invalid');
  const body = JSON.parse(reply.body) as { kind: string; code: number; message: string };
  assert.equal(body.kind, 'Status');
  assert.equal(body.code, 400);
  assert.match(body.message, /request must be an object/);
});

test('property: any JSON body or any review shape gets 200 or 400, never a 500, and a 200 always echoes the uid', async () => {
  const fc = (await import('fast-check')).default;
  const { handler } = setup();
  const anyRequest = fc.record(
    {
      uid: fc.oneof(fc.uuid(), fc.string(), fc.integer(), fc.constant(null)),
      kind: fc.oneof(fc.constant({ group: '', version: 'v1', kind: 'Pod' }), fc.jsonValue({ maxDepth: 2 })),
      operation: fc.oneof(fc.constantFrom('CREATE', 'UPDATE', 'DELETE', 'CONNECT'), fc.jsonValue({ maxDepth: 1 })),
      namespace: fc.oneof(fc.string(), fc.constant(undefined)),
      subResource: fc.oneof(fc.constant(undefined), fc.constant('status'), fc.jsonValue({ maxDepth: 1 })),
      dryRun: fc.oneof(fc.boolean(), fc.constant(undefined), fc.jsonValue({ maxDepth: 1 })),
      object: fc.oneof(
        fc.constant(samplePod()),
        fc.jsonValue({ maxDepth: 4 }),
        fc.record({ metadata: fc.jsonValue({ maxDepth: 3 }), spec: fc.jsonValue({ maxDepth: 3 }) }),
      ),
    },
    { requiredKeys: [] },
  );
  const anyBody = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    anyRequest.map((request) => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request })),
    fc.string(),
  );
  fc.assert(
    fc.property(anyBody, (body) => {
      const reply = handler(call(body));
      assert.ok(reply.status === 200 || reply.status === 400, `status ${reply.status} for ${body.slice(0, 200)}`);
      if (reply.status === 200) {
        const out = parse(reply.body);
        const sent = (JSON.parse(body) as { request: { uid: string } }).request.uid;
        assert.equal(out.response.uid, sent);
        if (out.response.patch !== undefined) assert.equal(out.response.allowed, true);
      }
    }),
    { numRuns: 2000 },
  );
});

test('onInjectionFailed hears of refused pods and pods admitted without the sidecar (not dry runs); a throwing listener changes nothing', () => {
  const pod = samplePod('p', { annotations: BAD_ANNOTATION });
  for (const onError of ['deny', 'allow'] as const) {
    const heard: unknown[] = [];
    const handler = createHandler({ inject: injectPod, getConfig: () => config, onError, now: () => 1, onInjectionFailed: (f) => heard.push(f) });
    handler(call(podReview(pod, { uid: 'u' })));
    handler(call(podReview(pod, { uid: 'd', dryRun: true })));
    assert.equal(heard.length, 1, 'dry runs are not reported');
    const f = heard[0] as { code: string; action: string; namespace: string; object: unknown };
    assert.deepEqual([f.code, f.action], ['SI_INJECT_ANNOTATION', onError === 'deny' ? 'denied' : 'allowed']);
    assert.deepEqual(f.object, pod);
  }
  const throwing = createHandler({
    inject: injectPod,
    getConfig: () => config,
    now: () => 1,
    onInjectionFailed: () => {
      throw new Error('boom');
    },
  });
  const out = parse(throwing(call(podReview(pod, { uid: 't' }))).body);
  assert.equal(out.response.allowed, false);
  assert.equal(out.response.uid, 't');
});
