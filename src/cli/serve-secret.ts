/**
 * @module cli/serve-secret
 * `serve --tls-secret` at run time: the Secret source (cluster/secret-source) as the server's
 * dynamic certificate, its problems in the log, in `/readyz` and as Events on the pod, and the
 * readiness gate: a replica becomes ready only once it serves the Secret's certificate and the
 * caBundle trusts the CA that issued it (at start; later rotations keep it ready).
 */
import { issuerFingerprint, DEFAULT_SWITCH_DELAY_MS } from '../certs/provision.js';
import { serviceDnsNames } from '../certs/names.js';
import { devCertificate } from '../certs/create-certs.js';
import { SecretSource, type SecretSourceEvent } from '../cluster/secret-source.js';
import { CertError } from '../errors.js';
import { parseSecretRef } from '../cluster/tls-secret.js';
import { podEventRecorder, podFromEnv } from '../cluster/pod-events.js';
import type { KubeClient } from '../kube/client.js';
import type { EventReason } from '../heal/events.js';
import type { CaBundleReconciler } from '../cluster/ca-bundle-reconciler.js';
import type { DynamicTlsSource } from '../admission/start.js';
import type { Logger } from '../telemetry/log.js';
import type { WebhookMetrics } from '../telemetry/metrics.js';
import { DEFAULT_TLS_SECRET_RESYNC_MS, type ProvisionSettings } from './serve-tls-options.js';

export interface SecretTlsOptions {
  /** `--tls-secret` as given. */
  secret: string;
  provision: ProvisionSettings | undefined;
  /** Milliseconds. */
  resyncMs: number | undefined;
  client: KubeClient;
  /** The pod's namespace (service account), the default for the Secret's. */
  namespace: string | undefined;
  reconciler: CaBundleReconciler | undefined;
  webhookConfig: string | undefined;
  logger: Logger;
  metrics: WebhookMetrics;
}

const EVENT_REASONS = {
  missing: 'TLSSecretMissing',
  forbidden: 'TLSSecretForbidden',
  incomplete: 'TLSSecretIncomplete',
  invalid: 'TLSSecretInvalid',
  unreachable: 'TLSSecretUnreachable',
} as const satisfies Record<string, EventReason>;

export async function secretTlsSource(o: SecretTlsOptions): Promise<DynamicTlsSource> {
  const pod = podFromEnv();
  const ref = parseSecretRef(o.secret, o.namespace ?? pod?.namespace);
  const where = `${ref.namespace}/${ref.name}`;
  const recorder = pod
    ? podEventRecorder(o.client, pod, (err) => o.logger.warn({ subject: 'tls-secret', error: String(err) }, 'could not record an Event on the pod'))
    : undefined;
  const record = (reason: EventReason, message: string, type: 'Normal' | 'Warning' = 'Warning'): void => void recorder?.record(pod!, reason, message, type);
  const log = (event: SecretSourceEvent): void => {
    const fields = { subject: 'tls-secret', secret: where };
    if (event.type === 'problem') {
      o.logger.error({ ...fields, problem: event.problem.kind }, event.problem.message);
      if (event.problem.kind === 'invalid') o.metrics.reload('cert', 'failure');
      record(EVENT_REASONS[event.problem.kind], event.problem.message);
    } else if (event.type === 'resolved') {
      o.logger.info(fields, 'the TLS Secret is usable again');
    } else if (event.type === 'wrote') {
      o.logger.info({ ...fields, steps: event.steps }, `TLS Secret updated: ${event.why.join('; ')}`);
      record('TLSCertificateProvisioned', `${where}: ${event.why.join('; ')}`, 'Normal');
    } else if (event.type === 'foreign') {
      o.logger.warn(fields, event.reason);
    } else {
      o.logger.debug(fields, 'another replica wrote the TLS Secret first; reading its certificate');
    }
  };
  const source = new SecretSource({
    api: o.client,
    secret: ref,
    ...(o.provision
      ? {
          provision: {
            dnsNames: serviceDnsNames(o.provision.service, ref.namespace, o.provision.clusterDomain),
            caValidityMs: o.provision.caValidityMs,
            certValidityMs: o.provision.certValidityMs,
            switchDelayMs: DEFAULT_SWITCH_DELAY_MS,
          },
        }
      : {}),
    requireCa: o.reconciler !== undefined,
    resyncMs: o.resyncMs ?? DEFAULT_TLS_SECRET_RESYNC_MS,
    trustedSince: o.reconciler ? (fp) => o.reconciler!.trustedSince(fp) : undefined,
    onEvent: log,
  });
  // Served until the Secret's certificate is: probes and /readyz then answer over TLS, saying why.
  const placeholder = await devCertificate({ validityDays: 1 });
  let issuer: string | undefined;
  let served = 0;
  let trusted = o.reconciler === undefined;
  return {
    kind: 'dynamic',
    description: `Secret ${where}${o.provision ? ' (self-provisioned)' : ''}`,
    placeholder: { certPem: placeholder.certPem, keyPem: placeholder.keyPem },
    renews: o.provision !== undefined,
    attach(offer) {
      source.start((pair) => {
        const anchor = pair.caPem !== undefined ? issuerFingerprint(pair.certPem, pair.caPem) : undefined;
        // The caBundle is built from ca.crt: one that does not anchor tls.crt would never be trusted.
        if (o.reconciler !== undefined && anchor === undefined)
          throw new CertError(
            'SI_CERT_INVALID',
            'ca.crt does not hold the CA that issued tls.crt, so the caBundle made from it would not trust the certificate',
          );
        offer(pair);
        issuer = anchor;
        if (served++ > 0) o.metrics.reload('cert', 'success');
      });
      return {
        status() {
          const waiting =
            !isTrusted() && served > 0
              ? { waiting: `the caBundle of MutatingWebhookConfiguration ${o.webhookConfig} does not trust the CA of this certificate yet` }
              : {};
          return { ...source.status(), ...waiting };
        },
        ready: isTrusted,
        close: () => source.stop(),
      };
    },
  };

  // Once trusted, stays so: a later CA is trusted before it signs (certs/provision).
  function isTrusted(): boolean {
    if (!trusted && issuer !== undefined && o.reconciler?.trustedSince(issuer) !== undefined) trusted = true;
    return trusted;
  }
}
