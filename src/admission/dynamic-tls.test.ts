/**
 * A certificate that arrives after start (serve --tls-secret): the listener answers at once with
 * the placeholder, not ready, `/readyz` saying why over TLS too; the first good pair makes it
 * ready and is what clients get; a refused pair leaves the last good one serving; the source's
 * own gate (the caBundle) can hold readiness back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { generateCA, issueServingCert, devCertificate } from '../certs/index.js';
import { startHarness } from '../../test/support/webhook-harness.js';
import { send } from '../../test/support/https-client.js';
import { tlsConnect } from '../../test/support/raw-tls.js';
import type { KeyPairPem } from '../reload/sources.js';

test('dynamic TLS: unready on the placeholder with the reason, ready on the first good pair, refusals keep the last good one', async (t) => {
  const placeholder = await devCertificate({ validityDays: 1 });
  let offer: ((pair: KeyPairPem) => void) | undefined;
  let problem: string | undefined = 'Secret mesh/si-certs does not exist';
  let gate = true;
  let closed = 0;
  const h = await startHarness({
    tls: {
      kind: 'dynamic',
      description: 'Secret mesh/si-certs',
      placeholder: { certPem: placeholder.certPem, keyPem: placeholder.keyPem },
      attach(o) {
        offer = o;
        return { status: () => (problem ? { problem } : {}), ready: () => gate, close: async () => void closed++ };
      },
    },
  });
  t.after(() => h.server.shutdown());
  const readyz = async () => {
    const r = await send({ port: h.port, path: '/readyz' });
    return { status: r.status, body: JSON.parse(r.body) as { ready: boolean; certificate: Record<string, unknown> } };
  };
  const served = async () => {
    const socket = await tlsConnect(h.port, { servername: 'si.mesh.svc' });
    const fp = socket.getPeerCertificate().fingerprint256;
    socket.destroy();
    return fp;
  };

  const waiting = await readyz();
  assert.equal(waiting.status, 503);
  assert.equal(waiting.body.certificate.source, 'Secret mesh/si-certs');
  assert.equal(waiting.body.certificate.problem, 'Secret mesh/si-certs does not exist');
  assert.equal(await served(), new X509Certificate(placeholder.certPem).fingerprint256);

  const ca = await generateCA();
  const leaf = await issueServingCert(ca, { dnsNames: ['si.mesh.svc'] });
  problem = undefined;
  offer!({ certPem: leaf.certPem, keyPem: leaf.keyPem, caPem: ca.certPem });
  const ready = await readyz();
  assert.equal(ready.status, 200);
  assert.equal(ready.body.certificate.notAfter, leaf.notAfter.toISOString());
  assert.equal(await served(), new X509Certificate(leaf.certPem).fingerprint256);

  const other = await issueServingCert(ca, { dnsNames: ['si.mesh.svc'] });
  assert.throws(() => offer!({ certPem: leaf.certPem, keyPem: other.keyPem }), /different pairs/);
  assert.equal(await served(), new X509Certificate(leaf.certPem).fingerprint256, 'the last good pair keeps serving');

  gate = false;
  assert.equal((await readyz()).status, 503, 'the source can hold readiness back');
  gate = true;
  await h.server.shutdown();
  assert.equal(closed, 1, 'the source is closed on shutdown');
});
