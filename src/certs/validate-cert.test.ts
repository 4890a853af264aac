import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, rm, readFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCA, issueServingCert } from './create-certs.js';
import { validateKeyPair, validateKeyPairFiles, certificateInfo } from './validate-cert.js';
import { oddCertificate } from '../../test/support/cert-fixtures.js';

const fixture = (async () => {
  const ca = await generateCA();
  const leaf = await issueServingCert(ca, { dnsNames: ['injector.ns.svc', '*.apps.example'], ipAddresses: ['10.0.0.9', '2001:db8::1'], validityDays: 10 });
  const other = await issueServingCert(ca, { dnsNames: ['injector.ns.svc'] });
  return { ca, leaf, other };
})();

test('a fresh pair is accepted with its expiry and names', async () => {
  const { leaf } = await fixture;
  const result = validateKeyPair(leaf.certPem, leaf.keyPem);
  assert.equal(result.ok, true);
  assert.equal(result.notAfter?.getTime(), leaf.notAfter.getTime());
  assert.match(result.reason, /^valid until \d{4}-.* for injector\.ns\.svc, \*\.apps\.example, 10\.0\.0\.9, 2001:db8::1$/);
  assert.deepEqual(result.certificate?.dnsNames, ['injector.ns.svc', '*.apps.example']);
  assert.deepEqual(result.certificate?.ipAddresses, ['10.0.0.9', '2001:db8::1'], 'IPv6 in its short form (RFC 5952), as the flag takes it');
});

test('expired and not-yet-valid certificates are refused by date, relative to `now`', async () => {
  const { leaf } = await fixture;
  const late = validateKeyPair(leaf.certPem, leaf.keyPem, { now: new Date(leaf.notAfter.getTime() + 1000) });
  assert.equal(late.ok, false);
  assert.equal(!late.ok && late.problem, 'expired');
  assert.match(!late.ok ? late.reason : '', /expired on \d{4}-/);
  const early = validateKeyPair(leaf.certPem, leaf.keyPem, { now: new Date(leaf.notBefore.getTime() - 1000) });
  assert.equal(!early.ok && early.problem, 'not-yet-valid');
  // Still usable one second before the end.
  assert.equal(validateKeyPair(leaf.certPem, leaf.keyPem, { now: new Date(leaf.notAfter.getTime() - 1000) }).ok, true);
});

test('a key from another pair is refused as a mismatch', async () => {
  const { leaf, other } = await fixture;
  const result = validateKeyPair(leaf.certPem, other.keyPem);
  assert.equal(!result.ok && result.problem, 'key-mismatch');
  assert.match(!result.ok ? result.reason : '', /different pairs/);
});

test('truncated PEM, a garbage key and an empty file are refused, never thrown', async () => {
  const { leaf } = await fixture;
  const truncated = validateKeyPair(leaf.certPem.slice(0, leaf.certPem.length / 2), leaf.keyPem);
  assert.equal(!truncated.ok && truncated.problem, 'bad-certificate');
  const badKey = validateKeyPair(leaf.certPem, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
  assert.equal(!badKey.ok && badKey.problem, 'bad-key');
  assert.equal(validateKeyPair('', '').ok, false);
  // Valid PEM framing around bytes that are not a certificate.
  const notCert = validateKeyPair('-----BEGIN CERTIFICATE-----\nAAAAAAAA\n-----END CERTIFICATE-----\n', leaf.keyPem);
  assert.equal(!notCert.ok && notCert.problem, 'bad-certificate');
});

test('a certificate without SANs is refused: the apiserver ignores the CN', async () => {
  const bare = await oddCertificate({ commonName: 'injector.ns.svc' });
  const result = validateKeyPair(bare.certPem, bare.keyPem);
  assert.equal(!result.ok && result.problem, 'no-san');
});

test('a certificate only for client auth is refused; serverAuth or no EKU is fine', async () => {
  const client = await oddCertificate({ dnsNames: ['x.example'], extKeyUsages: ['1.3.6.1.5.5.7.3.2'] });
  assert.equal(validateKeyPair(client.certPem, client.keyPem).ok, false);
  const noEku = await oddCertificate({ dnsNames: ['x.example'] });
  assert.equal(validateKeyPair(noEku.certPem, noEku.keyPem).ok, true);
});

test('requiredNames: every name must be covered, wildcards and IPs included', async () => {
  const { leaf } = await fixture;
  assert.equal(validateKeyPair(leaf.certPem, leaf.keyPem, { requiredNames: ['injector.ns.svc', 'a.apps.example', '10.0.0.9'] }).ok, true);
  const missing = validateKeyPair(leaf.certPem, leaf.keyPem, { requiredNames: ['injector.ns.svc', 'injector.other.svc', '10.0.0.8'] });
  assert.equal(!missing.ok && missing.problem, 'missing-name');
  assert.match(!missing.ok ? missing.reason : '', /"injector.other.svc", "10.0.0.8"/);
});

test('trustedCAs: the leaf must be signed by one of them', async () => {
  const { ca, leaf } = await fixture;
  const otherCA = await generateCA();
  assert.equal(validateKeyPair(leaf.certPem, leaf.keyPem, { trustedCAs: [otherCA.certPem, ca.certPem] }).ok, true);
  const untrusted = validateKeyPair(leaf.certPem, leaf.keyPem, { trustedCAs: [otherCA.certPem] });
  assert.equal(!untrusted.ok && untrusted.problem, 'untrusted');
});

test('validateKeyPairFiles reports a missing file as a result, with the path', async () => {
  const { leaf } = await fixture;
  const dir = await mkdtemp(join(tmpdir(), 'si-validate-'));
  try {
    await writeFile(join(dir, 'tls.crt'), leaf.certPem);
    const missing = await validateKeyPairFiles(join(dir, 'tls.crt'), join(dir, 'tls.key'));
    assert.equal(!missing.ok && missing.problem, 'unreadable');
    assert.match(!missing.ok ? missing.reason : '', /tls\.key: ENOENT/);
    await writeFile(join(dir, 'tls.key'), leaf.keyPem);
    const ok = await validateKeyPairFiles(join(dir, 'tls.crt'), join(dir, 'tls.key'));
    assert.equal(ok.ok, true);
    assert.equal(ok.certPem, leaf.certPem);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('certificateInfo reads the CA flag, serial and fingerprint', async () => {
  const { ca } = await fixture;
  const info = certificateInfo(ca.certPem);
  assert.equal(info.isCA, true);
  assert.match(info.serialNumber, /^[0-9A-F]{32}$/);
  assert.match(info.fingerprint256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  assert.equal(info.subject, ca.subject);
});

test('trustedCAs: a chain through an intermediate in the certificate file is followed to the root (skipped without openssl)', async (t) => {
  if (spawnSync('openssl', ['version']).status !== 0) return t.skip('openssl not installed');
  const dir = await mkdtemp(join(tmpdir(), 'si-chain-'));
  try {
    const ssl = (...args: string[]) => {
      const run = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
    };
    const caExt = 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n';
    await writeFile(join(dir, 'ca.ext'), caExt);
    await writeFile(
      join(dir, 'leaf.ext'),
      'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:svc.ns.svc\n',
    );
    ssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'root.key',
      '-out',
      'root.crt',
      '-days',
      '30',
      '-subj',
      '/CN=root',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    ssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'int.key', '-out', 'int.csr', '-subj', '/CN=intermediate');
    ssl('x509', '-req', '-in', 'int.csr', '-CA', 'root.crt', '-CAkey', 'root.key', '-CAcreateserial', '-out', 'int.crt', '-days', '20', '-extfile', 'ca.ext');
    ssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=svc');
    ssl('x509', '-req', '-in', 'leaf.csr', '-CA', 'int.crt', '-CAkey', 'int.key', '-CAcreateserial', '-out', 'leaf.crt', '-days', '10', '-extfile', 'leaf.ext');
    const read = (f: string) => readFile(join(dir, f), 'utf8');
    const [leaf, int, root, key] = await Promise.all([read('leaf.crt'), read('int.crt'), read('root.crt'), read('leaf.key')]);
    const chained = validateKeyPair(leaf + int, key, { trustedCAs: [root], requiredNames: ['svc.ns.svc'] });
    assert.equal(chained.ok, true, chained.ok ? '' : chained.reason);
    assert.equal(chained.ok && chained.chainLength, 2);
    const leafOnly = validateKeyPair(leaf, key, { trustedCAs: [root] });
    assert.equal(!leafOnly.ok && leafOnly.problem, 'untrusted', 'without the intermediate the root cannot be reached');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
