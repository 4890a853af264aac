/**
 * @module admission/start
 * Assemble a running webhook: load the config and the certificate (fatal at startup: there is
 * no last good version yet), start their reloaders, serve HTTPS (and optionally plain
 * monitoring), and shut down gracefully. Everything is a parameter, so `serve` and the tests
 * run the same code in-process; `startServer` resolves once the server answers, and it is ready
 * then too unless a warm-up was asked for, which runs next (`/readyz` turns ready after it).
 */
import { dirname } from 'node:path';
import type { LoadedConfig } from '../config/types.js';
import { CertError, ConfigError } from '../errors.js';
import { createLogger, type Logger, type LogLevel } from '../telemetry/log.js';
import { createMetrics, type WebhookMetrics } from '../telemetry/metrics.js';
import { createReloader, type Reloader } from '../reload/file-reloader.js';
import { configSnapshot, keyPairSnapshot, watchDirsFor, type KeyPairPem } from '../reload/sources.js';
import type { Readiness } from './endpoints.js';
import { createHandler, type HandlerOptions, type InjectFn } from './handler.js';
import { createMonitoringServer, type MonitoringServer } from './monitoring.js';
import type { DeadlinePolicy } from './request-params.js';
import { createWebhookServer, type ServerLimits, type WebhookServer } from './server.js';
import { DEFAULT_DRAIN_DELAY_MS, DEFAULT_GRACE_MS, DEFAULT_PORT, type OnError } from './server-defaults.js';
import { clientCaReloader as clientCaReloaderFor } from './client-ca-reload.js';
import { servingCaNotAfter } from './ca-expiry.js';
import { StatusKeys, statusKeyFromTlsKey } from '../inject/status-mac.js';
import { DEFAULT_POD_LIMITS, type PodLimits } from '../inject/limits.js';
import { configCaused, RELOAD_WARMUP, warmUp, type WarmupOptions, type WarmupResult } from './warmup.js';

export type TlsSource =
  | { kind: 'files'; certFile: string; keyFile: string /** Read and reloaded with the pair (for the caBundle). */; caFile?: string }
  | { kind: 'memory'; certPem: string; keyPem: string; caPem?: string; description?: string }
  | DynamicTlsSource;

/**
 * A certificate that arrives later and changes while serving (a Secret read through the API).
 * Until the first one is accepted the listener answers with `placeholder` and is not ready, so
 * probes and `/readyz` (over TLS too) tell why instead of the pod failing to start.
 */
export interface DynamicTlsSource {
  kind: 'dynamic';
  description: string;
  placeholder: { certPem: string; keyPem: string };
  /** The source renews the certificate itself (self-provisioning): no "rotate it" warning near expiry. */
  renews?: boolean;
  /** Start delivering; `offer` validates and serves a pair, or throws why it refuses it. */
  attach(offer: (pair: KeyPairPem) => void): DynamicTls;
}

interface DynamicTls {
  /** Extra `/readyz` fields about the certificate's source (e.g. the one reason it cannot serve). */
  status(): Record<string, unknown>;
  /** False keeps the server unready even with a certificate (e.g. the caBundle does not trust it yet). */
  ready(): boolean;
  close(): Promise<void>;
}

/** A key pair that passed validation and is now served. */
export interface ServedCertificate extends KeyPairPem {
  notAfter: Date;
}

/** Checks a key pair before it is served (certs/validate's `validateKeyPair` fits). */
type KeyPairValidator = (certPem: string, keyPem: string, options: { now?: Date }) => { ok: true; notAfter: Date } | { ok: false; reason: string };

export interface ConfigProvider {
  /** `--config PATH`; undefined serves `builtin()` (nothing to reload). */
  path?: string;
  load: (path: string) => Promise<LoadedConfig>;
  builtin: () => LoadedConfig;
  /** Log and `/readyz` fields for a loaded config (hash, warnings). */
  describe?: (config: LoadedConfig) => Record<string, unknown>;
}

export interface StartOptions {
  inject: InjectFn;
  config: ConfigProvider;
  tls: TlsSource;
  validateKeyPair: KeyPairValidator;
  /** Default 9443; 0 picks a free port. */
  port?: number;
  address?: string;
  monitoringPort?: number;
  monitoringAddress?: string;
  onError?: OnError;
  logger?: Logger;
  metrics?: WebhookMetrics;
  limits?: Partial<ServerLimits>;
  deadline?: DeadlinePolicy;
  /** Serve only callers whose client certificate chains to this CA file (hot-reloaded), optionally with one of these names. */
  clientCa?: { file: string; names?: readonly string[] };
  /** Per-request limits of the pod; default DEFAULT_POD_LIMITS. */
  podLimits?: Readonly<PodLimits>;
  reload?: { debounceMs?: number; pollMs?: number };
  /**
   * Run the request path this many rounds before `/readyz` says ready, and a few rounds for every
   * reloaded config before it serves (warmup.ts). Absent or 0 rounds: ready at once.
   */
  warmup?: WarmupOptions;
  shutdown?: ShutdownOptions;
  /** Called each time a certificate starts being served (startup and every reload). */
  onCertificate?: (served: ServedCertificate) => void;
  /** Called each time a config starts being served (startup and every reload). */
  onConfig?: (config: LoadedConfig) => void;
  onInjectionFailed?: HandlerOptions['onInjectionFailed'];
}

interface ShutdownOptions {
  /** Keep serving (unready, closing connections after each response) this long before closing the listener. */
  drainDelayMs?: number;
  /** After the listener closes, in-flight requests get this long before connections are cut. */
  graceMs?: number;
}

export interface RunningServer {
  readonly port: number;
  readonly monitoringPort: number | undefined;
  readonly metrics: WebhookMetrics;
  readonly logger: Logger;
  isReady(): boolean;
  readiness(): Readiness;
  /** Run both reloaders' checks now (what a watch event does). */
  reloadNow(): Promise<void>;
  /** Graceful stop: unready, drain, close; resolves when everything is closed. Idempotent. */
  shutdown(): Promise<void>;
}
const EXPIRY_WARNING_MS = 7 * 24 * 3600 * 1000;

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const logger = options.logger ?? createLogger();
  const metrics = options.metrics ?? createMetrics();
  const reloaders: Reloader[] = [];
  let webhook: WebhookServer | undefined;
  let monitoring: MonitoringServer | undefined;
  let listening = false;
  let draining = false;
  /** Until the first warm-up is done, the server answers but is not ready. */
  let warm = (options.warmup?.rounds ?? 0) === 0;
  let lastWarmup: WarmupResult | undefined;
  /** The config at start failed its warm-up (warmup.ts): unready until a reload replaces it. */
  let warmupFailed = false;
  const stopWarmup = new AbortController();

  let config: LoadedConfig | undefined;
  let configReloader: Reloader | undefined;
  let pair: KeyPairPem | undefined;
  const statusKeys = new StatusKeys();
  let certNotAfter: Date | undefined;
  let certReloader: Reloader | undefined;
  let dynamic: DynamicTls | undefined;
  let clientCaReloader: Reloader | undefined;

  const readiness = (): Readiness => {
    const ready = listening && warm && !draining && config !== undefined && pair !== undefined && (dynamic?.ready() ?? true);
    return {
      ready,
      detail: {
        draining,
        ...(options.warmup !== undefined && options.warmup.rounds > 0 ? { warm, warmup: lastWarmup } : {}),
        config: {
          source: options.config.path ?? 'built-in',
          ...(config !== undefined ? options.config.describe?.(config) : { loaded: false }),
          ...(configReloader?.status() ?? {}),
        },
        certificate: {
          source: options.tls.kind === 'files' ? { cert: options.tls.certFile, key: options.tls.keyFile } : (options.tls.description ?? 'in memory'),
          notAfter: certNotAfter?.toISOString(),
          ...(certReloader?.status() ?? {}),
          ...(dynamic?.status() ?? {}),
        },
        ...(clientCaReloader !== undefined ? { clientCa: { source: options.clientCa?.file, ...clientCaReloader.status() } } : {}),
      },
    };
  };

  function checkPair(p: KeyPairPem): ServedCertificate {
    const result = options.validateKeyPair(p.certPem, p.keyPem, { now: new Date() });
    if (!result.ok) throw new CertError('SI_CERT_INVALID', `the serving certificate was refused: ${result.reason}`);
    return { ...p, notAfter: result.notAfter };
  }

  function applyPair(value: ServedCertificate): void {
    // The status key rotates with the certificate; the previous keys still verify.
    statusKeys.rotate(statusKeyFromTlsKey(value.keyPem));
    pair = value;
    certNotAfter = value.notAfter;
    metrics.certificateExpiry('serving', value.notAfter);
    const caNotAfter = value.caPem === undefined ? undefined : servingCaNotAfter(value.certPem, value.caPem);
    if (caNotAfter !== undefined) metrics.certificateExpiry('serving-ca', caNotAfter);
    webhook?.setCertificate({ cert: value.certPem, key: value.keyPem });
    const left = value.notAfter.getTime() - Date.now();
    if (left < EXPIRY_WARNING_MS && !(options.tls.kind === 'dynamic' && options.tls.renews === true))
      logger.warn(
        { notAfter: value.notAfter.toISOString() },
        `the serving certificate expires in ${Math.max(0, Math.floor(left / 3_600_000))} hours; rotate it`,
      );
    try {
      options.onCertificate?.(value);
    } catch (err) {
      logger.error({ error: String(err) }, 'certificate listener failed');
    }
  }

  function handlerOptions(): Omit<HandlerOptions, 'getConfig'> {
    return { inject: options.inject, onError: options.onError, deadline: options.deadline, statusKeys, podLimits: options.podLimits ?? DEFAULT_POD_LIMITS };
  }

  /**
   * The request path run for `value` by a handler of its own: same code, but a metrics
   * registry nobody scrapes and a logger that writes nothing (warmup.ts).
   * Returns why the config is broken, if the warm-up found it so (it must not serve).
   */
  async function warmFor(value: LoadedConfig, plan: WarmupOptions, trigger: 'startup' | 'reload'): Promise<string | undefined> {
    if (plan.rounds <= 0) return undefined;
    const quiet = createLogger({ level: logger.level as LogLevel, destination: { write: () => undefined } });
    let failed: string | undefined;
    const handler = createHandler({
      ...handlerOptions(),
      getConfig: () => value,
      metrics: createMetrics({ processMetrics: false }),
      logger: quiet,
      onInjectionFailed: (f) => {
        if (failed === undefined && configCaused(f.code)) failed = `${f.code}: ${f.message}`;
      },
    });
    try {
      lastWarmup = await warmUp(handler, value, { ...plan, signal: stopWarmup.signal }, undefined, () => failed);
    } catch (err) {
      // A fault of the warm-up itself, not of the config: the config still serves (cold).
      logger.warn({ trigger, error: err instanceof Error ? err.message : String(err) }, 'warm-up failed; serving without it');
      return undefined;
    }
    if (lastWarmup.failure === undefined) {
      logger.info({ trigger, ...lastWarmup }, 'request path warmed up');
      return undefined;
    }
    logger.error(
      { trigger, ...lastWarmup },
      trigger === 'startup'
        ? 'the config fails on a plain Deployment pod; not ready until a config that works is loaded'
        : 'the reloaded config fails on a plain Deployment pod; the current one keeps serving',
    );
    return lastWarmup.failure;
  }

  const stopAll = async (): Promise<void> => {
    stopWarmup.abort();
    for (const r of reloaders) r.close();
    await Promise.all([webhook?.close(0), monitoring?.close(0), dynamic?.close()]);
  };

  try {
    // Monitoring first: probes get an answer (503, loading) while config and certificate load.
    if (options.monitoringPort !== undefined) {
      monitoring = createMonitoringServer({ readiness, metrics, logger });
      await monitoring.listen(options.monitoringPort, options.monitoringAddress ?? options.address);
    }

    const cfg = options.config;
    if (cfg.path === undefined) {
      config = cfg.builtin();
      options.onConfig?.(config);
      logger.info({ subject: 'config', source: 'built-in', ...cfg.describe?.(config) }, 'config loaded');
    } else {
      const path = cfg.path;
      configReloader = createReloader({
        kind: 'config',
        dirs: await watchDirsFor(path),
        snapshot: () => configSnapshot(path),
        // A reloaded config is warmed before it serves (the current one serves meanwhile), and
        // refused like an invalid one when the warm-up finds it broken.
        load: async () => {
          const value = await cfg.load(path);
          if (options.warmup !== undefined && config !== undefined) {
            const failure = await warmFor(value, { ...RELOAD_WARMUP, rounds: Math.min(RELOAD_WARMUP.rounds, options.warmup.rounds) }, 'reload');
            if (failure !== undefined) throw new ConfigError('SI_CONFIG_INVALID', `${path}: the config fails on a plain Deployment pod (warm-up): ${failure}`);
          }
          return value;
        },
        apply: (value: LoadedConfig) => {
          config = value; // one assignment: a request reads either the old or the new config
          // Unready after a broken config at start: this one passed its warm-up.
          if (warmupFailed) [warmupFailed, warm] = [false, true];
          options.onConfig?.(value);
        },
        describe: cfg.describe,
        ...options.reload,
        logger,
        metrics,
      });
      reloaders.push(configReloader);
      await configReloader.start();
    }

    const tls = options.tls;
    if (tls.kind === 'memory') {
      applyPair(checkPair({ certPem: tls.certPem, keyPem: tls.keyPem, ...(tls.caPem !== undefined ? { caPem: tls.caPem } : {}) }));
    } else if (tls.kind === 'dynamic') {
      dynamic = tls.attach((raw) => applyPair(checkPair(raw)));
    } else {
      certReloader = createReloader({
        kind: 'cert',
        dirs: [...new Set([tls.certFile, tls.keyFile, ...(tls.caFile !== undefined ? [tls.caFile] : [])].map((f) => dirname(f)))],
        snapshot: () => keyPairSnapshot(tls.certFile, tls.keyFile, tls.caFile),
        load: async (raw) => checkPair(raw),
        apply: applyPair,
        describe: (v) => ({ notAfter: v.notAfter.toISOString() }),
        ...options.reload,
        logger,
        metrics,
      });
      reloaders.push(certReloader);
      await certReloader.start();
    }

    let clientCaPem: string | undefined;
    if (options.clientCa !== undefined) {
      clientCaReloader = clientCaReloaderFor(
        options.clientCa.file,
        (bundle) => {
          clientCaPem = bundle.pem;
          metrics.certificateExpiry('client-ca', new Date(bundle.notAfter));
          webhook?.setClientCa(bundle.pem);
        },
        { logger, metrics, reload: options.reload },
      );
      reloaders.push(clientCaReloader);
      await clientCaReloader.start();
    }

    const handler = createHandler({
      ...handlerOptions(),
      getConfig: () => config as LoadedConfig,
      metrics,
      logger,
      onInjectionFailed: options.onInjectionFailed,
    });
    // Files and memory have loaded by now (or thrown); a dynamic source may still be waiting.
    const served = pair ?? (tls as DynamicTlsSource).placeholder;
    const clientAuth = clientCaPem !== undefined ? { caPem: clientCaPem, names: options.clientCa?.names ?? [] } : undefined;
    webhook = createWebhookServer({
      handler,
      tls: { cert: served.certPem, key: served.keyPem },
      metrics,
      logger,
      readiness,
      limits: options.limits,
      clientAuth,
    });
    const address = await webhook.listen(options.port ?? DEFAULT_PORT, options.address);
    listening = true;
    // Warmed while listening: /healthz answers, /readyz says not yet (the first requests would
    // otherwise run interpreted); ready after the plan's first rounds, the rest run between
    // requests (warmup.ts). Started, not awaited: `startServer` resolves once listening.
    if (!warm && options.warmup !== undefined) {
      const started = config as LoadedConfig;
      const plan: WarmupOptions = {
        ...options.warmup,
        onReady: () => {
          if (config === started) warm = true;
        },
      };
      void warmFor(started, plan, 'startup').then((failure) => {
        // A config reloaded meanwhile passed a warm-up of its own.
        if (failure === undefined || config !== started) warm = true;
        else [warmupFailed, warm] = [true, false];
      });
    }
    const monitoringPort = monitoring ? (monitoring.server.address() as { port: number }).port : undefined;
    logger.info({ port: address.port, address: address.address, monitoringPort, onError: options.onError ?? 'deny' }, 'webhook serving');

    let stopping: Promise<void> | undefined;
    const drainDelay = options.shutdown?.drainDelayMs ?? DEFAULT_DRAIN_DELAY_MS;
    const grace = options.shutdown?.graceMs ?? DEFAULT_GRACE_MS;
    const server = webhook;
    const mon = monitoring;

    return {
      port: address.port,
      monitoringPort,
      metrics,
      logger,
      isReady: () => readiness().ready,
      readiness,
      async reloadNow() {
        await Promise.all(reloaders.map((r) => r.check('manual')));
      },
      shutdown() {
        stopping ??= (async () => {
          draining = true;
          stopWarmup.abort();
          logger.info({ inFlight: server.inFlight(), drainDelayMs: drainDelay, graceMs: grace }, 'shutting down: not ready, draining');
          server.drain();
          mon?.drain();
          if (drainDelay > 0) await new Promise((r) => setTimeout(r, drainDelay));
          for (const r of reloaders) r.close();
          await dynamic?.close();
          await server.close(grace);
          listening = false;
          await mon?.close(1000);
          logger.info('webhook stopped');
        })();
        return stopping;
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
