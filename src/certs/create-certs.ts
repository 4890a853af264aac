/**
 * @module certs/create-certs
 * Creates the webhook's private CA and its serving certificates, in process, with
 * @peculiar/x509 on node's WebCrypto: ECDSA P-256 keys, SHA-256 signatures, random positive
 * 128-bit serials, notBefore back-dated for clock skew, and the extensions Go's crypto/x509
 * (the apiserver's TLS client) checks: SANs (the CN is ignored since Go 1.15), serverAuth,
 * and a CA with basicConstraints and keyCertSign.
 */
import { randomBytes } from 'node:crypto';
import { CertError } from '../errors.js';
import { exportPrivateKeyPem, generateKeyPair, importSigningKey, type SigningKey } from './keys.js';
import { normalizeDnsName, normalizeIp, splitHosts } from './names.js';
import { x509 } from './x509-lib.js';
import { DEFAULT_CA_VALIDITY_DAYS, DEFAULT_LEAF_VALIDITY_DAYS, MAX_VALIDITY_DAYS } from './constants.js';
/** notBefore is set this far in the past so a node whose clock is behind still accepts it. */
export const CLOCK_SKEW_MS = 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

/** A CA as files hold it. Plain data: issuing from it re-imports the key (cached). */
export interface CertificateAuthority {
  readonly certPem: string;
  /** PKCS#8 PEM for CAs we generate; loaded CAs keep the user's format. */
  readonly keyPem: string;
  readonly subject: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
}

export interface ServingCertificate {
  readonly certPem: string;
  /** PKCS#8 PEM. */
  readonly keyPem: string;
  /** The issuing CA's certificate, for `ca.crt` and the caBundle. */
  readonly caPem: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  /** Hex, upper case, as node's X509Certificate prints it. */
  readonly serialNumber: string;
  /** True when the requested lifetime was cut to end with the CA's. */
  readonly clampedToCA: boolean;
}

export interface GenerateCAOptions {
  /** Default `sidecar-injector-ca@<unix seconds>`, so successive CAs are told apart. */
  commonName?: string;
  validityDays?: number;
  /** Lifetime in milliseconds (at least a minute); overrides `validityDays`. Self-provisioning and its tests use it. */
  validityMs?: number;
  now?: Date;
}

export interface ServingCertOptions {
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
  validityDays?: number;
  /** Lifetime in milliseconds (at least a minute); overrides `validityDays`. */
  validityMs?: number;
  now?: Date;
}

export async function generateCA(options: GenerateCAOptions = {}): Promise<CertificateAuthority> {
  const now = options.now ?? new Date();
  const lifeMs = lifetimeMs(options, DEFAULT_CA_VALIDITY_DAYS, 'CA validity');
  const commonName = options.commonName ?? `sidecar-injector-ca@${Math.floor(now.getTime() / 1000)}`;
  if (commonName.length === 0 || commonName.length > 64) throw new CertError('SI_CERT_GENERATE', 'the CA common name must be 1 to 64 characters');
  try {
    const keys = await generateKeyPair();
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: randomSerial(),
      name: [{ CN: [{ utf8String: commonName }] }] as unknown as x509.JsonName, // object form keeps commas and quotes literal
      notBefore: new Date(now.getTime() - CLOCK_SKEW_MS),
      notAfter: new Date(now.getTime() + lifeMs),
      keys: { privateKey: keys.privateKey, publicKey: keys.publicKey },
      signingAlgorithm: keys.algorithm,
      extensions: [
        // pathLen 0: this CA signs serving certificates only, never another CA.
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    const ca: CertificateAuthority = {
      certPem: pemWithNewline(cert.toString('pem')),
      keyPem: await exportPrivateKeyPem(keys.privateKey),
      subject: cert.subject,
      notBefore: cert.notBefore,
      notAfter: cert.notAfter,
    };
    signers.set(ca, Promise.resolve({ cert, key: keys }));
    return ca;
  } catch (err) {
    throw generateFailed('the CA', err);
  }
}

export async function issueServingCert(ca: CertificateAuthority, options: ServingCertOptions): Promise<ServingCertificate> {
  const dnsNames = unique((options.dnsNames ?? []).map(normalizeDnsName));
  const ipAddresses = unique((options.ipAddresses ?? []).map(normalizeIp));
  if (dnsNames.length + ipAddresses.length === 0) {
    throw new CertError('SI_CERT_GENERATE', 'a serving certificate needs at least one DNS name or IP address (the apiserver checks SANs only)');
  }
  const san = [...dnsNames.map((value) => ({ type: 'dns' as const, value })), ...ipAddresses.map((value) => ({ type: 'ip' as const, value }))];
  const leaf = await signLeaf(ca, {
    commonName: dnsNames[0] ?? ipAddresses[0],
    san,
    usage: x509.ExtendedKeyUsage.serverAuth,
    what: 'the serving certificate',
    ...options,
  });
  return { ...leaf, dnsNames, ipAddresses };
}

export interface ClientCertOptions {
  /** Subject CN (and DNS SAN): what `serve --client-name` matches, e.g. `kube-apiserver`. */
  commonName: string;
  validityDays?: number;
  now?: Date;
}

/** A client certificate (clientAuth) for the caller of the webhook, e.g. the apiserver (`serve --client-ca`). */
export async function issueClientCert(ca: CertificateAuthority, options: ClientCertOptions): Promise<ServingCertificate> {
  const name = options.commonName.trim();
  if (name === '' || name.length > 64)
    throw new CertError('SI_CERT_GENERATE', `a client certificate needs a name of 1 to 64 characters, got ${JSON.stringify(options.commonName)}`);
  const leaf = await signLeaf(ca, {
    ...options,
    commonName: name,
    san: [{ type: 'dns', value: name }],
    usage: x509.ExtendedKeyUsage.clientAuth,
    what: 'the client certificate',
  });
  return { ...leaf, dnsNames: [name], ipAddresses: [] };
}

interface LeafSpec {
  commonName: string;
  san: { type: 'dns' | 'ip'; value: string }[];
  usage: string;
  what: string;
  validityDays?: number;
  validityMs?: number;
  now?: Date;
}

async function signLeaf(ca: CertificateAuthority, spec: LeafSpec): Promise<Omit<ServingCertificate, 'dnsNames' | 'ipAddresses'>> {
  const now = spec.now ?? new Date();
  const lifeMs = lifetimeMs(spec, DEFAULT_LEAF_VALIDITY_DAYS, 'certificate validity');
  const signer = await signerFor(ca);
  if (signer.cert.notAfter.getTime() <= now.getTime()) {
    throw new CertError('SI_CERT_INVALID', `the CA "${ca.subject}" expired on ${signer.cert.notAfter.toISOString()}; create a new CA`);
  }
  const wanted = now.getTime() + lifeMs;
  const notAfter = new Date(Math.min(wanted, signer.cert.notAfter.getTime()));
  const notBefore = new Date(Math.max(now.getTime() - CLOCK_SKEW_MS, signer.cert.notBefore.getTime()));
  const commonName = spec.commonName;
  try {
    const keys = await generateKeyPair();
    const san = spec.san;
    const subjectIsEmpty = commonName.length > 64;
    const caKeyId = signer.cert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      // A CN over 64 characters is not allowed; then the subject is empty and the SAN critical (RFC 5280 4.2.1.6).
      subject: (subjectIsEmpty ? [] : [{ CN: [{ utf8String: commonName }] }]) as unknown as x509.JsonName,
      issuer: signer.cert.subjectName,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: signer.key.privateKey,
      signingAlgorithm: signer.key.algorithm,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        // ECDSA keys sign the TLS handshake; keyEncipherment is for RSA key transport and
        // RFC 8813 forbids it (and dataEncipherment) on EC keys.
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([spec.usage], false),
        new x509.SubjectAlternativeNameExtension(san, subjectIsEmpty),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        caKeyId ? new x509.AuthorityKeyIdentifierExtension(caKeyId) : await x509.AuthorityKeyIdentifierExtension.create(signer.key.publicKey),
      ],
    });
    return {
      certPem: pemWithNewline(cert.toString('pem')),
      keyPem: await exportPrivateKeyPem(keys.privateKey),
      caPem: ca.certPem,
      notBefore: cert.notBefore,
      notAfter: cert.notAfter,
      serialNumber: cert.serialNumber.toUpperCase(),
      clampedToCA: wanted > notAfter.getTime(),
    };
  } catch (err) {
    throw generateFailed(spec.what, err);
  }
}

export interface DevCertificate extends ServingCertificate {
  /** The throwaway CA, kept in memory only; its key can issue a renewed leaf. */
  readonly ca: CertificateAuthority;
}

/**
 * A self-signed CA plus a serving certificate for local use (`serve` without TLS flags):
 * `localhost`, `127.0.0.1`, `::1` and any `hosts` (names or addresses). Nothing is written to
 * disk. A year by default, since nothing renews it while the process runs.
 */
export async function devCertificate(options: { hosts?: readonly string[]; validityDays?: number; now?: Date } = {}): Promise<DevCertificate> {
  const { dnsNames, ipAddresses } = splitHosts(['localhost', '127.0.0.1', '::1', ...(options.hosts ?? [])]);
  const validityDays = options.validityDays ?? DEFAULT_LEAF_VALIDITY_DAYS;
  const ca = await generateCA({ commonName: 'sidecar-injector-dev-ca', validityDays, now: options.now });
  const leaf = await issueServingCert(ca, { dnsNames, ipAddresses, validityDays, now: options.now });
  return { ...leaf, ca };
}

interface Signer {
  cert: x509.X509Certificate;
  key: SigningKey;
}

// Imported signing material per CA object, so a loaded CA is parsed once however many leaves it issues.
const signers = new WeakMap<CertificateAuthority, Promise<Signer>>();

function signerFor(ca: CertificateAuthority): Promise<Signer> {
  let signer = signers.get(ca);
  if (!signer) {
    signer = importSigner(ca);
    signers.set(ca, signer);
    signer.catch(() => signers.delete(ca));
  }
  return signer;
}

async function importSigner(ca: CertificateAuthority): Promise<Signer> {
  let cert: x509.X509Certificate;
  try {
    cert = new x509.X509Certificate(ca.certPem);
  } catch (err) {
    throw new CertError('SI_CERT_INVALID', `the CA certificate cannot be parsed: ${(err as Error).message}`, { cause: err });
  }
  return { cert, key: await importSigningKey(ca.keyPem) };
}

/** 16 random bytes, first byte 0x01–0x7f: positive and minimally DER-encoded (Go rejects both faults). */
export function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0] & 0x7f || 0x01;
  return bytes.toString('hex');
}

/** Shortest lifetime `validityMs` accepts: below it renewal could not keep up with reloads. */
const MIN_VALIDITY_MS = 60_000;

function lifetimeMs(options: { validityDays?: number; validityMs?: number }, defaultDays: number, what: string): number {
  if (options.validityMs === undefined) return checkDays(options.validityDays ?? defaultDays, what) * DAY_MS;
  const ms = options.validityMs;
  if (!Number.isInteger(ms) || ms < MIN_VALIDITY_MS || ms > MAX_VALIDITY_DAYS * DAY_MS) {
    throw new CertError('SI_CERT_GENERATE', `${what} must be from one minute to ${MAX_VALIDITY_DAYS} days, got ${ms} ms`);
  }
  return ms;
}

function checkDays(days: number, what: string): number {
  if (!Number.isInteger(days) || days < 1 || days > MAX_VALIDITY_DAYS) {
    throw new CertError('SI_CERT_GENERATE', `${what} must be a whole number of days from 1 to ${MAX_VALIDITY_DAYS}, got ${days}`);
  }
  return days;
}

function pemWithNewline(pem: string): string {
  return pem.endsWith('\n') ? pem : `${pem}\n`;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function generateFailed(what: string, err: unknown): CertError {
  if (err instanceof CertError) return err;
  return new CertError('SI_CERT_GENERATE', `could not generate ${what}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
}
