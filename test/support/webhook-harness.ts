/**
 * @module test/support/webhook-harness
 * Start a real webhook in-process on port 0 with a development certificate, the real core and
 * the built-in config, logs captured; `t.after(() => h.server.shutdown())` cleans up.
 */
import { devCertificate, validateKeyPair } from '../../src/certs/index.js';
import { startServer, type ConfigProvider, type RunningServer, type StartOptions, type TlsSource } from '../../src/admission/start.js';
import { defaultConfig, loadConfig } from '../../src/profiles/index.js';
import { injectPod } from '../../src/inject/index.js';
import { createMetrics } from '../../src/telemetry/metrics.js';
import { captureLogger } from './logs.js';

export interface Harness {
  server: RunningServer;
  port: number;
  caPem: string;
  logs: Record<string, unknown>[];
  rawLogs: string[];
}

let cachedDev: Promise<{ certPem: string; keyPem: string; caPem: string }> | undefined;

/** One development certificate per test process (generation takes tens of ms). */
export function sharedDevCertificate(): Promise<{ certPem: string; keyPem: string; caPem: string }> {
  cachedDev ??= devCertificate({ hosts: ['localhost'] }).then((d) => ({ certPem: d.certPem, keyPem: d.keyPem, caPem: d.caPem }));
  return cachedDev;
}

/** The built-in config, or `path` (reloaded on change), as `serve --config` loads it; hash in /readyz. */
export function realConfig(path?: string): ConfigProvider {
  return { path, builtin: defaultConfig, load: (p) => loadConfig(p), describe: (c) => ({ hash: c.hash }) };
}

/** Defaults to `injectPod` and the built-in config; tests may wrap `inject` to observe or break it. */
export async function startHarness(overrides: Partial<StartOptions> = {}): Promise<Harness> {
  const dev = await sharedDevCertificate();
  const { logger, lines, raw } = captureLogger('info');
  const tls: TlsSource = overrides.tls ?? { kind: 'memory', certPem: dev.certPem, keyPem: dev.keyPem };
  const server = await startServer({
    inject: injectPod,
    config: realConfig(),
    validateKeyPair,
    port: 0,
    address: '127.0.0.1',
    logger,
    metrics: createMetrics({ processMetrics: false }),
    shutdown: { graceMs: 2000 },
    ...overrides,
    tls,
  });
  return { server, port: server.port, caPem: dev.caPem, logs: lines, rawLogs: raw };
}
