/**
 * @module cli/serve
 * `sidecar-injector serve`: run the admission webhook until SIGTERM/SIGINT (or the CLI's abort
 * signal, for in-process tests), then shut down gracefully and exit 0. With no TLS flags it
 * serves an in-memory development certificate and prints its CA bundle, so `serve` alone
 * starts and answers. The webhook machinery lives in `admission/`; this file is flags,
 * wiring and the first words to the user; the running part is in serve-run.ts, loaded only
 * when the command runs.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { formatDurationMs } from '../util/duration.js';
import { CA_CERT_FILE, TLS_CERT_FILE, TLS_KEY_FILE } from '../certs/constants.js';
import { DEFAULT_GRACE_MS, DEFAULT_WARMUP_ROUNDS, DEFAULT_PORT, ON_ERROR_MODES, type OnError } from '../admission/server-defaults.js';
import { DEFAULT_POD_LIMITS, LIMIT_NAMES, parseLimit, type PodLimits } from '../inject/limits.js';
import { LOG_LEVELS, type LogLevel } from '../telemetry/levels.js';
import { parseRevisionName } from './heal-options.js';
import type { CliIO } from './io.js';
import { addReconcileOptions } from './serve-reconcile-options.js';
import { addKubeOptions } from './kube-options.js';
import { durationFlag } from './duration-flag.js';
import { oneOf } from './choices.js';
import { addTlsSecretOptions } from './serve-tls-options.js';
import type { ServeOptions, ServeRuntime } from './serve-run.js';

function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('expected a port number 0-65535');
  return n;
}

function parseCount(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 1_000_000) throw new InvalidArgumentError('expected a whole number, 0-1000000');
  return Number(value);
}

function collectLimit(value: string, into: PodLimits = { ...DEFAULT_POD_LIMITS }): PodLimits {
  const problem = parseLimit(value, into);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return into;
}

/**
 * The product's runtime: the real config loader (imported when `serve` runs, so the rest of
 * the CLI does not load the template engine for nothing) and the injection core.
 */
export async function productRuntime(revision?: string): Promise<ServeRuntime> {
  const [{ loadConfig, defaultConfig }, { injectPod }, { assertServable }] = await Promise.all([
    import('../profiles/index.js'),
    import('../inject/pipeline.js'),
    import('../check/serve-gate.js'),
  ]);
  // A revisioned injector (manifests --revision) serves its revision whatever config it loads.
  const options = revision === undefined ? {} : { revision };
  return {
    inject: injectPod,
    // A config invalid for every pod is refused at load and reload (check/serve-gate).
    config: {
      load: async (path) => assertServable(await loadConfig(path, options)),
      builtin: () => defaultConfig(options),
      describe: (c) => ({ hash: c.hash, warnings: c.warnings, compatibility: `${c.compatibility.mode}: ${c.compatibility.reason}` }),
    },
  };
}

export function register(program: Command, io: CliIO): void {
  const serve = program
    .command('serve')
    .description('run the admission webhook over HTTPS (POST /inject); with no TLS flags, a self-signed development certificate')
    .option(
      '-c, --config <path>',
      'injector config: a directory with "config" and "values" (a mounted ConfigMap) or one YAML file; reloaded on change (default: built-in)',
    )
    .option(
      '--revision <name>',
      "the revision this injector serves (manifests --revision): .Revision in templates and the status annotation's revision; overrides an empty values.revision",
      parseRevisionName,
    )
    .option('--tls-cert <file>', 'serving certificate (PEM); reloaded on change')
    .option('--tls-key <file>', 'its private key (PEM)')
    .option('--tls-dir <dir>', `directory holding ${TLS_CERT_FILE} and ${TLS_KEY_FILE} (a mounted kubernetes.io/tls Secret), and optionally ${CA_CERT_FILE}`)
    .option('--tls-ca <file>', 'the CA that signed --tls-cert (for --webhook-config)')
    .option('--port <n>', 'HTTPS port', parsePort, DEFAULT_PORT)
    .option('--address <addr>', 'listen address (default: all interfaces)')
    .option('--monitoring-port <n>', 'also serve /metrics, /healthz and /readyz over plain HTTP on this port', parsePort)
    .option(
      '--on-error <mode>',
      'when injection was wanted but failed: deny the pod, or allow it without a sidecar (with a warning)',
      oneOf<OnError>(...ON_ERROR_MODES),
      'deny' as OnError,
    )
    .option('--log-level <level>', `log level (${LOG_LEVELS.join(', ')}); the patch is logged at debug`, oneOf<LogLevel>(...LOG_LEVELS), 'info' as LogLevel)
    .option('--dev-host <host...>', 'extra DNS names or IPs for the development certificate (an address the apiserver can reach)')
    .option('--webhook-config <name>', 'keep the caBundle of this MutatingWebhookConfiguration in sync with the serving CA (in-cluster)')
    .addOption(
      new Option(
        '--ca-bundle-resync <duration>',
        'with --webhook-config: how often to repair a caBundle someone changed (also at start and whenever the CA changes)',
      )
        .argParser(durationFlag({ minMs: 1000, maxMs: 3_600_000 }))
        .default(60_000, '1m'),
    )
    .addOption(
      new Option('--drain-delay <duration>', 'on SIGTERM, keep serving (not ready) this long before closing the listener')
        .argParser(durationFlag({ maxMs: 3_600_000 }))
        .default(0, '0s'),
    )
    .addOption(
      new Option('--shutdown-timeout <duration>', 'then wait at most this long for in-flight requests')
        .argParser(durationFlag({ maxMs: 3_600_000 }))
        .default(DEFAULT_GRACE_MS, formatDurationMs(DEFAULT_GRACE_MS)),
    )
    .option(
      '--warmup <rounds>',
      'run the request path this many rounds on sample pods so real pods meet optimised code: at start ready after the first round, the rest between requests; a reloaded config serves after all of them; 0 turns it off',
      parseCount,
      DEFAULT_WARMUP_ROUNDS,
    )
    .option(
      '--client-ca <file>',
      'serve /inject and /metrics only to callers whose client certificate chains to this CA bundle (the apiserver, see docs/install.md); reloaded on change',
    )
    .option('--client-name <name...>', 'with --client-ca: accept only certificates with one of these subject CNs or DNS SANs')
    .option(
      '--limit <NAME=N>',
      `a per-request limit of the pod (repeatable): ${LIMIT_NAMES.map((n) => `${n} (default ${DEFAULT_POD_LIMITS[n]})`).join(', ')}`,
      collectLimit,
    );
  addKubeOptions(
    addReconcileOptions(addTlsSecretOptions(serve)),
    "for --webhook-config, --tls-secret and --reconcile; default: the pod's service account",
  ).action(async (options: ServeOptions) => {
    // The server, TLS and telemetry modules load only when serve runs (CLI start-up time).
    const { runServe } = await import('./serve-run.js');
    return runServe(options, io, await productRuntime(options.revision));
  });
}
