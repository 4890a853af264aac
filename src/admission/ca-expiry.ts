/**
 * @module admission/ca-expiry
 * The notAfter of the CA that signed the served certificate, for
 * `sidecar_injector_certificate_expiry_timestamp_seconds{certificate="serving-ca"}`: when that CA
 * expires the apiserver stops trusting the webhook whatever the leaf says. A CA file may hold
 * several CAs during a rollover; the one that issued the leaf counts. node:crypto only (the
 * server start-up path).
 */
import { X509Certificate } from 'node:crypto';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The issuing CA's notAfter, or undefined when the CA text holds no issuer of the leaf (or does not parse). */
export function servingCaNotAfter(certPem: string, caPem: string): Date | undefined {
  try {
    const leaf = new X509Certificate(certPem.match(PEM_CERT)?.[0] ?? '');
    const issuers = (caPem.match(PEM_CERT) ?? []).map((b) => new X509Certificate(b)).filter((ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey));
    if (issuers.length === 0) return undefined;
    return new Date(Math.max(...issuers.map((ca) => new Date(ca.validTo).getTime())));
  } catch {
    return undefined;
  }
}
