import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCA, caLoadProblem } from './load-ca.js';
import { generateCA, issueServingCert } from './create-certs.js';
import { tlsProbe } from '../../test/support/tls-probe.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'si-load-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('an empty directory has no CA; a CA we wrote loads and keeps issuing', async () => {
  await withDir(async (dir) => {
    assert.equal(await loadCA(dir), undefined);
    const ca = await generateCA();
    await writeFile(join(dir, 'ca.crt'), ca.certPem);
    await writeFile(join(dir, 'ca.key'), ca.keyPem);
    const loaded = await loadCA(dir);
    assert.equal(loaded?.certPem, ca.certPem);
    assert.equal(loaded?.notAfter.getTime(), ca.notAfter.getTime());
    const leaf = await issueServingCert(loaded!, { dnsNames: ['svc.ns.svc'] });
    assert.ok(new X509Certificate(leaf.certPem).verify(new X509Certificate(ca.certPem).publicKey));
  });
});

test('a CA key in SEC1 form ("EC PRIVATE KEY") is accepted for renewal', async () => {
  await withDir(async (dir) => {
    const ca = await generateCA();
    const sec1 = createPrivateKey(ca.keyPem).export({ type: 'sec1', format: 'pem' }) as string;
    assert.match(sec1, /BEGIN EC PRIVATE KEY/);
    await writeFile(join(dir, 'ca.crt'), ca.certPem);
    await writeFile(join(dir, 'ca.key'), sec1);
    const leaf = await issueServingCert((await loadCA(dir))!, { dnsNames: ['svc.ns.svc'] });
    assert.deepEqual(await tlsProbe(leaf, { caPem: ca.certPem, servername: 'svc.ns.svc' }), { ok: true });
  });
});

test('an RSA CA made by openssl (PKCS#1 key) can issue our ECDSA serving certificate (skipped without openssl)', async (t) => {
  if (spawnSync('openssl', ['version']).status !== 0) return t.skip('openssl not installed');
  await withDir(async (dir) => {
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'ca.key'),
        '-out',
        join(dir, 'ca.crt'),
        '-days',
        '30',
        '-subj',
        '/CN=corp-ca',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(made.status, 0, made.stderr);
    const pkcs1 = createPrivateKey(await readFile(join(dir, 'ca.key'), 'utf8')).export({ type: 'pkcs1', format: 'pem' }) as string;
    assert.match(pkcs1, /BEGIN RSA PRIVATE KEY/);
    await writeFile(join(dir, 'ca.key'), pkcs1);
    const ca = await loadCA(dir);
    assert.equal(ca?.subject, 'CN=corp-ca');
    const leaf = await issueServingCert(ca!, { dnsNames: ['svc.ns.svc'] });
    const caPem = await readFile(join(dir, 'ca.crt'), 'utf8');
    assert.deepEqual(await tlsProbe(leaf, { caPem, servername: 'svc.ns.svc' }), { ok: true });
  });
});

test('a leaf certificate in ca.crt is not a CA', async () => {
  await withDir(async (dir) => {
    const ca = await generateCA();
    const leaf = await issueServingCert(ca, { dnsNames: ['x.example'] });
    await writeFile(join(dir, 'ca.crt'), leaf.certPem);
    await writeFile(join(dir, 'ca.key'), leaf.keyPem);
    const err = await loadCA(dir).catch((e: unknown) => e);
    assert.equal(caLoadProblem(err), 'not-a-ca');
  });
});

test('garbage in ca.crt or ca.key names the file', async () => {
  await withDir(async (dir) => {
    const ca = await generateCA();
    await writeFile(join(dir, 'ca.crt'), 'garbage');
    await writeFile(join(dir, 'ca.key'), ca.keyPem);
    const badCert = await loadCA(dir).catch((e: unknown) => e);
    assert.equal(caLoadProblem(badCert), 'bad-certificate');
    assert.match((badCert as Error).message, /ca\.crt is not a readable certificate/);
    await writeFile(join(dir, 'ca.crt'), ca.certPem);
    await writeFile(join(dir, 'ca.key'), '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
    const badKey = await loadCA(dir).catch((e: unknown) => e);
    assert.equal(caLoadProblem(badKey), 'bad-key');
    assert.match((badKey as Error).message, /ca\.key: it is not a readable PEM private key/);
  });
});
