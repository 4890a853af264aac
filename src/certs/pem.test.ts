import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { decodePem, encodePem, decodeCertificates, decodeCertificatesLenient } from './pem.js';
import { CertError } from '../errors.js';

test('encode then decode returns the same bytes and label, for any payload', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 1, maxLength: 3000 }), fc.constantFrom('CERTIFICATE', 'PRIVATE KEY'), (bytes, label) => {
      const pem = encodePem(label, bytes);
      assert.ok(
        pem.split('\n').every((line) => line.length <= 64),
        'RFC 7468 line length',
      );
      const [block] = decodePem(pem);
      assert.equal(block.label, label);
      assert.deepEqual(new Uint8Array(block.der), bytes);
    }),
  );
});

test('several blocks, CRLF line endings and text between blocks are all fine', () => {
  const a = encodePem('CERTIFICATE', randomBytes(100));
  const b = encodePem('CERTIFICATE', randomBytes(200));
  const text = `subject=CN = x\r\n${a.replace(/\n/g, '\r\n')}some comment\n${b}`;
  assert.equal(decodeCertificates(text).length, 2);
});

test('truncated, corrupted and mislabelled PEM are refused with a reason', () => {
  const pem = encodePem('CERTIFICATE', randomBytes(300));
  const cases: Array<[string, RegExp]> = [
    [pem.slice(0, pem.length - 30), /has no END line \(file truncated\?\)/],
    [pem.replace(/\n[A-Za-z0-9+/]{10}/, '\n!!!!!!!!!!'), /not valid base64/],
    [pem.replace('END CERTIFICATE', 'END PRIVATE KEY'), /does not close "BEGIN CERTIFICATE"/],
    [pem.slice(0, 100) + '\n' + pem, /a new BEGIN inside/],
    ['-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n', /is empty/],
    ['-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nAAAA\n-----END RSA PRIVATE KEY-----\n', /encrypted legacy key/],
    ['', /contains no "BEGIN CERTIFICATE" block/],
    [encodePem('PRIVATE KEY', randomBytes(40)), /contains no "BEGIN CERTIFICATE" block/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => decodeCertificates(text, 'tls.crt'),
      (e: unknown) => e instanceof CertError && e.code === 'SI_CERT_INVALID' && message.test(e.message) && e.message.startsWith('tls.crt: '),
      String(message),
    );
  }
});

test('lenient decoding keeps the good certificates of a damaged bundle and counts the rest', () => {
  const good1 = encodePem('CERTIFICATE', randomBytes(50));
  const good2 = encodePem('CERTIFICATE', randomBytes(60));
  const broken = good1.slice(0, 60); // a BEGIN with no END, then a good block
  const { certs, skipped } = decodeCertificatesLenient(`${broken}\n${good2}-----BEGIN CERTIFICATE-----\n@@@@\n-----END CERTIFICATE-----\n${good1}`);
  assert.equal(certs.length, 2);
  assert.equal(skipped, 1);
  assert.deepEqual(decodeCertificatesLenient('not pem at all'), { certs: [], skipped: 1 });
  assert.deepEqual(decodeCertificatesLenient(''), { certs: [], skipped: 0 });
});
