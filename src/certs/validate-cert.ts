/**
 * @module certs/validate-cert
 * Decides whether a certificate and key may be served. Certificate hot reload calls this before
 * swapping, so a truncated file, an expired or not-yet-valid certificate, a key from another
 * pair, a certificate without SANs (Go has ignored the CN since 1.15) or one not meant for
 * servers is refused with a reason, and the old pair keeps serving. Never throws.
 */
import { X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { parsePrivateKey } from './keys.js';
import { decodeCertificates } from './pem.js';

export interface CertificateInfo {
  subject: string;
  issuer: string;
  /** Upper-case hex. */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  dnsNames: string[];
  ipAddresses: string[];
  isCA: boolean;
  /** `AA:BB:...` SHA-256 of the DER, as node prints it. */
  fingerprint256: string;
}

/** Summarise one certificate (PEM or DER). Throws `SI_CERT_INVALID` when it does not parse. */
// Only node:crypto here: the server validates every certificate it reloads, and loading the
// X.509 generation library would cost it a quarter of a second at start-up.
export function certificateInfo(cert: string | Buffer): CertificateInfo {
  const der = typeof cert === 'string' ? decodeCertificates(cert)[0] : cert;
  const node = new X509Certificate(der);
  const { dnsNames, ipAddresses } = subjectAltNames(node);
  return {
    subject: node.subject.split('\n').join(', '),
    issuer: node.issuer.split('\n').join(', '),
    serialNumber: node.serialNumber.toUpperCase(),
    notBefore: new Date(node.validFrom),
    notAfter: new Date(node.validTo),
    dnsNames,
    ipAddresses,
    isCA: node.ca,
    fingerprint256: node.fingerprint256,
  };
}

/** SAN entries from node's `subjectAltName` text (`DNS:a, IP Address:0:0:0:0:0:0:0:1`). */
function subjectAltNames(cert: X509Certificate): { dnsNames: string[]; ipAddresses: string[] } {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  for (const entry of (cert.subjectAltName ?? '').split(', ')) {
    if (entry.startsWith('DNS:')) dnsNames.push(entry.slice(4));
    else if (entry.startsWith('IP Address:')) ipAddresses.push(canonicalIp(entry.slice(11)));
  }
  return { dnsNames, ipAddresses };
}

/**
 * node prints IPv6 SANs uncompressed and upper-case; the URL parser gives RFC 5952's form.
 * node prints an IP SAN only as a valid address, so a colon tells the families apart: `isIP`
 * would compile node's IPv6 pattern on first use, 9 ms of `serve`'s start.
 */
function canonicalIp(text: string): string {
  if (!text.includes(':')) return text;
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return text;
  }
}

type KeyPairProblem =
  | 'unreadable'
  | 'bad-certificate'
  | 'bad-key'
  | 'key-mismatch'
  | 'not-yet-valid'
  | 'expired'
  | 'no-san'
  | 'missing-name'
  | 'wrong-usage'
  | 'untrusted';

export type KeyPairValidation =
  | { ok: true; reason: string; certificate: CertificateInfo; notAfter: Date; chainLength: number }
  | { ok: false; problem: KeyPairProblem; reason: string; certificate?: CertificateInfo; notAfter?: Date };

export interface ValidateKeyPairOptions {
  now?: Date;
  /** Every one must be covered by a SAN (wildcards honoured; addresses match IP SANs). */
  requiredNames?: readonly string[];
  /** When given, the leaf (or the chain after it in the PEM) must be issued by one of these. */
  trustedCAs?: readonly string[];
}

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const ANY_EKU = '2.5.29.37.0';

/** Check a PEM certificate (leaf first, optional intermediates after) against a PEM key. */
export function validateKeyPair(certPem: string, keyPem: string, options: ValidateKeyPairOptions = {}): KeyPairValidation {
  const now = options.now ?? new Date();
  let chain: X509Certificate[];
  let info: CertificateInfo;
  try {
    const ders = decodeCertificates(certPem, 'certificate');
    chain = ders.map((der) => new X509Certificate(der));
    info = certificateInfo(ders[0]);
  } catch (err) {
    return fail('bad-certificate', `the certificate cannot be parsed: ${(err as Error).message}`);
  }
  const withInfo = (problem: KeyPairProblem, reason: string): KeyPairValidation => ({ ok: false, problem, reason, certificate: info, notAfter: info.notAfter });

  let key: KeyObject;
  try {
    key = parsePrivateKey(keyPem, 'key');
  } catch (err) {
    return withInfo('bad-key', (err as Error).message);
  }
  if (!chain[0].checkPrivateKey(key)) {
    return withInfo(
      'key-mismatch',
      `the private key does not belong to the certificate "${info.subject}" (serial ${info.serialNumber}); the files are from different pairs`,
    );
  }
  if (now < info.notBefore)
    return withInfo('not-yet-valid', `the certificate is not valid until ${info.notBefore.toISOString()} (clock skew, or issued for the future)`);
  if (now > info.notAfter) return withInfo('expired', `the certificate expired on ${info.notAfter.toISOString()}`);
  if (info.dnsNames.length + info.ipAddresses.length === 0) {
    return withInfo(
      'no-san',
      'the certificate has no subjectAltName DNS or IP entries; the apiserver ignores the common name, so it would refuse this certificate',
    );
  }
  // node's `keyUsage` is the extended key usage OIDs (undefined when the extension is absent).
  const eku = chain[0].keyUsage as string[] | undefined;
  if (eku && !eku.some((u) => u === SERVER_AUTH || u === ANY_EKU)) {
    return withInfo('wrong-usage', "the certificate's extended key usage does not include serverAuth, so TLS clients would refuse it");
  }
  const missing = (options.requiredNames ?? []).filter((name) => !covers(chain[0], name));
  if (missing.length > 0) {
    return withInfo(
      'missing-name',
      `the certificate does not cover ${missing.map((n) => `"${n}"`).join(', ')} (it has ${[...info.dnsNames, ...info.ipAddresses].join(', ')})`,
    );
  }
  if (options.trustedCAs) {
    const problem = checkTrust(chain, options.trustedCAs, now);
    if (problem) return withInfo('untrusted', problem);
  }
  const names = [...info.dnsNames, ...info.ipAddresses];
  return {
    ok: true,
    reason: `valid until ${info.notAfter.toISOString()} for ${names.join(', ')}`,
    certificate: info,
    notAfter: info.notAfter,
    chainLength: chain.length,
  };
}

/** `validateKeyPair` on two files; a missing or unreadable file is a result, not an exception. */
export async function validateKeyPairFiles(
  certFile: string,
  keyFile: string,
  options: ValidateKeyPairOptions = {},
): Promise<KeyPairValidation & { certPem?: string; keyPem?: string }> {
  let certPem: string;
  let keyPem: string;
  try {
    [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return fail('unreadable', `cannot read ${e.path ?? `${certFile} or ${keyFile}`}: ${e.code ?? e.message}`);
  }
  const result = validateKeyPair(certPem, keyPem, options);
  return result.ok ? { ...result, certPem, keyPem } : result;
}

function covers(cert: X509Certificate, name: string): boolean {
  const bare = name.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) !== 0) return cert.checkIP(bare) !== undefined;
  return cert.checkHost(bare, { subject: 'never' }) !== undefined;
}

function checkTrust(chain: X509Certificate[], trustedPems: readonly string[], now: Date): string | undefined {
  const roots: X509Certificate[] = [];
  for (const pem of trustedPems) {
    try {
      for (const der of decodeCertificates(pem, 'trusted CA')) roots.push(new X509Certificate(der));
    } catch {
      // An unreadable trust anchor trusts nothing; the error below says the chain is untrusted.
    }
  }
  // Walk leaf -> intermediates; stop at the first certificate a trusted root issued and signed.
  for (let i = 0; i < chain.length; i++) {
    const cert = chain[i];
    const root = roots.find((r) => cert.checkIssued(r) && cert.verify(r.publicKey));
    if (root) {
      const notAfter = new Date(root.validTo);
      return now > notAfter ? `the issuing CA "${root.subject.replace(/\n/g, ', ')}" expired on ${notAfter.toISOString()}` : undefined;
    }
    const next = chain[i + 1];
    if (!next || !cert.checkIssued(next) || !cert.verify(next.publicKey)) break;
  }
  return `the certificate is not issued by the trusted CA${roots.length === 1 ? '' : 's'} (${roots.map((r) => r.subject.replace(/\n/g, ', ')).join('; ') || 'none readable'})`;
}

function fail(problem: KeyPairProblem, reason: string): KeyPairValidation {
  return { ok: false, problem, reason };
}
