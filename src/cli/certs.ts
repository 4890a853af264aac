/**
 * @module cli/certs
 * `sidecar-injector certs`: writes a CA and a serving certificate for the webhook Service into a
 * directory, or, when the directory already holds a usable CA, renews only the serving
 * certificate so the caBundle in the cluster stays valid. Nothing is written unless every
 * file could be produced; keys are written 0600. Optionally prints a `kubernetes.io/tls` Secret.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_CA_VALIDITY_DAYS, DEFAULT_LEAF_VALIDITY_DAYS, MAX_VALIDITY_DAYS } from '../certs/constants.js';
import type { CliIO } from './io.js';
import type { CertsOptions } from './certs-run.js';

export function register(program: Command, io: CliIO): void {
  program
    .command('certs')
    .description('create a CA and a serving certificate for the webhook Service, or renew only the certificate when --out already holds the CA')
    .requiredOption('--service <name>', 'name of the webhook Service')
    .requiredOption('-n, --namespace <namespace>', 'namespace of the webhook Service')
    .requiredOption('--out <dir>', 'directory for ca.crt, ca.key, tls.crt and tls.key (created if missing)')
    .option('--ca-validity-days <days>', 'lifetime of a new CA, in days (3650 or 3650d)', parseDays, DEFAULT_CA_VALIDITY_DAYS)
    .option('--validity-days <days>', 'lifetime of the serving certificate (never beyond the CA)', parseDays, DEFAULT_LEAF_VALIDITY_DAYS)
    .option('--cluster-domain <domain>', 'cluster DNS domain for the fully-qualified name', 'cluster.local')
    .option('--secret-manifest [file]', 'also write a kubernetes.io/tls Secret manifest to FILE (stdout when FILE is omitted or -)')
    .option('--secret-name <name>', 'name of that Secret (default: <service>-tls)')
    .option('--force', 'create a new CA even if --out holds one; the webhook caBundle must then be updated')
    .option(
      '--client <name>',
      'also issue a client certificate with this name (client.crt, client.key) for the apiserver to present to the webhook (serve --client-ca ca.crt --client-name NAME)',
    )
    .action(async (options: CertsOptions) => {
      // X.509 code loads only when the command runs (CLI start-up time).
      const { runCerts } = await import('./certs-run.js');
      return runCerts(io, options);
    });
}

/** Whole days, `90` or `90d` (as serve's --tls-cert-validity writes them). */
function parseDays(value: string): number {
  const m = /^(\d+)d?$/.exec(value);
  const days = m === null ? Number.NaN : Number(m[1]);
  if (!(days >= 1 && days <= MAX_VALIDITY_DAYS)) {
    throw new InvalidArgumentError(`expected a whole number of days from 1 to ${MAX_VALIDITY_DAYS}, such as 90 or 90d`);
  }
  return days;
}
