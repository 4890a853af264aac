import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCA, issueServingCert, devCertificate, CLOCK_SKEW_MS } from './create-certs.js';
import { serviceDnsNames } from './names.js';
import { x509 } from './x509-lib.js';
import { tlsProbe } from '../../test/support/tls-probe.js';
import { CertError } from '../errors.js';

const DAY = 86_400_000;
const names = serviceDnsNames('injector', 'mesh-system');

const fixture = (async () => {
  const now = new Date();
  const ca = await generateCA({ validityDays: 3650, now });
  const leaf = await issueServingCert(ca, { dnsNames: names, ipAddresses: ['10.96.0.10'], validityDays: 30, now });
  return { now, ca, leaf };
})();

test('the CA is a self-signed ECDSA P-256 CA valid for the requested days, back-dated for clock skew', async () => {
  const { now, ca } = await fixture;
  const cert = new X509Certificate(ca.certPem);
  assert.equal(cert.ca, true);
  assert.ok(cert.checkIssued(cert) && cert.verify(cert.publicKey), 'self-signed signature verifies');
  assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  assert.equal(new Date(cert.validFrom).getTime(), Math.floor((now.getTime() - CLOCK_SKEW_MS) / 1000) * 1000);
  assert.equal(new Date(cert.validTo).getTime(), Math.floor((now.getTime() + 3650 * DAY) / 1000) * 1000);
  const key = createPrivateKey(ca.keyPem);
  assert.ok(cert.checkPrivateKey(key));
  assert.match(ca.keyPem, /^-----BEGIN PRIVATE KEY-----\n/, 'PKCS#8 PEM');
  const parsed = new x509.X509Certificate(ca.certPem);
  const bc = parsed.getExtension(x509.BasicConstraintsExtension);
  assert.ok(bc?.ca && bc.critical, 'basicConstraints CA:TRUE, critical');
  const ku = parsed.getExtension(x509.KeyUsagesExtension);
  assert.equal(ku?.usages, x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign);
  assert.ok(ku?.critical);
  assert.ok(parsed.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId);
  assert.equal(cert.toLegacyObject().asn1Curve, 'prime256v1');
  assert.deepEqual(parsed.signatureAlgorithm as unknown, { name: 'ECDSA', hash: { name: 'SHA-256' } });
});

test('the serving certificate chains to the CA and covers every service name and IP', async () => {
  const { now, ca, leaf } = await fixture;
  const caCert = new X509Certificate(ca.certPem);
  const cert = new X509Certificate(leaf.certPem);
  assert.ok(cert.verify(caCert.publicKey), 'signed by the CA key');
  assert.ok(cert.checkIssued(caCert), 'issuer matches CA subject');
  assert.equal(cert.ca, false);
  for (const name of names) assert.equal(cert.checkHost(name, { subject: 'never' }), name, `SAN ${name}`);
  assert.equal(cert.checkHost('other.mesh-system.svc', { subject: 'never' }), undefined);
  assert.equal(cert.checkIP('10.96.0.10'), '10.96.0.10');
  assert.ok(cert.checkPrivateKey(createPrivateKey(leaf.keyPem)));
  assert.equal(new Date(cert.validTo).getTime(), Math.floor((now.getTime() + 30 * DAY) / 1000) * 1000);
  assert.ok(new Date(cert.validFrom) < now);
  assert.deepEqual(leaf.dnsNames, names);
  assert.equal(leaf.caPem, ca.certPem);
  assert.equal(leaf.clampedToCA, false);
});

test('leaf extensions: CA:FALSE, digitalSignature only (RFC 8813: no keyEncipherment on EC), serverAuth, key identifiers', async () => {
  const { ca, leaf } = await fixture;
  const parsed = new x509.X509Certificate(leaf.certPem);
  const caParsed = new x509.X509Certificate(ca.certPem);
  assert.equal(parsed.getExtension(x509.BasicConstraintsExtension)?.ca, false);
  const ku = parsed.getExtension(x509.KeyUsagesExtension);
  assert.equal(ku?.usages, x509.KeyUsageFlags.digitalSignature);
  assert.deepEqual([...(parsed.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? [])], [x509.ExtendedKeyUsage.serverAuth]);
  assert.equal(parsed.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId, caParsed.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId);
  assert.ok(parsed.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId);
});

test('serial numbers are random, positive, 16 bytes and minimally encoded', async () => {
  const { ca } = await fixture;
  const serials = new Set<string>();
  for (let i = 0; i < 8; i++) {
    const leaf = await issueServingCert(ca, { dnsNames: ['a.example'] });
    const serial = new X509Certificate(leaf.certPem).serialNumber;
    assert.equal(serial.length, 32, 'no leading zero byte, 16 bytes');
    assert.ok(parseInt(serial.slice(0, 2), 16) < 0x80, 'top bit clear: positive');
    serials.add(serial);
  }
  assert.equal(serials.size, 8);
});

test('a TLS client that trusts only the CA connects for every SAN; other names and other CAs fail', async () => {
  const { ca, leaf } = await fixture;
  for (const servername of names) {
    const result = await tlsProbe(leaf, { caPem: ca.certPem, servername });
    assert.deepEqual(result, { ok: true }, servername);
  }
  const wrongName = await tlsProbe(leaf, { caPem: ca.certPem, servername: 'injector.other-ns.svc' });
  assert.equal(wrongName.code, 'ERR_TLS_CERT_ALTNAME_INVALID');
  const otherCA = await generateCA();
  const untrusted = await tlsProbe(leaf, { caPem: otherCA.certPem, servername: names[2] });
  assert.equal(untrusted.ok, false);
  assert.match(untrusted.code ?? '', /UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER/);
});

test('devCertificate serves localhost, 127.0.0.1, ::1 and extra hosts with an in-memory CA', async () => {
  const dev = await devCertificate({ hosts: ['injector.local', '192.0.2.7'] });
  assert.deepEqual(dev.dnsNames, ['localhost', 'injector.local']);
  assert.deepEqual(dev.ipAddresses, ['127.0.0.1', '::1', '192.0.2.7']);
  assert.equal(dev.caPem, dev.ca.certPem);
  for (const servername of ['localhost', '127.0.0.1', '::1', 'injector.local']) {
    assert.deepEqual(await tlsProbe(dev, { caPem: dev.caPem, servername }), { ok: true }, servername);
  }
  // The dev CA can issue a renewed leaf in process.
  const renewed = await issueServingCert(dev.ca, { dnsNames: ['localhost'] });
  assert.ok(new X509Certificate(renewed.certPem).checkIssued(new X509Certificate(dev.caPem)));
});

test('a leaf never outlives its CA: the lifetime is clamped and reported', async () => {
  const now = new Date();
  const ca = await generateCA({ validityDays: 10, now });
  const leaf = await issueServingCert(ca, { dnsNames: ['x.example'], validityDays: 365, now });
  assert.equal(leaf.clampedToCA, true);
  assert.equal(leaf.notAfter.getTime(), ca.notAfter.getTime());
});

test('an expired CA cannot issue; bad names and lifetimes are clear errors', async () => {
  const past = new Date(Date.now() - 30 * DAY);
  const old = await generateCA({ validityDays: 1, now: past });
  await assert.rejects(issueServingCert(old, { dnsNames: ['x.example'] }), (e: unknown) => e instanceof CertError && /expired/.test(e.message));
  const { ca } = await fixture;
  await assert.rejects(issueServingCert(ca, { dnsNames: [] }), /at least one DNS name or IP/);
  await assert.rejects(issueServingCert(ca, { dnsNames: ['bad_name.example'] }), /"bad_name.example" is not a valid DNS name/);
  await assert.rejects(issueServingCert(ca, { dnsNames: ['-x.example'] }), /not a valid DNS name/);
  await assert.rejects(issueServingCert(ca, { ipAddresses: ['300.1.1.1'] }), /not a valid IP address/);
  await assert.rejects(issueServingCert(ca, { dnsNames: ['x.example'], validityDays: 0 }), /whole number of days/);
  await assert.rejects(generateCA({ validityDays: 1.5 }), /whole number of days/);
});

test('a DNS name longer than a CN allows still works: empty subject, critical SAN', async () => {
  const { ca } = await fixture;
  const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.example`;
  const leaf = await issueServingCert(ca, { dnsNames: [long] });
  const parsed = new x509.X509Certificate(leaf.certPem);
  assert.equal(parsed.subject, '');
  assert.equal(parsed.getExtension(x509.SubjectAlternativeNameExtension)?.critical, true);
  assert.deepEqual(await tlsProbe(leaf, { caPem: ca.certPem, servername: long }), { ok: true });
});

test('openssl accepts the chain in strict mode for the sslserver purpose (skipped without openssl)', async (t) => {
  if (spawnSync('openssl', ['version']).status !== 0) return t.skip('openssl not installed');
  const { ca, leaf } = await fixture;
  const dir = mkdtempSync(join(tmpdir(), 'si-certs-'));
  try {
    writeFileSync(join(dir, 'ca.crt'), ca.certPem);
    writeFileSync(join(dir, 'tls.crt'), leaf.certPem);
    const out = execFileSync('openssl', ['verify', '-x509_strict', '-purpose', 'sslserver', '-CAfile', join(dir, 'ca.crt'), join(dir, 'tls.crt')], {
      encoding: 'utf8',
    });
    assert.match(out, /tls\.crt: OK/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The apiserver's webhook client is Go: verify exactly as crypto/x509 does (SAN only, serverAuth).
const GO_VERIFY = `package main

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
)

func main() {
	caPEM, _ := os.ReadFile(os.Args[1])
	leafPEM, _ := os.ReadFile(os.Args[2])
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		fmt.Println("bad CA")
		os.Exit(1)
	}
	block, _ := pem.Decode(leafPEM)
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		fmt.Println("parse:", err)
		os.Exit(1)
	}
	for _, name := range os.Args[3:] {
		_, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		if err != nil {
			fmt.Println(name, err)
			os.Exit(1)
		}
	}
	fmt.Println("OK")
}
`;

test("Go's crypto/x509 (the apiserver's verifier) accepts the certificate for every name (skipped without go)", { timeout: 120_000 }, async (t) => {
  if (spawnSync('go', ['version']).status !== 0) return t.skip('go not installed');
  const { ca, leaf } = await fixture;
  const dir = mkdtempSync(join(tmpdir(), 'si-certs-go-'));
  try {
    writeFileSync(join(dir, 'verify.go'), GO_VERIFY);
    writeFileSync(join(dir, 'ca.crt'), ca.certPem);
    writeFileSync(join(dir, 'tls.crt'), leaf.certPem);
    const run = spawnSync('go', ['run', join(dir, 'verify.go'), join(dir, 'ca.crt'), join(dir, 'tls.crt'), ...names, '10.96.0.10'], {
      encoding: 'utf8',
      env: { ...process.env, GO111MODULE: 'off', GOFLAGS: '' },
    });
    assert.equal(run.stdout.trim(), 'OK', run.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
