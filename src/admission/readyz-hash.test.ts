/**
 * `/readyz` is unauthenticated (and served on the monitoring port too): the certificate source it
 * shows carries a hash of the public certificate only, never of the private key, while a change
 * of the key alone is still noticed by the reloader.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devCertificate } from '../certs/index.js';
import { sha256 } from '../reload/file-reloader.js';
import { keyPairSnapshot } from '../reload/sources.js';
import { atomicWrite } from '../../test/support/atomic-writer.js';
import { send } from '../../test/support/https-client.js';
import { startHarness } from '../../test/support/webhook-harness.js';

// The reloader's own framing of parts, so "a hash over cert and key" is computed exactly.
const sha = (...parts: string[]) => sha256(...parts.map((p) => Buffer.from(p)));

test('/readyz shows a hash of the certificate, not of the key; a key change alone is still a change', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'readyz-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const a = await devCertificate({ hosts: ['localhost'] });
  await atomicWrite(dir, { 'tls.crt': a.certPem, 'tls.key': a.keyPem });
  const h = await startHarness({
    tls: { kind: 'files', certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
    reload: { debounceMs: 50, pollMs: 60_000 },
  });
  t.after(() => h.server.shutdown());
  const body = (await send({ port: h.port, path: '/readyz' })).body;
  assert.ok(body.includes(sha(a.certPem)), `the certificate's hash is shown: ${body}`);
  assert.ok(!body.includes(sha(a.certPem, a.keyPem)), 'no hash over the key material');
  assert.ok(!body.includes(sha(a.keyPem)));

  const before = await keyPairSnapshot(join(dir, 'tls.crt'), join(dir, 'tls.key'));
  await atomicWrite(dir, { 'tls.crt': a.certPem, 'tls.key': (await devCertificate({ hosts: ['localhost'] })).keyPem });
  const after = await keyPairSnapshot(join(dir, 'tls.crt'), join(dir, 'tls.key'));
  assert.notEqual(after.hash, before.hash, 'the reloader sees the key change');
  assert.equal(after.shownHash, before.shownHash);
});
