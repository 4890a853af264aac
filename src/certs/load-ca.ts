/**
 * @module certs/load-ca
 * Reads an existing CA (`ca.crt` + `ca.key`) from a directory so `certs` can renew only the
 * serving certificate. Every way the pair can be unusable is a `CertError` whose
 * `details.problem` says which, so the CLI can tell the user exactly what to do.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { CertError } from '../errors.js';
import type { CertificateAuthority } from './create-certs.js';
import { parsePrivateKey } from './keys.js';
import { decodeCertificates, encodePem } from './pem.js';
import { certificateInfo } from './validate-cert.js';

import { CA_CERT_FILE, CA_KEY_FILE } from './constants.js';

export { CA_CERT_FILE, CA_KEY_FILE };

export type CALoadProblem = 'half-present' | 'unreadable' | 'bad-certificate' | 'bad-key' | 'key-mismatch' | 'not-a-ca' | 'expired' | 'not-yet-valid';

/**
 * The CA in `dir`, or `undefined` when neither file exists. `ca.crt` may hold more than one
 * certificate (an old CA kept for a rollover); the first one is the CA and must match `ca.key`.
 */
export async function loadCA(dir: string, options: { now?: Date } = {}): Promise<CertificateAuthority | undefined> {
  const now = options.now ?? new Date();
  const certFile = join(dir, CA_CERT_FILE);
  const keyFile = join(dir, CA_KEY_FILE);
  const [certText, keyText] = await Promise.all([readOptional(certFile), readOptional(keyFile)]);
  if (certText === undefined && keyText === undefined) return undefined;
  if (certText === undefined || keyText === undefined) {
    const [present, absent] = certText === undefined ? [keyFile, certFile] : [certFile, keyFile];
    throw problem('half-present', `${present} exists but ${absent} does not; both are needed to renew the serving certificate`);
  }
  return caFromPem(certText, keyText, { now, certSource: certFile, keySource: keyFile });
}

/**
 * A CA from its PEM texts (files or a Secret's data): the first certificate of `certText` must be
 * a CA, unexpired, and match `keyText`. Throws `SI_CERT_INVALID` with `details.problem`.
 */
export function caFromPem(certText: string, keyText: string, options: { now?: Date; certSource?: string; keySource?: string } = {}): CertificateAuthority {
  const now = options.now ?? new Date();
  const certFile = options.certSource ?? CA_CERT_FILE;
  const keyFile = options.keySource ?? CA_KEY_FILE;
  let der: Buffer;
  let cert: X509Certificate;
  try {
    der = decodeCertificates(certText, certFile)[0];
    cert = new X509Certificate(der);
  } catch (err) {
    throw problem('bad-certificate', `${certFile} is not a readable certificate: ${(err as Error).message}`, err);
  }
  let key;
  try {
    key = parsePrivateKey(keyText, keyFile);
  } catch (err) {
    throw problem('bad-key', (err as Error).message, err);
  }
  if (!cert.checkPrivateKey(key)) throw problem('key-mismatch', `${keyFile} is not the private key of ${certFile}`);
  if (!cert.ca) throw problem('not-a-ca', `${certFile} is not a CA certificate (basicConstraints CA:TRUE is missing)`);
  const info = certificateInfo(der);
  if (now > info.notAfter) throw problem('expired', `the CA in ${certFile} ("${info.subject}") expired on ${info.notAfter.toISOString()}`);
  if (now < info.notBefore) throw problem('not-yet-valid', `the CA in ${certFile} is not valid until ${info.notBefore.toISOString()}`);
  return { certPem: encodePem('CERTIFICATE', der), keyPem: keyText, subject: info.subject, notBefore: info.notBefore, notAfter: info.notAfter };
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw problem('unreadable', `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, err);
  }
}

function problem(kind: CALoadProblem, message: string, cause?: unknown): CertError {
  return new CertError('SI_CERT_INVALID', message, { cause, details: { problem: kind } });
}

/** The `details.problem` of an error thrown by `loadCA`, if it is one. */
export function caLoadProblem(err: unknown): CALoadProblem | undefined {
  return err instanceof CertError && typeof err.details?.problem === 'string' ? (err.details.problem as CALoadProblem) : undefined;
}
