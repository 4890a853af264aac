import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from '../../test/support/webhook-harness.js';
import { decodePatch, keepAliveAgent, parseReview, postReview, send } from '../../test/support/https-client.js';
import { podReview, samplePod } from '../../test/support/review-fixtures.js';
import { defaultConfig } from '../profiles/index.js';
import { injectPod, type InjectionResult } from '../inject/index.js';
import { applyWithFastJsonPatch, applyWithRfc6902 } from '../../test/support/patch/appliers.js';
import { handshake, exchange, tcp } from '../../test/support/raw-tls.js';
import type { JsonPatchOperation } from '../patch/types.js';
import { cloneJson } from '../util/json.js';

/**
 * What the webhook's patch must produce, computed without HTTP: the core called directly with
 * the same (built-in) config. (core-equivalence.test.ts adds `inject -f` and more pods.)
 */
function directInject(pod: Record<string, unknown>, namespace: string): unknown {
  const r = injectPod(withoutManagedFields(pod), { namespace, mode: 'webhook' }, defaultConfig());
  return r.kind === 'injected' ? r.pod : pod;
}

function withoutManagedFields(pod: Record<string, unknown>): Record<string, unknown> {
  const copy = cloneJson(pod);
  delete (copy.metadata as Record<string, unknown>).managedFields;
  return copy;
}

/** The webhook signs its status annotation (a MAC keyed by its TLS key); the direct call does not. */
function withoutStatusMac(pod: Record<string, unknown>): Record<string, unknown> {
  const annotations = (pod.metadata as { annotations: Record<string, string> }).annotations;
  const key = defaultConfig().injectionKeys.status;
  const m = /,"mac":"[A-Za-z0-9_-]{22}"\}$/.exec(annotations[key]);
  assert.ok(m, `the webhook's status is signed: ${annotations[key]}`);
  annotations[key] = `${annotations[key].slice(0, m.index)}}`;
  return pod;
}

test('v1 and v1beta1 round trips over verified TLS: same version, same uid, a patch that applies everywhere', async (t) => {
  const h = await startHarness();
  t.after(() => h.server.shutdown());
  for (const apiVersion of ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1']) {
    const pod = samplePod();
    const res = await postReview(h.port, podReview(pod, { apiVersion, uid: `uid-${apiVersion}` }), { ca: h.caPem, servername: 'localhost' });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const review = parseReview(res);
    assert.equal(review.apiVersion, apiVersion);
    assert.equal(review.kind, 'AdmissionReview');
    assert.equal(review.response.uid, `uid-${apiVersion}`);
    assert.equal(review.response.patchType, 'JSONPatch');
    const ops = decodePatch(review) as JsonPatchOperation[];
    const viaFjp = applyWithFastJsonPatch(pod, ops) as Record<string, unknown>;
    const viaRfc = applyWithRfc6902(pod, ops) as Record<string, unknown>;
    assert.deepEqual(viaRfc, viaFjp);
    // managedFields are untouched by the patch (the core never saw them).
    assert.deepEqual((viaFjp.metadata as Record<string, unknown>).managedFields, (pod.metadata as Record<string, unknown>).managedFields);
    assert.deepEqual(withoutStatusMac(withoutManagedFields(viaFjp)), directInject(pod, 'shop'), 'webhook vs the core called directly');
  }
});

test('keep-alive: many reviews share one TLS connection', async (t) => {
  const h = await startHarness();
  const agent = keepAliveAgent(1);
  t.after(() => {
    agent.destroy();
    return h.server.shutdown();
  });
  const sockets = new Set<unknown>();
  agent.on('free', (s) => sockets.add(s));
  for (let i = 0; i < 20; i++) {
    const res = await postReview(h.port, podReview(samplePod()), { agent });
    assert.equal(res.status, 200);
    assert.notEqual(res.headers.connection, 'close');
  }
  assert.equal(sockets.size, 1);
});

test('TLS: 1.2 and 1.3 with AEAD suites only, ALPN http/1.1, older versions and h2-only clients refused', async (t) => {
  const h = await startHarness();
  t.after(() => h.server.shutdown());
  const v12 = await handshake(h.port, { maxVersion: 'TLSv1.2' });
  assert.equal(v12.ok, true);
  assert.equal(v12.protocol, 'TLSv1.2');
  assert.equal(v12.alpn, 'http/1.1');
  const v13 = await handshake(h.port, { minVersion: 'TLSv1.3' });
  assert.equal(v13.protocol, 'TLSv1.3');
  const cbc = await handshake(h.port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-SHA256:ECDHE-ECDSA-AES128-SHA' });
  assert.equal(cbc.ok, false, 'CBC suites are not offered');
  const old = await handshake(h.port, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' });
  assert.equal(old.ok, false);
  const h2 = await handshake(h.port, { ALPNProtocols: ['h2'] });
  assert.notEqual(h2.alpn, 'h2', 'HTTP/2 is never negotiated');
});

test('plaintext HTTP to the TLS port gets no HTTP answer and is closed', async (t) => {
  const h = await startHarness();
  t.after(() => h.server.shutdown());
  const s = await tcp(h.port);
  const ex = await exchange(s, 'POST /inject HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}', 3000);
  s.destroy();
  assert.equal(ex.closed, true);
  assert.doesNotMatch(ex.data, /^HTTP\/1\.1 200/);
});

test('healthz, readyz (JSON detail) and metrics on the TLS port and on the plain monitoring port', async (t) => {
  const h = await startHarness({ monitoringPort: 0 });
  t.after(() => h.server.shutdown());
  await postReview(h.port, podReview(samplePod()));
  for (const plain of [false, true]) {
    const port = plain ? (h.server.monitoringPort as number) : h.port;
    const health = await send({ port, path: '/healthz', plain });
    assert.equal(health.status, 200);
    const ready = await send({ port, path: '/readyz', plain });
    assert.equal(ready.status, 200);
    const detail = JSON.parse(ready.body) as { ready: boolean; config: { hash: string }; certificate: { notAfter: string } };
    assert.equal(detail.ready, true);
    assert.equal(detail.config.hash, defaultConfig().hash);
    assert.ok(Date.parse(detail.certificate.notAfter) > Date.now());
    const metrics = await send({ port, path: '/metrics', plain });
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /^sidecar_injector_injections_total 1$/m);
    assert.match(metrics.body, /^sidecar_injector_requests_total\{code="200"\} 1$/m);
    assert.match(metrics.body, /^sidecar_injector_request_duration_seconds_bucket\{le="0.005",outcome="injected"\}/m);
    assert.match(metrics.body, /^sidecar_injector_certificate_expiry_timestamp_seconds\{certificate="serving"\} \d+/m);
    const head = await send({ port, path: '/healthz', method: 'HEAD', plain });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    const post = await send({ port, path: '/readyz', method: 'POST', plain });
    assert.equal(post.status, 405);
  }
  const injectOnMonitoring = await send({
    port: h.server.monitoringPort as number,
    path: '/inject',
    method: 'POST',
    plain: true,
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
  });
  assert.equal(injectOnMonitoring.status, 404, 'admission is only served over TLS');
});

test('/inject/... paths are served too, and their parameters reach the core', async (t) => {
  const h = await startHarness();
  t.after(() => h.server.shutdown());
  const res = await postReview(h.port, podReview(samplePod()), { path: '/inject/cluster/c1/net/n1?timeout=10s' });
  assert.equal(res.status, 200);
  assert.ok(parseReview(res).response.patch);
});

test('one JSON log line per admission with uid, namespace, pod, decision, reason and duration', async (t) => {
  const h = await startHarness();
  t.after(() => h.server.shutdown());
  await postReview(h.port, podReview(samplePod(), { uid: 'log-uid' }));
  const line = h.logs.find((l) => l.msg === 'admission' && l.uid === 'log-uid');
  assert.ok(line);
  assert.equal(line.namespace, 'shop');
  assert.equal(line.pod, 'web-7d9c6b5f4-x2x9q');
  assert.equal(line.decision, 'injected');
  assert.equal(line.reason, 'policy-enabled');
  assert.equal(typeof line.durationMs, 'number');
  assert.equal(line.patch, undefined, 'no patch at info level');
});

test('the sample reviews in examples/admission are answered with a patch in their own version', async (t) => {
  const { readFile } = await import('node:fs/promises');
  const h = await startHarness();
  t.after(() => h.server.shutdown());
  for (const [file, version] of [
    ['review-v1.json', 'admission.k8s.io/v1'],
    ['review-v1beta1.json', 'admission.k8s.io/v1beta1'],
  ]) {
    const body = await readFile(new URL(`../../examples/admission/${file}`, import.meta.url));
    const res = await postReview(h.port, body);
    assert.equal(res.status, 200, file);
    const review = parseReview(res);
    assert.equal(review.apiVersion, version);
    assert.equal(review.response.uid, (JSON.parse(body.toString()) as { request: { uid: string } }).request.uid);
    assert.ok(review.response.patch, `${file} is injected`);
  }
});

test('a bug in the handler is an HTTP 500 carrying the uid, with the stack logged, and the server keeps serving', async (t) => {
  let broken = true;
  // A result without a decision: the handler's own code then fails, not the core.
  const flaky: typeof injectPod = (...args) => (broken ? ({ kind: 'injected' } as unknown as InjectionResult) : injectPod(...args));
  const h = await startHarness({ inject: flaky });
  t.after(() => h.server.shutdown());
  const res = await postReview(h.port, podReview(samplePod(), { uid: 'bug-uid' }));
  assert.equal(res.status, 500);
  const review = parseReview(res);
  assert.equal(review.response.uid, 'bug-uid');
  assert.equal(review.response.allowed, false);
  assert.ok(h.logs.some((l) => l.level === 'error' && typeof l.stack === 'string' && l.uid === 'bug-uid'));
  broken = false;
  const ok = await postReview(h.port, podReview(samplePod()));
  assert.equal(ok.status, 200);
  const metrics = await send({ port: h.port, path: '/metrics' });
  assert.match(metrics.body, /^sidecar_injector_requests_total\{code="500"\} 1$/m);
});
