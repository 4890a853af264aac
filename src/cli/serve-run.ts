/**
 * @module cli/serve-run
 * The running part of `sidecar-injector serve` (see serve.ts for the flags): TLS source,
 * development certificate notice, caBundle reconciler, start, wait for a signal, shut down.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { caBundleFor } from '../certs/ca-bundle.js';
import { validateKeyPair } from '../certs/validate-cert.js';
import { CA_CERT_FILE, TLS_CERT_FILE, TLS_KEY_FILE } from '../certs/constants.js';
import { InjectorError } from '../errors.js';
import { startServer, type RunningServer, type ServedCertificate, type TlsSource } from '../admission/start.js';
import { DEFAULT_WARMUP } from '../admission/warmup.js';
import { batchedSink, createLogger, type Logger } from '../telemetry/log.js';
import { createMetrics, type WebhookMetrics } from '../telemetry/metrics.js';
import type { CliIO } from './io.js';
import type { InjectFn } from '../admission/handler.js';
import type { ConfigProvider } from '../admission/start.js';
import type { OnError } from '../admission/server-defaults.js';
import { DEFAULT_POD_LIMITS, type PodLimits } from '../inject/limits.js';
import type { LogLevel } from '../telemetry/levels.js';
import type { ReconcileCliOptions } from './serve-reconcile-options.js';
import type { KubeCliOptions } from './kube-options.js';
import { preflight } from './serve-preflight.js';
import type { ReconcilerEvent } from '../cluster/ca-bundle-reconciler.js';
import { resolveTlsSecretOptions, type ProvisionSettings, type TlsSecretCliOptions } from './serve-tls-options.js';
import type { CaBundleReconciler } from '../cluster/ca-bundle-reconciler.js';
import type { KubeClient } from '../kube/client.js';

export interface ServeOptions extends Partial<ReconcileCliOptions>, TlsSecretCliOptions, KubeCliOptions {
  config?: string;
  /** The revision this injector serves (`.Revision`, the status annotation's revision). */
  revision?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsDir?: string;
  tlsCa?: string;
  port: number;
  address?: string;
  monitoringPort?: number;
  onError: OnError;
  logLevel: LogLevel;
  devHost?: string[];
  webhookConfig?: string;
  /** Milliseconds between drift checks of the caBundle (it is also checked at start and on a CA change). */
  caBundleResync: number;
  /** Milliseconds (every duration flag is parsed to ms, cli/duration-flag). */
  drainDelay: number;
  shutdownTimeout: number;
  /** Rounds of the warm-up before ready (0: none). */
  warmup: number;
  /** Unset: the defaults (DEFAULT_POD_LIMITS); help lists them, so commander holds no default to print as JSON. */
  limit?: PodLimits;
  clientCa?: string;
  clientName?: string[];
}

/** What `serve` needs from the rest of the product, imported when it runs (serve.ts productRuntime). */
export interface ServeRuntime {
  inject: InjectFn;
  config: Omit<ConfigProvider, 'path'>;
}

function usage(message: string): InjectorError {
  return new InjectorError('SI_USAGE', message);
}

/** The certificate from files or in memory; undefined with --tls-secret (see secretTls). */
async function tlsSource(options: ServeOptions): Promise<{ tls: TlsSource; dev?: { caPem: string; hosts: string[] } } | undefined> {
  const { tlsCert, tlsKey, tlsDir } = options;
  if (tlsDir !== undefined && (tlsCert !== undefined || tlsKey !== undefined)) throw usage('use either --tls-dir or --tls-cert/--tls-key, not both');
  if ((tlsCert === undefined) !== (tlsKey === undefined)) throw usage('--tls-cert and --tls-key go together');
  if (options.clientName !== undefined && options.clientCa === undefined)
    throw usage("--client-name needs --client-ca (the CA the callers' certificates chain to)");
  if (options.tlsSecret !== undefined) return undefined;
  if (tlsDir !== undefined) {
    const caFile = options.tlsCa ?? (existsSync(join(tlsDir, CA_CERT_FILE)) ? join(tlsDir, CA_CERT_FILE) : undefined);
    return { tls: { kind: 'files', certFile: join(tlsDir, TLS_CERT_FILE), keyFile: join(tlsDir, TLS_KEY_FILE), caFile } };
  }
  if (tlsCert !== undefined && tlsKey !== undefined) return { tls: { kind: 'files', certFile: tlsCert, keyFile: tlsKey, caFile: options.tlsCa } };
  const hosts = options.devHost ?? [];
  // Certificate generation (and its X.509 library) loads only when a development certificate is made.
  const { devCertificate } = await import('../certs/create-certs.js');
  const dev = await devCertificate({ hosts });
  return {
    tls: { kind: 'memory', certPem: dev.certPem, keyPem: dev.keyPem, caPem: dev.caPem, description: 'development certificate (in memory)' },
    dev: { caPem: dev.caPem, hosts: ['localhost', '127.0.0.1', '::1', ...hosts] },
  };
}

function devNotice(port: number, dev: { caPem: string; hosts: string[] }): string {
  return [
    `No --tls-cert/--tls-key or --tls-dir: serving a self-signed development certificate (in memory, for ${dev.hosts.join(', ')}).`,
    'Its CA bundle (base64 PEM), for clientConfig.caBundle:',
    '',
    caBundleFor(dev.caPem),
    '',
    'To point a cluster at this process: in the MutatingWebhookConfiguration set',
    `clientConfig.url to https://HOST:${port}/inject (HOST reachable from the apiserver; add it with --dev-host so the certificate covers it)`,
    'and clientConfig.caBundle to the bundle above. Try it locally:',
    `  curl -sk -H 'Content-Type: application/json' --data @examples/admission/review-v1.json https://127.0.0.1:${port}/inject`,
    '',
  ].join('\n');
}

/**
 * The address actually bound: with no --address, every interface (IPv4 and IPv6), said so, with
 * a local URL to try; an IPv6 literal in brackets.
 */
export function banner(address: string | undefined, port: number, monitoringPort: number | undefined): string {
  const host = address === undefined ? '0.0.0.0' : address.includes(':') ? `[${address}]` : address;
  const scope = address === undefined ? ` (all interfaces, IPv4 and IPv6; choose one with --address; from this host: https://127.0.0.1:${port}/inject)` : '';
  const monitoring = monitoringPort !== undefined ? `; monitoring on http://${host}:${monitoringPort}/metrics` : '';
  return `sidecar-injector webhook listening on https://${host}:${port}/inject${scope}${monitoring}\n`;
}

/** A port in use (or below 1024 without the right): one line saying which flag to change, not a stack trace. */
function portError(err: unknown, options: Pick<ServeOptions, 'port' | 'monitoringPort'>): InjectorError | undefined {
  const e = err as NodeJS.ErrnoException & { port?: number };
  if (e === null || typeof e !== 'object' || (e.code !== 'EADDRINUSE' && e.code !== 'EACCES' && e.code !== 'EADDRNOTAVAIL')) return undefined;
  const port = typeof e.port === 'number' ? e.port : options.port;
  const flag = options.monitoringPort !== undefined && port === options.monitoringPort && port !== options.port ? '--monitoring-port' : '--port';
  const why =
    e.code === 'EADDRINUSE'
      ? `port ${port} is in use: choose another with ${flag}`
      : e.code === 'EACCES'
        ? `port ${port} needs privileges this process does not have: choose one above 1023 with ${flag}`
        : `the address to listen on is not on this host: choose another with --address`;
  return new InjectorError('SI_LISTEN_FAILED', why, { cause: err });
}

/**
 * What the caBundle reconciler's events become: counters by result, the in-sync gauge (set by
 * every finished check, so the alert on it clears once a check succeeds), and log lines.
 */
export function caBundleEventListener(name: string, metrics: WebhookMetrics, logger: Logger): (event: ReconcilerEvent) => void {
  return (event) => {
    if (event.type === 'patched' || event.type === 'unchanged' || event.type === 'conflict') metrics.caBundle(event.type);
    if (event.type === 'patched' || event.type === 'unchanged') metrics.caBundleInSync(name, true);
    else if (event.type === 'failure') {
      metrics.caBundle('failure');
      metrics.caBundleInSync(name, false);
      logger.error({ error: event.error.message, code: event.error.code, retryInMs: event.retryInMs }, 'caBundle reconcile failed');
    } else if (event.type === 'warning') logger.warn({ webhookConfig: name }, event.message);
    if (event.type === 'patched') logger.info({ webhookConfig: name, webhooks: event.webhooks, caCount: event.caCount }, 'caBundle updated');
  };
}

interface InCluster {
  /** The pod's namespace (the kubeconfig context's with --kubeconfig/--context): where --tls-secret is without one. */
  namespace: string | undefined;
  client: KubeClient;
}

/**
 * One client for the caBundle and the TLS Secret, loaded once, when first needed: the pod's
 * service account, unless --kubeconfig/--context say otherwise (serve outside the cluster).
 */
function clusterAccess(kube: KubeCliOptions): () => Promise<InCluster> {
  let loading: Promise<InCluster> | undefined;
  return () =>
    (loading ??= (async () => {
      const { KubeClient } = await import('../kube/client.js');
      const { inClusterEndpoint, resolveEndpoint } = await import('../kube/endpoint.js');
      // Short calls: the caBundle and the TLS Secret are small objects, retried on a timer.
      const limits = { timeoutMs: 10_000, maxResponseBytes: 8 * 1024 * 1024, userAgent: 'sidecar-injector' };
      if (usesKubeconfig(kube)) {
        const endpoint = resolveEndpoint(kube);
        return { namespace: endpoint.namespace, client: new KubeClient(endpoint, limits) };
      }
      const config = await (await import('../kube/in-cluster.js')).loadInClusterConfig();
      return { namespace: config.namespace, client: new KubeClient(inClusterEndpoint(config), limits) };
    })());
}

/** Start the caBundle reconciler when asked; it follows the served CA. */
async function startReconciler(name: string, resyncMs: number, logger: Logger, metrics: WebhookMetrics, client: KubeClient) {
  const { CaBundleReconciler } = await import('../cluster/ca-bundle-reconciler.js');
  const reconciler = new CaBundleReconciler({
    api: client,
    webhookConfigName: name,
    intervalMs: resyncMs,
    onEvent: caBundleEventListener(name, metrics, logger),
  });
  return reconciler;
}

const usesKubeconfig = (o: KubeCliOptions): boolean => o.kubeconfig !== undefined || o.context !== undefined;

async function secretTls(
  options: ServeOptions,
  provision: ProvisionSettings | undefined,
  cluster: InCluster,
  reconciler: CaBundleReconciler | undefined,
  logger: Logger,
  metrics: WebhookMetrics,
): Promise<TlsSource> {
  const { secretTlsSource } = await import('./serve-secret.js');
  return secretTlsSource({
    secret: options.tlsSecret!,
    provision,
    resyncMs: options.tlsSecretResync,
    client: cluster.client,
    namespace: cluster.namespace,
    reconciler,
    webhookConfig: options.webhookConfig,
    logger,
    metrics,
  });
}

async function startHeal(options: ServeOptions, logger: Logger, metrics: WebhookMetrics) {
  const { startReconcile } = await import('../heal/serve-reconcile.js');
  const { DEFAULT_NAME } = await import('../install/options.js');
  const api = usesKubeconfig(options) ? (await import('../kube/client.js')).connect({ kubeconfig: options.kubeconfig, context: options.context }) : undefined;
  return startReconcile({
    ...(api !== undefined ? { api } : {}),
    registry: metrics.registry,
    log: (level, message, fields) => logger[level]({ subject: 'reconcile', ...fields }, message),
    webhookConfig: options.reconcileWebhookConfig ?? options.webhookConfig ?? DEFAULT_NAME,
    injectorNamespace: DEFAULT_NAME,
    namespaces: options.reconcileNamespace ?? [],
    leaseName: options.reconcileLease ?? `${DEFAULT_NAME}-reconcile`,
    leaseNamespace: options.reconcileLeaseNamespace,
    restart: options.reconcileRestart === true,
    maxInFlight: options.reconcileMaxInFlight ?? 1,
    restartTimeoutMs: options.reconcileRestartTimeout ?? 300_000,
  });
}

export async function runServe(options: ServeOptions, io: CliIO, runtime: ServeRuntime): Promise<void> {
  const sink = batchedSink((text) => io.stderr(text));
  const logger = createLogger({ level: options.logLevel, destination: sink });
  // Signals are caught from the start: a SIGTERM during startup still ends in a clean exit 0.
  let requested: string | undefined;
  let wake: (() => void) | undefined;
  const onTerm = (): void => stop('SIGTERM');
  const onInt = (): void => stop('SIGINT');
  const onAbort = (): void => stop('abort');
  const unlisten = (): void => {
    process.removeListener('SIGTERM', onTerm);
    process.removeListener('SIGINT', onInt);
    io.signal?.removeEventListener('abort', onAbort);
  };
  function stop(why: string): void {
    if (requested !== undefined) return;
    requested = why;
    unlisten();
    wake?.();
  }
  process.once('SIGTERM', onTerm);
  process.once('SIGINT', onInt);
  if (io.signal?.aborted) stop('abort');
  else io.signal?.addEventListener('abort', onAbort, { once: true });

  try {
    const metrics = createMetrics();
    const provision = resolveTlsSecretOptions(options);
    const cluster = clusterAccess(options);
    const fixed = await tlsSource(options);
    if (options.webhookConfig !== undefined && fixed?.tls.kind === 'files' && fixed.tls.caFile === undefined)
      throw usage('--webhook-config needs the serving CA: --tls-ca FILE, or ca.crt in --tls-dir');
    await preflight(options, fixed?.tls);

    let reconciler: Awaited<ReturnType<typeof startReconciler>> | undefined;
    if (options.webhookConfig !== undefined) {
      reconciler = await startReconciler(options.webhookConfig, options.caBundleResync, logger, metrics, (await cluster()).client);
    }
    const dev = fixed?.dev;
    const tls = fixed?.tls ?? (await secretTls(options, provision, await cluster(), reconciler, logger, metrics));
    // Called at startup (before the reconciler starts) and after every certificate reload. A
    // Secret's certificate may come after startup: the reconciler starts with the first one.
    const onCertificate = (served: ServedCertificate): void => {
      if (reconciler !== undefined && served.caPem !== undefined) reconciler.setCAs([served.caPem]);
      if (tls.kind === 'dynamic') reconciler?.start();
    };

    // Self-healing (--reconcile): loaded only with the flag, so serve alone never loads the Kubernetes client.
    if (options.reconcileRestart === true && options.reconcile !== true) throw usage('--reconcile-restart needs --reconcile');
    const heal = options.reconcile === true ? await startHeal(options, logger, metrics) : undefined;

    let server: RunningServer;
    try {
      server = await startServer({
        inject: runtime.inject,
        config: { ...runtime.config, path: options.config },
        tls,
        validateKeyPair,
        port: options.port,
        address: options.address,
        monitoringPort: options.monitoringPort,
        onError: options.onError,
        logger,
        metrics,
        shutdown: { drainDelayMs: options.drainDelay, graceMs: options.shutdownTimeout },
        onCertificate,
        warmup: { ...DEFAULT_WARMUP, rounds: options.warmup },
        podLimits: options.limit ?? DEFAULT_POD_LIMITS,
        ...(options.clientCa !== undefined ? { clientCa: { file: options.clientCa, names: options.clientName ?? [] } } : {}),
        ...(heal !== undefined ? { onConfig: (c) => heal.setConfig(c), onInjectionFailed: heal.injectionFailed } : {}),
      });
    } catch (err) {
      await reconciler?.stop();
      await heal?.stop();
      throw portError(err, options) ?? err;
    }
    if (tls.kind !== 'dynamic') reconciler?.start();

    if (dev) io.stdout(devNotice(server.port, dev));
    io.stdout(banner(options.address, server.port, server.monitoringPort));

    if (requested === undefined) await new Promise<void>((resolve) => (wake = resolve));
    logger.info({ signal: requested }, 'shutdown requested');
    await server.shutdown();
    await reconciler?.stop();
    await heal?.stop();
  } finally {
    unlisten();
    sink.flush(); // nothing logged may stay in the batch when serve returns
  }
}
