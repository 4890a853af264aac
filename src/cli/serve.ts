/**
 * @module cli/serve
 * `sidecar-injector serve`: run the admission webhook until SIGTERM/SIGINT (or the CLI's abort
 * signal, for in-process tests), then shut down gracefully and exit 0. With no TLS flags it
 * serves an in-memory development certificate and prints its CA bundle, so `serve` alone
 * starts and answers. The webhook machinery lives in `admission/`; this file is flags,
 * wiring and the first words to the user.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { caBundleFor, CA_CERT_FILE, devCertificate, validateKeyPair } from '../certs/index.js';
import { InjectorError } from '../errors.js';
import type { LoadedConfig } from '../config/types.js';
import { injectPod } from '../inject/inject.js';
import type { InjectFn, OnError } from '../admission/handler.js';
import { startServer, type ConfigProvider, type RunningServer, type ServedCertificate, type TlsSource } from '../admission/start.js';
import { DEFAULT_PORT, DEFAULT_GRACE_MS } from '../admission/start.js';
import { batchedSink, createLogger, LOG_LEVELS, type Logger, type LogLevel } from '../telemetry/log.js';
import { createMetrics, type WebhookMetrics } from '../telemetry/metrics.js';
import { TLS_CERT_FILE, TLS_KEY_FILE } from './certs.js';
import type { CliIO } from './io.js';

export interface ServeOptions {
  config?: string;
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
  drainDelay: number;
  shutdownTimeout: number;
}

/** What `serve` needs from the rest of the product; tests swap in the fake core. */
export interface ServeRuntime<C> {
  inject: InjectFn<C>;
  config: Omit<ConfigProvider<C>, 'path'>;
}

export type LoadRuntime<C> = () => Promise<ServeRuntime<C>>;

function usage(message: string): InjectorError {
  return new InjectorError('SI_USAGE', message);
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('expected a port number 0-65535');
  return n;
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 3600) throw new InvalidArgumentError('expected seconds, 0-3600');
  return n;
}

function parseOnError(value: string): OnError {
  if (value !== 'deny' && value !== 'allow') throw new InvalidArgumentError('expected deny or allow');
  return value;
}

function parseLevel(value: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${LOG_LEVELS.join(', ')}`);
  return value as LogLevel;
}

/**
 * The product's runtime: the real config loader (imported when `serve` runs, so the rest of
 * the CLI does not load the template engine for nothing) and the injection core.
 */
export const productRuntime: LoadRuntime<LoadedConfig> = async () => {
  const { loadConfig, defaultConfig } = await import('../config/load.js');
  return {
    inject: injectPod,
    config: { load: (path) => loadConfig(path), builtin: defaultConfig, describe: (c) => ({ hash: c.hash, warnings: c.warnings }) },
  };
};

export function registerWith<C>(loadRuntime: LoadRuntime<C>): (program: Command, io: CliIO) => void {
  return (program, io) => {
    program
      .command('serve')
      .description('run the admission webhook over HTTPS (POST /inject); with no TLS flags, a self-signed development certificate')
      .option('--config <path>', 'injector config: a directory with "config" and "values" (a mounted ConfigMap) or one YAML file; reloaded on change (default: built-in)')
      .option('--tls-cert <file>', 'serving certificate (PEM); reloaded on change')
      .option('--tls-key <file>', 'its private key (PEM)')
      .option('--tls-dir <dir>', `directory holding ${TLS_CERT_FILE} and ${TLS_KEY_FILE} (a mounted kubernetes.io/tls Secret), and optionally ${CA_CERT_FILE}`)
      .option('--tls-ca <file>', 'the CA that signed --tls-cert (for --webhook-config)')
      .option('--port <n>', 'HTTPS port', parsePort, DEFAULT_PORT)
      .option('--address <addr>', 'listen address (default: all interfaces)')
      .option('--monitoring-port <n>', 'also serve /metrics, /healthz and /readyz over plain HTTP on this port', parsePort)
      .option('--on-error <mode>', 'when injection was wanted but failed: deny the pod, or allow it without a sidecar (with a warning)', parseOnError, 'deny' as OnError)
      .option('--log-level <level>', `log level (${LOG_LEVELS.join(', ')}); the patch is logged at debug`, parseLevel, 'info' as LogLevel)
      .option('--dev-host <host...>', 'extra DNS names or IPs for the development certificate (an address the apiserver can reach)')
      .option('--webhook-config <name>', 'keep the caBundle of this MutatingWebhookConfiguration in sync with the serving CA (in-cluster)')
      .option('--drain-delay <seconds>', 'on SIGTERM, keep serving (not ready) this long before closing the listener', parseSeconds, 0)
      .option('--shutdown-timeout <seconds>', 'then wait at most this long for in-flight requests', parseSeconds, DEFAULT_GRACE_MS / 1000)
      .action(async (options: ServeOptions) => runServe(options, io, await loadRuntime()));
  };
}

export const register = registerWith(productRuntime);

async function tlsSource(options: ServeOptions): Promise<{ tls: TlsSource; dev?: { caPem: string; hosts: string[] } }> {
  const { tlsCert, tlsKey, tlsDir } = options;
  if (tlsDir !== undefined && (tlsCert !== undefined || tlsKey !== undefined)) throw usage('use either --tls-dir or --tls-cert/--tls-key, not both');
  if ((tlsCert === undefined) !== (tlsKey === undefined)) throw usage('--tls-cert and --tls-key go together');
  if (tlsDir !== undefined) {
    const caFile = options.tlsCa ?? (existsSync(join(tlsDir, CA_CERT_FILE)) ? join(tlsDir, CA_CERT_FILE) : undefined);
    return { tls: { kind: 'files', certFile: join(tlsDir, TLS_CERT_FILE), keyFile: join(tlsDir, TLS_KEY_FILE), caFile } };
  }
  if (tlsCert !== undefined && tlsKey !== undefined) return { tls: { kind: 'files', certFile: tlsCert, keyFile: tlsKey, caFile: options.tlsCa } };
  const hosts = options.devHost ?? [];
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

/** Start the caBundle reconciler when asked; it follows the served CA. */
async function startReconciler(name: string, logger: Logger, metrics: WebhookMetrics) {
  const cluster = await import('../cluster/index.js');
  const config = await cluster.loadInClusterConfig();
  const reconciler = new cluster.CaBundleReconciler({
    api: new cluster.KubeClient(config),
    webhookConfigName: name,
    onEvent: (event) => {
      if (event.type === 'patched' || event.type === 'unchanged' || event.type === 'conflict') metrics.caBundle(event.type);
      else if (event.type === 'failure') {
        metrics.caBundle('failure');
        logger.error({ error: event.error.message, code: event.error.code, retryInMs: event.retryInMs }, 'caBundle reconcile failed');
      } else if (event.type === 'warning') logger.warn({ webhookConfig: name }, event.message);
      if (event.type === 'patched') logger.info({ webhookConfig: name, webhooks: event.webhooks, caCount: event.caCount }, 'caBundle updated');
    },
  });
  return reconciler;
}

export async function runServe<C>(options: ServeOptions, io: CliIO, runtime: ServeRuntime<C>): Promise<void> {
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
    const { tls, dev } = await tlsSource(options);

    let reconciler: Awaited<ReturnType<typeof startReconciler>> | undefined;
    if (options.webhookConfig !== undefined) {
      if (tls.kind === 'files' && tls.caFile === undefined) throw usage('--webhook-config needs the serving CA: --tls-ca FILE, or ca.crt in --tls-dir');
      reconciler = await startReconciler(options.webhookConfig, logger, metrics);
    }
    // Called at startup (before the reconciler starts) and after every certificate reload.
    const onCertificate = (served: ServedCertificate): void => {
      if (reconciler !== undefined && served.caPem !== undefined) reconciler.setCAs([served.caPem]);
    };

    let server: RunningServer;
    try {
      server = await startServer<C>({
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
        shutdown: { drainDelayMs: options.drainDelay * 1000, graceMs: options.shutdownTimeout * 1000 },
        onCertificate,
      });
    } catch (err) {
      await reconciler?.stop();
      throw err;
    }
    reconciler?.start();

    const where = `https://${options.address ?? '127.0.0.1'}:${server.port}/inject`;
    if (dev) io.stdout(devNotice(server.port, dev));
    io.stdout(`sidecar-injector webhook listening on ${where}${server.monitoringPort !== undefined ? ` (monitoring on http://${options.address ?? '127.0.0.1'}:${server.monitoringPort}/metrics)` : ''}\n`);

    if (requested === undefined) await new Promise<void>((resolve) => (wake = resolve));
    logger.info({ signal: requested }, 'shutdown requested');
    await server.shutdown();
    await reconciler?.stop();
  } finally {
    unlisten();
    sink.flush(); // nothing logged may stay in the batch when serve returns
  }
}
