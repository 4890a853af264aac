/**
 * @module cli/certs-run
 * The work of `sidecar-injector certs` (flags in certs.ts): load or create the CA, issue the
 * serving certificate, write every file or none, optionally print the Secret manifest.
 */
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringifyObject } from '../yaml/index.js';
import {
  CA_CERT_FILE,
  CA_KEY_FILE,
  caLoadProblem,
  generateCA,
  issueServingCert,
  issueClientCert,
  loadCA,
  serviceDnsNames,
  type CertificateAuthority,
} from '../certs/index.js';
import { CertError, InjectorError } from '../errors.js';
import { writeOutput, type CliIO } from './io.js';
import { fileFormat } from './output.js';
import { TLS_CERT_FILE, TLS_KEY_FILE } from '../certs/constants.js';

export interface CertsOptions {
  service: string;
  namespace: string;
  out: string;
  caValidityDays: number;
  validityDays: number;
  clusterDomain: string;
  secretManifest?: string | true;
  secretName?: string;
  force?: boolean;
  client?: string;
}

function usageError(message: string): InjectorError {
  return new InjectorError('SI_USAGE', message);
}

// Service names are DNS-1035 labels; namespaces and Secret names DNS-1123 labels/subdomains.
/** The apiserver's client certificate, beside the serving one (`certs --client NAME`). */
const CLIENT_CERT_FILE = 'client.crt';
const CLIENT_KEY_FILE = 'client.key';

const DNS1035_LABEL = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export async function runCerts(io: CliIO, options: CertsOptions): Promise<void> {
  if (!DNS1035_LABEL.test(options.service))
    throw usageError(
      `--service "${options.service}" is not a valid Service name (lower-case letters, digits and "-", starting with a letter, at most 63 characters)`,
    );
  if (!DNS1123_LABEL.test(options.namespace)) throw usageError(`--namespace "${options.namespace}" is not a valid namespace name`);
  const secretName = options.secretName ?? `${options.service}-tls`;
  if (!DNS1123_SUBDOMAIN.test(secretName)) throw usageError(`--secret-name "${secretName}" is not a valid Secret name`);
  const dnsNames = serviceDnsNames(options.service, options.namespace, options.clusterDomain);
  const dir = options.out;

  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw writeError(`cannot create the directory ${dir}`, err);
  }

  let ca: CertificateAuthority | undefined;
  if (!options.force) {
    try {
      ca = await loadCA(dir);
    } catch (err) {
      throw withForceAdvice(err);
    }
  }
  const kept = ca !== undefined;
  ca ??= await generateCA({ validityDays: options.caValidityDays });
  const leaf = await issueServingCert(ca, { dnsNames, validityDays: options.validityDays });

  const files: Array<[string, string, number]> = [
    [TLS_KEY_FILE, leaf.keyPem, 0o600],
    [TLS_CERT_FILE, leaf.certPem, 0o644],
  ];
  if (!kept) files.unshift([CA_KEY_FILE, ca.keyPem, 0o600], [CA_CERT_FILE, ca.certPem, 0o644]);
  const client = options.client !== undefined ? await issueClientCert(ca, { commonName: options.client, validityDays: options.validityDays }) : undefined;
  if (client !== undefined) files.push([CLIENT_KEY_FILE, client.keyPem, 0o600], [CLIENT_CERT_FILE, client.certPem, 0o644]);
  await writeAll(dir, files);

  const day = (d: Date) => d.toISOString().slice(0, 10);
  io.stderr(
    kept
      ? `Kept the existing CA in ${dir} ("${ca.subject}", valid until ${day(ca.notAfter)}); renewed only the serving certificate.\n`
      : `Created a new CA "${ca.subject}", valid until ${day(ca.notAfter)}: ${join(dir, CA_CERT_FILE)}, ${join(dir, CA_KEY_FILE)} (keep ca.key private; it is only needed to renew).\n`,
  );
  io.stderr(
    `Issued the serving certificate for ${dnsNames.join(', ')}, valid until ${day(leaf.notAfter)}: ${join(dir, TLS_CERT_FILE)}, ${join(dir, TLS_KEY_FILE)}.\n`,
  );
  if (client !== undefined) {
    io.stderr(
      `Issued the client certificate "${options.client}", valid until ${day(client.notAfter)}: ${join(dir, CLIENT_CERT_FILE)}, ${join(dir, CLIENT_KEY_FILE)}; ` +
        `give it to the apiserver (AdmissionConfiguration, docs/install.md) and run serve --client-ca ${join(dir, CA_CERT_FILE)} --client-name ${options.client}.\n`,
    );
  }
  if (leaf.clampedToCA) {
    io.stderr(
      `Warning: the CA expires on ${day(ca.notAfter)}, so the certificate ends then too; before that date run again with --force to create a new CA.\n`,
    );
  }
  if (!kept) {
    io.stderr(`The webhook's caBundle must trust ${join(dir, CA_CERT_FILE)} (base64 of that file); "serve --webhook-config" patches it in the cluster.\n`);
  }

  if (options.secretManifest !== undefined) {
    const file = options.secretManifest === true ? undefined : options.secretManifest;
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secretName, namespace: options.namespace, labels: { 'app.kubernetes.io/name': 'sidecar-injector' } },
      type: 'kubernetes.io/tls',
      data: {
        'tls.crt': Buffer.from(leaf.certPem).toString('base64'),
        'tls.key': Buffer.from(leaf.keyPem).toString('base64'),
        'ca.crt': Buffer.from(ca.certPem).toString('base64'),
      },
    };
    // A FILE.json gets JSON, as its extension says.
    const manifest = fileFormat(file, undefined) === 'json' ? `${JSON.stringify(secret, null, 2)}\n` : stringifyObject(secret);
    await writeOutput(io, file, manifest);
  }
}

function withForceAdvice(err: unknown): unknown {
  const problem = caLoadProblem(err);
  if (!problem || !(err instanceof CertError)) return err;
  const advice =
    problem === 'unreadable'
      ? 'Check the file permissions.'
      : 'Fix or restore the CA files, or pass --force to create a new CA (the webhook caBundle must then be updated; "serve --webhook-config" keeps the old CA in it until it expires).';
  return new CertError(err.code, `${err.message}. ${advice}`, { cause: err, details: err.details });
}

/** Write every file to a temporary name first, then rename them all: no half-written set. */
async function writeAll(dir: string, files: Array<[string, string, number]>): Promise<void> {
  const staged: Array<[string, string]> = [];
  try {
    for (const [name, content, mode] of files) {
      const tmp = join(dir, `.${name}.${process.pid}.tmp`);
      staged.push([tmp, join(dir, name)]);
      await writeFile(tmp, content, { mode });
    }
  } catch (err) {
    await Promise.all(staged.map(([tmp]) => unlink(tmp).catch(() => undefined)));
    throw writeError(`cannot write into ${dir}`, err);
  }
  for (let i = 0; i < staged.length; i++) {
    const [tmp, target] = staged[i];
    try {
      await rename(tmp, target);
    } catch (err) {
      await Promise.all(staged.slice(i).map(([t]) => unlink(t).catch(() => undefined)));
      throw writeError(`cannot write ${target}`, err);
    }
  }
}

function writeError(what: string, err: unknown): InjectorError {
  const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  return new InjectorError('SI_FILE_WRITE', `${what}: ${code}; choose a writable --out directory`, { cause: err });
}
