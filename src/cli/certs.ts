/**
 * @module cli/certs
 * `sidecar-injector certs`: writes a CA and a serving certificate for the webhook Service into a
 * directory, or, when the directory already holds a usable CA, renews only the serving
 * certificate so the caBundle in the cluster stays valid. Nothing is written unless every
 * file could be produced; keys are written 0600. Optionally prints a `kubernetes.io/tls` Secret.
 */
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { stringify } from 'yaml';
import {
  CA_CERT_FILE,
  CA_KEY_FILE,
  DEFAULT_CA_VALIDITY_DAYS,
  DEFAULT_LEAF_VALIDITY_DAYS,
  MAX_VALIDITY_DAYS,
  caLoadProblem,
  generateCA,
  issueServingCert,
  loadCA,
  serviceDnsNames,
  type CertificateAuthority,
} from '../certs/index.js';
import { CertError, InjectorError } from '../errors.js';
import { writeOutput, type CliIO } from './io.js';

export const TLS_CERT_FILE = 'tls.crt';
export const TLS_KEY_FILE = 'tls.key';

interface CertsOptions {
  service: string;
  namespace: string;
  out: string;
  caValidityDays: number;
  validityDays: number;
  clusterDomain: string;
  secretManifest?: string | true;
  secretName?: string;
  force?: boolean;
}

export function register(program: Command, io: CliIO): void {
  program
    .command('certs')
    .description('create a CA and a serving certificate for the webhook Service, or renew only the certificate when --out already holds the CA')
    .requiredOption('--service <name>', 'name of the webhook Service')
    .requiredOption('--namespace <namespace>', 'namespace of the webhook Service')
    .requiredOption('--out <dir>', 'directory for ca.crt, ca.key, tls.crt and tls.key (created if missing)')
    .option('--ca-validity-days <days>', 'lifetime of a new CA', parseDays, DEFAULT_CA_VALIDITY_DAYS)
    .option('--validity-days <days>', 'lifetime of the serving certificate (never beyond the CA)', parseDays, DEFAULT_LEAF_VALIDITY_DAYS)
    .option('--cluster-domain <domain>', 'cluster DNS domain for the fully-qualified name', 'cluster.local')
    .option('--secret-manifest [file]', 'also write a kubernetes.io/tls Secret manifest to FILE (stdout when FILE is omitted or -)')
    .option('--secret-name <name>', 'name of that Secret (default: <service>-tls)')
    .option('--force', 'create a new CA even if --out holds one; the webhook caBundle must then be updated')
    .action(async (options: CertsOptions) => runCerts(io, options));
}

function usageError(message: string): InjectorError {
  return new InjectorError('SI_USAGE', message);
}

function parseDays(value: string): number {
  const days = Number(value);
  if (!/^\d+$/.test(value) || days < 1 || days > MAX_VALIDITY_DAYS) {
    throw new InvalidArgumentError(`expected a whole number of days from 1 to ${MAX_VALIDITY_DAYS}`);
  }
  return days;
}

// Service names are DNS-1035 labels; namespaces and Secret names DNS-1123 labels/subdomains.
const DNS1035_LABEL = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

async function runCerts(io: CliIO, options: CertsOptions): Promise<void> {
  if (!DNS1035_LABEL.test(options.service)) throw usageError(`--service "${options.service}" is not a valid Service name (lower-case letters, digits and "-", starting with a letter, at most 63 characters)`);
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
  await writeAll(dir, files);

  const day = (d: Date) => d.toISOString().slice(0, 10);
  io.stderr(
    kept
      ? `Kept the existing CA in ${dir} ("${ca.subject}", valid until ${day(ca.notAfter)}); renewed only the serving certificate.\n`
      : `Created a new CA "${ca.subject}", valid until ${day(ca.notAfter)}: ${join(dir, CA_CERT_FILE)}, ${join(dir, CA_KEY_FILE)} (keep ca.key private; it is only needed to renew).\n`,
  );
  io.stderr(`Issued the serving certificate for ${dnsNames.join(', ')}, valid until ${day(leaf.notAfter)}: ${join(dir, TLS_CERT_FILE)}, ${join(dir, TLS_KEY_FILE)}.\n`);
  if (leaf.clampedToCA) {
    io.stderr(`Warning: the CA expires on ${day(ca.notAfter)}, so the certificate ends then too; before that date run again with --force to create a new CA.\n`);
  }
  if (!kept) {
    io.stderr(`The webhook's caBundle must trust ${join(dir, CA_CERT_FILE)} (base64 of that file); "serve --webhook-config" patches it in the cluster.\n`);
  }

  if (options.secretManifest !== undefined) {
    const manifest = stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secretName, namespace: options.namespace, labels: { 'app.kubernetes.io/name': 'sidecar-injector' } },
      type: 'kubernetes.io/tls',
      data: {
        'tls.crt': Buffer.from(leaf.certPem).toString('base64'),
        'tls.key': Buffer.from(leaf.keyPem).toString('base64'),
        'ca.crt': Buffer.from(ca.certPem).toString('base64'),
      },
    });
    await writeOutput(io, options.secretManifest === true ? undefined : options.secretManifest, manifest);
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
