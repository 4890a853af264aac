/**
 * @module cli/serve-tls-options
 * The `serve --tls-secret` flags: the certificate from a Secret read through the API, and with
 * `--tls-provision` made and renewed by the injector itself (what `helm install` with no values
 * runs). Parsing and the checks that need no cluster; the running part is serve-secret.ts.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DEFAULT_CA_VALIDITY_DAYS } from '../certs/constants.js';
import { InjectorError } from '../errors.js';
import { DURATION_HINT, durationFlag } from './duration-flag.js';
import { formatDurationMs, lifetimeMs } from '../util/duration.js';

export interface TlsSecretCliOptions {
  tlsSecret?: string;
  tlsProvision?: string;
  tlsCaValidity?: number;
  tlsCertValidity?: number;
  /** Milliseconds. */
  tlsSecretResync?: number;
  clusterDomain?: string;
}

const DAY_MS = 86_400_000;
const DEFAULT_PROVISION_CA_VALIDITY = `${DEFAULT_CA_VALIDITY_DAYS}d`;
/** Renewed at two thirds, i.e. every 60 days; a leaked key is good for at most 90. */
const DEFAULT_PROVISION_CERT_VALIDITY = '90d';
export const DEFAULT_TLS_SECRET_RESYNC_MS = 10_000;
/** After a renewal the old certificate has a third of its life left; every replica must have read the new one by then. */
const RESYNCS_PER_THIRD = 3;

const MAX_LIFETIME_MS = 36_500 * DAY_MS;

/**
 * A certificate lifetime in milliseconds, one minute to 100 years: a whole number of days
 * (`90d`) or a Go duration (`2160h`, `12h30m`, as cert-manager takes it).
 */
export function parseLifetime(value: string): number {
  const ms = lifetimeMs(value);
  if (ms === undefined) throw new InvalidArgumentError(`expected a whole number of days such as 90d, or ${DURATION_HINT}`);
  if (ms < 60_000 || ms > MAX_LIFETIME_MS) throw new InvalidArgumentError('expected from 1m to 36500d');
  return ms;
}

export function addTlsSecretOptions(cmd: Command): Command {
  return cmd
    .option(
      '--tls-secret <[namespace/]name>',
      "serve the certificate of this Secret (tls.crt, tls.key, ca.crt), read through the Kubernetes API and followed; until it is usable the server is not ready and /readyz, the log and an Event on the pod say why (in-cluster; default namespace: the pod's)",
    )
    .option(
      '--tls-provision <service>',
      `with --tls-secret: make a CA and a certificate for this Service's DNS names, store them in the Secret and renew them at two thirds of their life (the CA with an overlap in the caBundle); needs --webhook-config`,
    )
    .option(
      '--tls-ca-validity <lifetime>',
      `with --tls-provision: lifetime of the CA, days or a Go duration, e.g. 3650d, 12h, 1h30m (default ${DEFAULT_PROVISION_CA_VALIDITY})`,
      parseLifetime,
    )
    .option(
      '--tls-cert-validity <lifetime>',
      `with --tls-provision: lifetime of the serving certificate (default ${DEFAULT_PROVISION_CERT_VALIDITY})`,
      parseLifetime,
    )
    .addOption(
      new Option('--tls-secret-resync <duration>', 'with --tls-secret: how often to read the Secret (default 10s)').argParser(
        durationFlag({ minMs: 1000, maxMs: 3_600_000 }),
      ),
    )
    .option('--cluster-domain <domain>', 'with --tls-provision: the cluster DNS domain for the certificate (default cluster.local)');
}

export interface ProvisionSettings {
  service: string;
  caValidityMs: number;
  certValidityMs: number;
  clusterDomain: string;
}

/** Check the combination of flags; the provisioning settings with defaults filled in, when asked for. */
export function resolveTlsSecretOptions(o: TlsSecretCliOptions & { tlsDir?: string; tlsCert?: string; webhookConfig?: string }): ProvisionSettings | undefined {
  const usage = (message: string) => new InjectorError('SI_USAGE', message);
  if (o.tlsSecret === undefined) {
    const stray = [o.tlsProvision !== undefined && '--tls-provision', o.tlsSecretResync !== undefined && '--tls-secret-resync'].filter(Boolean);
    if (stray.length > 0) throw usage(`${stray.join(' and ')} need${stray.length === 1 ? 's' : ''} --tls-secret`);
  } else if (o.tlsDir !== undefined || o.tlsCert !== undefined) {
    throw usage('use one certificate source: --tls-secret, --tls-dir or --tls-cert/--tls-key');
  }
  if (o.tlsProvision === undefined) {
    const stray = [
      o.tlsCaValidity !== undefined && '--tls-ca-validity',
      o.tlsCertValidity !== undefined && '--tls-cert-validity',
      o.clusterDomain !== undefined && '--cluster-domain',
    ].filter(Boolean);
    if (stray.length > 0) throw usage(`${stray.join(', ')} only go${stray.length === 1 ? 'es' : ''} with --tls-provision`);
    return undefined;
  }
  if (o.webhookConfig === undefined) throw usage('--tls-provision needs --webhook-config NAME: the injector puts the CA it makes into that caBundle itself');
  const caValidityMs = o.tlsCaValidity ?? parseLifetime(DEFAULT_PROVISION_CA_VALIDITY);
  const certValidityMs = o.tlsCertValidity ?? parseLifetime(DEFAULT_PROVISION_CERT_VALIDITY);
  const resyncMs = o.tlsSecretResync ?? DEFAULT_TLS_SECRET_RESYNC_MS;
  if (caValidityMs < certValidityMs) throw usage('--tls-ca-validity must be at least --tls-cert-validity (a certificate cannot outlive its CA)');
  if (certValidityMs / 3 < RESYNCS_PER_THIRD * resyncMs) {
    throw usage(
      `--tls-cert-validity must be at least ${formatDurationMs(RESYNCS_PER_THIRD * 3 * resyncMs)} with --tls-secret-resync ${formatDurationMs(resyncMs)}: after a renewal every replica must read the new certificate well before the old one expires`,
    );
  }
  return { service: o.tlsProvision, caValidityMs, certValidityMs, clusterDomain: o.clusterDomain ?? 'cluster.local' };
}
