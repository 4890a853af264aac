/**
 * @module test/support/cert-fixtures
 * Certificates our generator would never make (no SAN, client-only usage, arbitrary dates),
 * for tests that check the validator refuses them.
 */
import { webcrypto } from 'node:crypto';
import { x509 } from '../../src/certs/x509-lib.js';
import { encodePem } from '../../src/certs/pem.js';
import { randomSerial } from '../../src/certs/create-certs.js';

export interface OddCertificateOptions {
  commonName?: string;
  dnsNames?: string[];
  extKeyUsages?: string[];
  notBefore?: Date;
  notAfter?: Date;
}

/** A self-signed ECDSA certificate and its PKCS#8 key, shaped by `options`. */
export async function oddCertificate(options: OddCertificateOptions = {}): Promise<{ certPem: string; keyPem: string }> {
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  if (options.dnsNames) extensions.push(new x509.SubjectAlternativeNameExtension(options.dnsNames.map((value) => ({ type: 'dns', value }))));
  if (options.extKeyUsages) extensions.push(new x509.ExtendedKeyUsageExtension(options.extKeyUsages));
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: [{ CN: [{ utf8String: options.commonName ?? 'odd.example' }] }] as unknown as x509.JsonName,
    notBefore: options.notBefore ?? new Date(now - 60_000),
    notAfter: options.notAfter ?? new Date(now + 86_400_000),
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions,
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: encodePem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)) };
}
