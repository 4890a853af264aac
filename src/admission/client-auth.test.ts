/**
 * Only the apiserver may call (`serve --client-ca FILE [--client-name NAME]`): a caller without
 * a certificate, with one from another CA or with another name gets a 403 that says why and is
 * counted; the apiserver's certificate (issued by `certs --client`) is served; the probes stay
 * open on both ports; a rotated client CA (old and new side by side, then the new alone) is
 * picked up without a restart and admissions keep working through it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCA, issueClientCert } from '../certs/index.js';
import { runCli } from '../cli/command-tree.js';
import { atomicWrite } from '../../test/support/atomic-writer.js';
import { postReview, send } from '../../test/support/https-client.js';
import { memoryIO } from '../../test/support/memory-io.js';
import { podReview, samplePod } from '../../test/support/review-fixtures.js';
import { startHarness } from '../../test/support/webhook-harness.js';
import { parseClientCa } from './client-ca-reload.js';

async function until(fn: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('condition not met in time');
}

test('with --client-ca only callers with an accepted certificate are served; refusals are 403s, counted; probes stay open', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'client-ca-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ca = await generateCA();
  const other = await generateCA();
  const apiserver = await issueClientCert(ca, { commonName: 'kube-apiserver' });
  const stranger = await issueClientCert(ca, { commonName: 'someone-else' });
  const forged = await issueClientCert(other, { commonName: 'kube-apiserver' });
  await atomicWrite(dir, { 'client-ca.crt': ca.certPem });
  const h = await startHarness({
    clientCa: { file: join(dir, 'client-ca.crt'), names: ['kube-apiserver'] },
    monitoringPort: 0,
    reload: { debounceMs: 50, pollMs: 60_000 },
  });
  t.after(() => h.server.shutdown());
  const review = podReview(samplePod());
  const as = (c?: { certPem: string; keyPem: string }) => (c === undefined ? {} : { clientCert: { cert: c.certPem, key: c.keyPem } });

  const ok = await postReview(h.port, review, as(apiserver));
  assert.equal(ok.status, 200, ok.body);
  for (const [who, cert, reason] of [
    ['no certificate', undefined, /none was presented/],
    ['another CA', forged, /not accepted/],
    ['another name', stranger, /someone-else.*none of the accepted callers/],
  ] as const) {
    const res = await postReview(h.port, review, as(cert));
    assert.equal(res.status, 403, `${who}: ${res.body}`);
    assert.match(res.body, reason, who);
    assert.equal(res.headers.connection, 'close');
  }
  assert.equal((await send({ port: h.port, path: '/metrics' })).status, 403, 'metrics need the certificate too');
  assert.equal((await send({ port: h.port, path: '/healthz' })).status, 200, 'kubelet probes need no certificate');
  assert.equal((await send({ port: h.port, path: '/readyz' })).status, 200);
  assert.equal((await send({ port: h.server.monitoringPort!, path: '/healthz', plain: true })).status, 200);
  const metrics = (await send({ port: h.port, path: '/metrics', ...as(apiserver) })).body;
  assert.match(metrics, /sidecar_injector_refused_callers_total\{reason="no-certificate"\} [1-9]/);
  assert.match(metrics, /sidecar_injector_refused_callers_total\{reason="untrusted"\} 1/);
  assert.match(metrics, /sidecar_injector_refused_callers_total\{reason="name"\} 1/);

  // Rotation: both CAs during the switch, then the new one alone; admissions keep working.
  const next = await generateCA();
  const nextApiserver = await issueClientCert(next, { commonName: 'kube-apiserver' });
  await atomicWrite(dir, { 'client-ca.crt': ca.certPem + next.certPem });
  await until(async () => (await postReview(h.port, review, as(nextApiserver))).status === 200, 3000);
  assert.equal((await postReview(h.port, review, as(apiserver))).status, 200, 'the old certificate still works during the switch');
  await atomicWrite(dir, { 'client-ca.crt': next.certPem });
  await until(async () => (await postReview(h.port, review, as(apiserver))).status === 403, 3000);
  assert.equal((await postReview(h.port, review, as(nextApiserver))).status, 200);

  // A broken bundle keeps the last good one.
  await atomicWrite(dir, { 'client-ca.crt': 'not a certificate' });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await postReview(h.port, review, as(nextApiserver))).status, 200);
  const readyz = JSON.parse((await send({ port: h.port, path: '/readyz' })).body) as { clientCa: { lastError?: { message: string } } };
  assert.match(readyz.clientCa.lastError?.message ?? '', /no PEM certificate/);
});

test('a client CA bundle must hold CA certificates; certs --client issues the apiserver certificate', async (t) => {
  const ca = await generateCA();
  const leaf = await issueClientCert(ca, { commonName: 'kube-apiserver' });
  assert.throws(() => parseClientCa(leaf.certPem), /not a CA certificate/);
  assert.throws(() => parseClientCa('nothing'), /no PEM certificate/);
  assert.equal(parseClientCa(ca.certPem).subjects.length, 1);

  const dir = await mkdtemp(join(tmpdir(), 'certs-client-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const io = memoryIO();
  assert.equal(await runCli(['certs', '--service', 'injector', '--namespace', 'si', '--out', dir, '--client', 'kube-apiserver'], io), 0, io.err);
  assert.match(io.err, /Issued the client certificate "kube-apiserver"/);
  const { X509Certificate } = await import('node:crypto');
  const { readFile } = await import('node:fs/promises');
  const cert = new X509Certificate(await readFile(join(dir, 'client.crt')));
  assert.match(cert.subject, /CN=kube-apiserver/);
  assert.ok(cert.checkIssued(new X509Certificate(await readFile(join(dir, 'ca.crt')))));
  assert.ok(cert.keyUsage?.includes('1.3.6.1.5.5.7.3.2'), 'clientAuth');
});

test('a keep-alive connection opened under the old client CA is refused once that CA leaves the bundle (the apiserver keeps its connections)', async (t) => {
  const { Agent, request } = await import('node:https');
  const dir = await mkdtemp(join(tmpdir(), 'client-ca-keepalive-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ca = await generateCA();
  const next = await generateCA();
  const apiserver = await issueClientCert(ca, { commonName: 'kube-apiserver' });
  await atomicWrite(dir, { 'client-ca.crt': ca.certPem });
  const h = await startHarness({ clientCa: { file: join(dir, 'client-ca.crt'), names: [] }, reload: { debounceMs: 50, pollMs: 60_000 } });
  t.after(() => h.server.shutdown());
  const agent = new Agent({ keepAlive: true, maxSockets: 1, cert: apiserver.certPem, key: apiserver.keyPem, rejectUnauthorized: false });
  t.after(() => agent.destroy());
  const body = JSON.stringify(podReview(samplePod()));
  const post = () =>
    new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: h.port, path: '/inject', method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  assert.equal((await post()).status, 200);
  const during = await post();
  assert.deepEqual(during, { status: 200, reused: true }, 'the same connection is kept');
  await atomicWrite(dir, { 'client-ca.crt': next.certPem });
  await until(async () => {
    const r = await post();
    return r.status === 403 && r.reused;
  }, 3000);
});
