/**
 * @module certs/provision
 * What a self-provisioned TLS Secret should hold next (`serve --tls-provision`), as a pure
 * decision over its data, the clock and what the caBundle already trusts. Every replica runs
 * it; the Secret write is conditional on the resourceVersion read, so exactly one replica's
 * answer lands and the others read it.
 *
 * The Secret holds the signing CA (`ca.crt` first + `ca.key`), the serving pair (`tls.crt`,
 * `tls.key`) and, during a CA rotation, the next CA (`ca-next.crt` + `ca-next.key`). `ca.crt`
 * is the trust set the caBundle is built from: signing CA, next CA, then older CAs until they
 * expire. Renewals happen at two thirds of a certificate's life. A CA rotation takes two writes:
 * 1. stage: the next CA joins `ca.crt` (so every replica's caBundle reconciler adds it) while
 *    the old CA keeps signing, renewals included;
 * 2. switch: once the caBundle has held the next CA for `switchDelayMs` (the apiserver reloads
 *    webhook configurations asynchronously), it becomes the signing CA and a serving
 *    certificate is issued from it.
 * The old CA stays in `ca.crt` (and the caBundle) until it expires, so a replica that is slow
 * to read the Secret keeps serving a trusted certificate: no writer has to know what every
 * replica serves, only that the old CA outlives the switch by a third of its life.
 */
import { X509Certificate } from 'node:crypto';
import { CA_CERT_FILE, CA_KEY_FILE, TLS_CERT_FILE, TLS_KEY_FILE } from './constants.js';
import { fingerprint } from './ca-bundle.js';
import { CLOCK_SKEW_MS, generateCA, issueServingCert, type CertificateAuthority } from './create-certs.js';
import { caFromPem } from './load-ca.js';
import { splitHosts } from './names.js';
import { decodeCertificatesLenient, encodePem } from './pem.js';
import { validateKeyPair } from './validate-cert.js';

/** Where the staged CA waits during a rotation (also listed in `ca.crt`). */
export const NEXT_CA_CERT_KEY = 'ca-next.crt';
export const NEXT_CA_KEY_KEY = 'ca-next.key';
/** The keys a provisioned Secret holds; anything else in it is left alone. */
export const PROVISIONED_KEYS = [TLS_CERT_FILE, TLS_KEY_FILE, CA_CERT_FILE, CA_KEY_FILE, NEXT_CA_CERT_KEY, NEXT_CA_KEY_KEY] as const;
/** A certificate is renewed once this fraction of its life has passed. */
const RENEW_AT = 2 / 3;
/** Default wait between "the caBundle holds the next CA" and serving a certificate from it. */
export const DEFAULT_SWITCH_DELAY_MS = 10_000;

export interface ProvisionPolicy {
  /** SANs of the serving certificate (the Service's DNS names). */
  dnsNames: readonly string[];
  caValidityMs: number;
  certValidityMs: number;
  switchDelayMs?: number;
}

export interface ProvisionInput {
  /** The Secret's data, decoded to text. */
  data: Readonly<Record<string, string>>;
  /** The Secret carries our provisioned marker (we wrote it before). */
  managed: boolean;
  now: Date;
  /** Since when the caBundle has held the CA with this fingerprint (sha256 hex); undefined: not (yet). */
  trustedSince: (fingerprint: string) => Date | undefined;
}

export type ProvisionStep = 'create' | 'stage-ca' | 'switch-ca' | 'issue-cert' | 'renew-cert';

export type ProvisionPlan =
  | { action: 'keep' }
  /** Certificates someone else put there: serve them, never overwrite (gatekeeper#2261). */
  | { action: 'foreign'; reason: string }
  /** New values for the provisioned keys (the others stay); `why` says what and why, for the log. */
  | { action: 'write'; data: Record<string, string>; steps: ProvisionStep[]; why: string[] };

/** Whether `now` is past two thirds of the life of a certificate we issued (back-dated by CLOCK_SKEW_MS). */
export function renewalDue(cert: { notBefore: Date; notAfter: Date }, now: Date): boolean {
  const issuedAt = Math.min(cert.notBefore.getTime() + CLOCK_SKEW_MS, cert.notAfter.getTime());
  return now.getTime() >= issuedAt + RENEW_AT * (cert.notAfter.getTime() - issuedAt);
}

export async function planProvision(input: ProvisionInput, policy: ProvisionPolicy): Promise<ProvisionPlan> {
  const { data, now } = input;
  const has = (key: string) => (data[key] ?? '').trim() !== '';
  if (!input.managed && (has(TLS_CERT_FILE) || has(CA_CERT_FILE))) {
    return { action: 'foreign', reason: 'the Secret holds certificates the injector did not write; it serves them but never renews or replaces them' };
  }
  const steps: ProvisionStep[] = [];
  const why: string[] = [];
  const step = (s: ProvisionStep, reason: string) => {
    steps.push(s);
    why.push(reason);
  };

  let signing = tryCA(data[CA_CERT_FILE], data[CA_KEY_FILE], now);
  let next = tryCA(data[NEXT_CA_CERT_KEY], data[NEXT_CA_KEY_KEY], now);
  let mustIssue = false;
  if (next !== undefined) {
    const since = input.trustedSince(caFingerprint(next));
    const signingGone = signing === undefined;
    if (signingGone || (since !== undefined && now.getTime() - since.getTime() >= (policy.switchDelayMs ?? DEFAULT_SWITCH_DELAY_MS))) {
      step(
        'switch-ca',
        signingGone
          ? 'the signing CA is gone or expired; the staged CA takes over'
          : `the caBundle has trusted the staged CA "${next.subject}" since ${since!.toISOString()}; it now signs`,
      );
      signing = next;
      next = undefined;
      mustIssue = true;
    }
  }
  if (signing === undefined) {
    signing = await generateCA({ validityMs: policy.caValidityMs, now, commonName: `sidecar-injector-ca@${now.getTime()}` });
    step(
      'create',
      has(CA_CERT_FILE)
        ? 'the CA in the Secret is unusable (expired, damaged or without its key); a new one replaces it'
        : 'the Secret is empty; a CA is created',
    );
    mustIssue = true;
  } else if (next === undefined && !steps.includes('switch-ca') && renewalDue(signing, now)) {
    next = await generateCA({ validityMs: policy.caValidityMs, now, commonName: `sidecar-injector-ca@${now.getTime()}` });
    step(
      'stage-ca',
      `the CA "${signing.subject}" is past two thirds of its life (until ${signing.notAfter.toISOString()}); a new CA is staged in the caBundle before it signs`,
    );
  }

  let certPem = data[TLS_CERT_FILE] ?? '';
  let keyPem = data[TLS_KEY_FILE] ?? '';
  const problem = mustIssue ? undefined : leafProblem(certPem, keyPem, signing, policy, now);
  if (mustIssue || problem !== undefined) {
    const leaf = await issueServingCert(signing, { ...splitHosts(policy.dnsNames), validityMs: policy.certValidityMs, now });
    certPem = leaf.certPem;
    keyPem = leaf.keyPem;
    if (problem === 'due') step('renew-cert', 'the serving certificate is past two thirds of its life');
    else step('issue-cert', problem ?? `a serving certificate is issued by "${signing.subject}"`);
  }
  if (steps.length === 0) return { action: 'keep' };

  const trust = trustSet(signing, next, data[CA_CERT_FILE], now);
  const out: Record<string, string> = { [TLS_CERT_FILE]: certPem, [TLS_KEY_FILE]: keyPem, [CA_CERT_FILE]: trust, [CA_KEY_FILE]: signing.keyPem };
  if (next !== undefined) {
    out[NEXT_CA_CERT_KEY] = next.certPem;
    out[NEXT_CA_KEY_KEY] = next.keyPem;
  }
  return { action: 'write', data: out, steps, why };
}

/** Fingerprint (sha256 hex of the DER) of a CA's certificate. */
export function caFingerprint(ca: Pick<CertificateAuthority, 'certPem'>): string {
  return fingerprint(Buffer.from(new X509Certificate(ca.certPem).raw));
}

function tryCA(certPem: string | undefined, keyPem: string | undefined, now: Date): CertificateAuthority | undefined {
  if (!certPem?.trim() || !keyPem?.trim()) return undefined;
  try {
    return caFromPem(certPem, keyPem, { now });
  } catch {
    return undefined;
  }
}

/** Why the serving pair must be (re)issued by `signing`: 'due', a reason, or undefined when it is fine. */
function leafProblem(certPem: string, keyPem: string, signing: CertificateAuthority, policy: ProvisionPolicy, now: Date): string | undefined {
  if (certPem.trim() === '' || keyPem.trim() === '') return 'the Secret has no serving certificate';
  const result = validateKeyPair(certPem, keyPem, { now, requiredNames: policy.dnsNames, trustedCAs: [signing.certPem] });
  if (!result.ok) return `the serving certificate is not usable: ${result.reason}`;
  return renewalDue(result.certificate, now) ? 'due' : undefined;
}

/** `ca.crt`: the signing CA, the staged one, then every other unexpired CA already listed. */
function trustSet(signing: CertificateAuthority, next: CertificateAuthority | undefined, previous: string | undefined, now: Date): string {
  const pems = [signing.certPem, ...(next ? [next.certPem] : [])];
  const seen = new Set(pems.map((p) => caFingerprint({ certPem: p })));
  for (const der of decodeCertificatesLenient(previous ?? '').certs) {
    const fp = fingerprint(der);
    if (seen.has(fp)) continue;
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(der);
    } catch {
      continue;
    }
    if (!cert.ca || new Date(cert.validTo) <= now) continue;
    seen.add(fp);
    pems.push(encodePem('CERTIFICATE', der));
  }
  return pems.join('');
}

/**
 * Fingerprint of the CA in `caPems` that anchors `certPem` (the leaf, or an intermediate sent
 * after it), as a client trusting only `caPems` would find it; undefined when none does.
 */
export function issuerFingerprint(certPem: string, caPems: string): string | undefined {
  try {
    const chain = decodeCertificatesLenient(certPem).certs.map((der) => new X509Certificate(der));
    const cas = decodeCertificatesLenient(caPems).certs.map((der) => ({ der, cert: new X509Certificate(der) }));
    for (const link of chain) {
      const anchor = cas.find((ca) => link.checkIssued(ca.cert) && link.verify(ca.cert.publicKey));
      if (anchor) return fingerprint(anchor.der);
    }
  } catch {
    // unreadable: no issuer
  }
  return undefined;
}
