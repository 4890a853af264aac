/**
 * @module install/tls
 * The serving certificate and caBundle for an install. Generated in process with the certs
 * library (no openssl, no CLI call). With a certificates directory the same CA and, while it is
 * still good, the same leaf are reused, so re-running `manifests` does not rotate the CA under
 * a running cluster (the caBundle would change and every replica's certificate with it); the
 * directory has the `certs` command's layout (ca.crt, ca.key, tls.crt, tls.key).
 */
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CA_CERT_FILE,
  CA_KEY_FILE,
  caBundleFor,
  generateCA,
  issueServingCert,
  loadCA,
  serviceDnsNames,
  splitHosts,
  validateKeyPairFiles,
} from '../certs/index.js';
import { CertError, InjectorError } from '../errors.js';
import { provisionedSecretName, servedSecretName, webhookUrlHost, type InstallOptions } from './options.js';

import { TLS_CERT_FILE, TLS_KEY_FILE } from '../certs/constants.js';
/** A reused leaf must stay valid at least this long; otherwise a new one is issued. */
export const LEAF_RENEW_BEFORE_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface InstallCertificates {
  /** `generated`: new CA and leaf; `reused`/`renewed`: CA from the directory, leaf kept or reissued. */
  source: 'generated' | 'reused' | 'renewed' | 'ca-file' | 'none' | 'cert-manager' | 'provision';
  /** PEM of the CA certificate(s): the Secret's ca.crt and the caBundle. */
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  /** base64 PEM for clientConfig.caBundle; undefined leaves the field out. */
  caBundle?: string;
  dnsNames: string[];
  /** What the user should know (printed on stderr by the CLI). */
  notes: string[];
}

export interface CertificateSources {
  /** Directory to reuse (and write) the CA and leaf in. */
  certsDir?: string;
  /** With certMode `none`: the CA that signed the user's own serving certificate. */
  caFile?: string;
  now?: Date;
}

function usage(message: string): InjectorError {
  return new InjectorError('SI_USAGE', message);
}

export async function installCertificates(o: InstallOptions, sources: CertificateSources = {}): Promise<InstallCertificates> {
  // In URL mode the apiserver dials the URL's host (an IP address or a name), not the Service.
  const dnsNames = o.webhookUrl !== undefined ? [webhookUrlHost(o.webhookUrl)] : serviceDnsNames(o.name, o.namespace, o.clusterDomain);
  if (o.certMode !== 'generate' && sources.certsDir !== undefined)
    throw usage('--certs-dir only goes with generated certificates; drop it, or drop --no-certs/--existing-secret/--cert-manager');
  if (o.certMode !== 'none' && sources.caFile !== undefined)
    throw usage('--ca-file goes with --no-certs or --existing-secret (your own Secret, signed by that CA)');

  if (o.certMode === 'cert-manager') {
    return {
      source: 'cert-manager',
      dnsNames,
      notes: ['cert-manager issues the serving certificate and its cainjector fills the caBundle; install cert-manager first.'],
    };
  }
  if (o.certMode === 'provision') {
    return {
      source: 'provision',
      dnsNames,
      notes: [
        `The server makes its own CA and certificate for ${dnsNames[2]} in the Secret ${provisionedSecretName(o.name)} (written empty here), renews them and sets the caBundle.`,
      ],
    };
  }
  if (o.certMode === 'none') {
    if (sources.caFile !== undefined) {
      const caPem = await readText(sources.caFile, '--ca-file');
      return { source: 'ca-file', caPem, caBundle: caBundleFor(caPem), dnsNames, notes: [] };
    }
    const secret = servedSecretName(o) ?? `${o.name}-tls`;
    const notes = [
      `No Secret written: create ${secret} (tls.crt, tls.key${o.caBundleReconcile ? ' and ca.crt' : ''}) in ${o.namespace} for ${dnsNames[2]}; until it exists the server is not ready and says so.`,
    ];
    notes.push(
      o.caBundleReconcile
        ? 'The caBundle is left empty; the server fills it from ca.crt (serve --webhook-config). Until then the apiserver cannot call the webhook.'
        : 'The caBundle is left empty and the reconciler is off: set it yourself, or the apiserver cannot call the webhook.',
    );
    return { source: 'none', dnsNames, notes };
  }

  const now = sources.now ?? new Date();
  if (sources.certsDir === undefined && o.webhookUrl !== undefined) {
    // In URL mode no Secret is written: a CA made here and thrown away would leave a caBundle
    // that no certificate anyone holds can satisfy.
    throw usage(
      "--webhook-url needs --certs-dir DIR: the CA and serving certificate for the URL's host are kept there, for serve --tls-dir DIR (or --no-certs --ca-file CA with a certificate of your own)",
    );
  }
  if (sources.certsDir === undefined) {
    const ca = await generateCA({ now });
    const leaf = await issueServingCert(ca, { ...splitHosts(dnsNames), now });
    return {
      source: 'generated',
      caPem: ca.certPem,
      certPem: leaf.certPem,
      keyPem: leaf.keyPem,
      caBundle: caBundleFor(ca.certPem),
      dnsNames,
      notes: ['A new CA was generated for this output; pass --certs-dir DIR to keep the same CA (and caBundle) on the next run.'],
    };
  }
  return fromDirectory(sources.certsDir, dnsNames, now);
}

async function fromDirectory(dir: string, dnsNames: string[], now: Date): Promise<InstallCertificates> {
  let ca;
  try {
    ca = await loadCA(dir, { now });
  } catch (err) {
    if (err instanceof CertError)
      throw new CertError(err.code, `--certs-dir ${dir}: ${err.message}; fix the files or use an empty directory`, { cause: err, details: err.details });
    throw err;
  }
  if (ca === undefined) {
    const fresh = await generateCA({ now });
    const leaf = await issueServingCert(fresh, { ...splitHosts(dnsNames), now });
    await writeFiles(dir, [
      [CA_CERT_FILE, fresh.certPem, 0o644],
      [CA_KEY_FILE, fresh.keyPem, 0o600],
      [TLS_CERT_FILE, leaf.certPem, 0o644],
      [TLS_KEY_FILE, leaf.keyPem, 0o600],
    ]);
    return {
      source: 'generated',
      caPem: fresh.certPem,
      certPem: leaf.certPem,
      keyPem: leaf.keyPem,
      caBundle: caBundleFor(fresh.certPem),
      dnsNames,
      notes: [`Created a CA and serving certificate in ${dir}; later runs with --certs-dir ${dir} reuse them (keep ca.key private).`],
    };
  }
  // ca.crt may also hold an older CA kept for a rollover: trust all of it.
  const caPem = await readText(join(dir, CA_CERT_FILE), '--certs-dir');
  const existing = await validateKeyPairFiles(join(dir, TLS_CERT_FILE), join(dir, TLS_KEY_FILE), { now, requiredNames: dnsNames, trustedCAs: [ca.certPem] });
  if (existing.ok && existing.notAfter.getTime() - now.getTime() > LEAF_RENEW_BEFORE_DAYS * DAY_MS) {
    return { source: 'reused', caPem, certPem: existing.certPem, keyPem: existing.keyPem, caBundle: caBundleFor(caPem), dnsNames, notes: [] };
  }
  const leaf = await issueServingCert(ca, { ...splitHosts(dnsNames), now });
  await writeFiles(dir, [
    [TLS_CERT_FILE, leaf.certPem, 0o644],
    [TLS_KEY_FILE, leaf.keyPem, 0o600],
  ]);
  const why = existing.ok ? `it expires within ${LEAF_RENEW_BEFORE_DAYS} days` : existing.reason;
  return {
    source: 'renewed',
    caPem,
    certPem: leaf.certPem,
    keyPem: leaf.keyPem,
    caBundle: caBundleFor(caPem),
    dnsNames,
    notes: [`Kept the CA in ${dir}; issued a new serving certificate (${why}).`],
  };
}

async function readText(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new InjectorError('SI_FILE_READ', `${flag}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
}

/** Stage every file under a temporary name, then rename: a failure leaves no mixed set. */
async function writeFiles(dir: string, files: Array<[string, string, number]>): Promise<void> {
  const staged: Array<[string, string]> = [];
  try {
    await mkdir(dir, { recursive: true });
    for (const [name, text, mode] of files) {
      const tmp = join(dir, `.${name}.${process.pid}.tmp`);
      staged.push([tmp, join(dir, name)]);
      await writeFile(tmp, text, { mode });
    }
    for (const [tmp, target] of staged) await rename(tmp, target);
  } catch (err) {
    await Promise.all(staged.map(([tmp]) => unlink(tmp).catch(() => undefined)));
    throw new InjectorError('SI_FILE_WRITE', `cannot write the certificates into ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
      cause: err,
    });
  }
}
