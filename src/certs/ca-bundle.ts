/**
 * @module certs/ca-bundle
 * What a webhook's `caBundle` should hold. During a CA rollover some replicas still serve a
 * leaf from the old CA, so the bundle keeps every unexpired CA already in it next to the
 * current one (cert-manager's CAInjectorMerging and Kyverno do the same; replacing outright
 * caused cert-manager#6350). Comparison is by certificate set, not text, so two replicas that
 * list the same CAs in a different order never fight over the field.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { CertError } from '../errors.js';
import { decodeCertificates, decodeCertificatesLenient, encodePem } from './pem.js';

/** base64 of the concatenated PEM of every certificate in `pems`, deduplicated, in order. */
export function caBundleFor(pems: string | readonly string[]): string {
  const ders = (typeof pems === 'string' ? [pems] : pems).flatMap((pem) => decodeCertificates(pem, 'CA certificate'));
  const seen = new Set<string>();
  let text = '';
  for (const der of ders) {
    const fp = fingerprint(der);
    if (seen.has(fp)) continue;
    seen.add(fp);
    text += encodePem('CERTIFICATE', der);
  }
  return Buffer.from(text).toString('base64');
}

interface BundleCertificate {
  pem: string;
  /** SHA-256 of the DER, hex. */
  fingerprint: string;
  notBefore: Date;
  notAfter: Date;
}

export interface BundlePlan {
  /** Current CAs first, then retained ones, newest first. */
  certificates: BundleCertificate[];
  /** The value for `clientConfig.caBundle` (base64 of the PEMs). Empty when no CA is usable. */
  bundle: string;
  /** Certificates in the existing bundle that were not current and are kept. */
  retained: number;
  /** Expired certificates left out (current or existing). */
  expired: number;
  /** Blocks of the existing bundle that did not parse, left out. */
  unreadable: number;
  /** Unexpired old CAs left out because of `maxCAs`. */
  overLimit: number;
  /** True when the existing bundle already holds exactly these certificates and nothing else. */
  unchanged: boolean;
}

export interface PlanOptions {
  /** PEM text(s) of the CA(s) that sign what we serve now; all certificates in them count. */
  current: readonly string[];
  /** The live `caBundle` value (base64 of PEM), if any. */
  existing?: string;
  now?: Date;
  /** Upper bound on the bundle's size; current CAs always fit first. Default 10. */
  maxCAs?: number;
}

export const DEFAULT_MAX_BUNDLE_CAS = 10;

/** Desired bundle for one webhook. Throws `SI_CERT_INVALID` when `current` has no certificate. */
export function planCaBundle(options: PlanOptions): BundlePlan {
  const now = options.now ?? new Date();
  const maxCAs = Math.max(1, options.maxCAs ?? DEFAULT_MAX_BUNDLE_CAS);
  let expired = 0;
  const chosen = new Map<string, BundleCertificate>();

  for (const der of options.current.flatMap((pem) => decodeCertificates(pem, 'current CA'))) {
    const cert = describe(der);
    if (!cert) throw new CertError('SI_CERT_INVALID', 'a current CA certificate cannot be parsed');
    if (cert.notAfter < now) expired++;
    else if (!chosen.has(cert.fingerprint)) chosen.set(cert.fingerprint, cert);
  }

  const existing = decodeExisting(options.existing);
  let unreadable = existing.unreadable;
  const candidates = new Map<string, BundleCertificate>();
  const existingFingerprints = new Set<string>();
  for (const der of existing.certs) {
    const cert = describe(der);
    if (!cert) {
      unreadable++;
      continue;
    }
    existingFingerprints.add(cert.fingerprint);
    if (cert.notAfter < now) expired++;
    else if (!chosen.has(cert.fingerprint)) candidates.set(cert.fingerprint, cert);
  }
  const newestFirst = [...candidates.values()].sort((a, b) => b.notBefore.getTime() - a.notBefore.getTime());
  const room = Math.max(0, maxCAs - chosen.size);
  const retained = newestFirst.slice(0, room);
  for (const cert of retained) chosen.set(cert.fingerprint, cert);

  const certificates = [...chosen.values()];
  const unchanged =
    certificates.length > 0 &&
    unreadable === 0 &&
    existingFingerprints.size === certificates.length &&
    certificates.every((c) => existingFingerprints.has(c.fingerprint));
  return {
    certificates,
    bundle: certificates.length === 0 ? '' : Buffer.from(certificates.map((c) => c.pem).join('')).toString('base64'),
    retained: retained.length,
    expired,
    unreadable,
    overLimit: newestFirst.length - retained.length,
    unchanged,
  };
}

function decodeExisting(bundle: string | undefined): { certs: Buffer[]; unreadable: number } {
  if (bundle === undefined || bundle === '') return { certs: [], unreadable: 0 };
  const text = Buffer.from(bundle, 'base64').toString('latin1');
  const { certs, skipped } = decodeCertificatesLenient(text);
  return { certs, unreadable: skipped };
}

function describe(der: Buffer): BundleCertificate | undefined {
  try {
    const cert = new X509Certificate(der);
    return { pem: encodePem('CERTIFICATE', der), fingerprint: fingerprint(der), notBefore: new Date(cert.validFrom), notAfter: new Date(cert.validTo) };
  } catch {
    return undefined;
  }
}

/** SHA-256 of a certificate's DER, hex: how bundles, the reconciler and provisioning tell CAs apart. */
export function fingerprint(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex');
}
