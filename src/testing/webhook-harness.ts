/**
 * @module testing/webhook-harness
 * Start a real webhook in-process on port 0 with a development certificate and the fake core,
 * logs captured; `t.after(() => h.server.shutdown())` cleans up.
 */
import { devCertificate, validateKeyPair } from '../certs/index.js';
import { startServer, type ConfigProvider, type RunningServer, type StartOptions, type TlsSource } from '../admission/start.js';
import type { InjectFn } from '../admission/handler.js';
import { createMetrics } from '../telemetry/metrics.js';
import { captureLogger } from './logs.js';
import { fakeConfig, fakeInject, type FakeConfig } from './fake-inject.js';

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

/**
 * Defaults to the fake core and its config; pass `inject` and `config` together to run
 * another core (the real `injectPod` with `defaultConfig`).
 */
export async function startHarness<C = FakeConfig>(overrides: Partial<StartOptions<C>> = {}): Promise<Harness> {
  const dev = await sharedDevCertificate();
  const { logger, lines, raw } = captureLogger('info');
  const tls: TlsSource = overrides.tls ?? { kind: 'memory', certPem: dev.certPem, keyPem: dev.keyPem };
  const fakeProvider: ConfigProvider<FakeConfig> = { builtin: () => fakeConfig(), load: async () => fakeConfig(), describe: (c) => ({ hash: c.hash }) };
  const server = await startServer<C>({
    inject: fakeInject as unknown as InjectFn<C>,
    config: fakeProvider as unknown as ConfigProvider<C>,
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
