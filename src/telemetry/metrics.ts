/**
 * @module telemetry/metrics
 * The webhook's Prometheus metrics, on a private prom-client Registry so tests and embedders
 * never collide with a global one, and wrapped here so the library can be swapped (prom-client
 * is moving to the prometheus org). Labels are low-cardinality by construction: status codes,
 * decision reasons and error codes from closed lists, created up front so dashboards and
 * alerts see zeros instead of missing series. Pod names never become labels.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { allErrorCodes, type ErrorCode } from '../errors.js';
import { memoCounts } from '../inject/render-memo.js';
import type { DecisionReason } from '../inject/types.js';

const METRIC_PREFIX = 'sidecar_injector_';

/** Why a pod was let through untouched. The core's reasons plus the webhook's own pre-checks. */
type SkipReason = DecisionReason | 'operation-not-create' | 'subresource' | 'already-injected' | 'other';

/** What became of one request to the admission endpoint (histogram label). */
export type Outcome = 'injected' | 'skipped' | 'failed' | 'invalid' | 'error';

/** What the webhook answered when injection failed (`--on-error`). */
type FailureAction = 'denied' | 'allowed';

export type ReloadKind = 'config' | 'cert' | 'client-ca';
/** Why a caller was refused by client-certificate authentication (`serve --client-ca`). */
export type RefusedCaller = 'no-certificate' | 'untrusted' | 'name';
type CaBundleResult = 'patched' | 'unchanged' | 'conflict' | 'failure';
type ReloadResult = 'success' | 'failure';
/**
 * Which certificate an expiry is about: the leaf served to the apiserver, the CA that signed it
 * (what the webhook's caBundle must hold), or the CA bundle callers' certificates must chain to
 * (`serve --client-ca`; its earliest-expiring CA).
 */
type CertificateRole = 'serving' | 'serving-ca' | 'client-ca';

const SKIP_REASONS: readonly SkipReason[] = [
  'host-network',
  'ignored-namespace',
  'mirror-pod',
  'explicit-disabled',
  'never-inject-selector',
  'policy-disabled',
  'policy-invalid',
  'not-a-pod',
  'namespace-not-selected',
  'object-not-selected',
  'operation-not-create',
  'subresource',
  'already-injected',
  'other',
];
const OUTCOMES: readonly Outcome[] = ['injected', 'skipped', 'failed', 'invalid', 'error'];
const WEBHOOK_STATUS_CODES = [200, 400, 405, 413, 415, 500] as const;
/** Codes an injection failure can carry (the admission-edge codes become HTTP statuses instead). */
const FAILURE_CODES: readonly ErrorCode[] = allErrorCodes().filter((c) => !c.startsWith('SI_ADMISSION_') || c === 'SI_ADMISSION_TIMEOUT');

/**
 * Sub-millisecond to seconds; includes the apiserver's own 5 ms and 25 ms bucket bounds
 * (`apiserver_admission_webhook_admission_duration_seconds`) so both sides line up.
 */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface WebhookMetrics {
  readonly registry: Registry;
  /** One finished request to the admission endpoint. */
  request(status: number, outcome: Outcome, seconds: number): void;
  injected(): void;
  skipped(reason: string): void;
  failed(code: ErrorCode, action: FailureAction): void;
  inFlight(delta: 1 | -1): void;
  /** The first load of files of this kind succeeded (serve exits when it fails): nothing refused yet. */
  loaded(kind: ReloadKind): void;
  /** A reload attempt; also sets whether the newest files of that kind are the ones served. */
  reload(kind: ReloadKind, result: ReloadResult): void;
  /** A certificate's notAfter, on every load and reload of it. */
  certificateExpiry(certificate: CertificateRole, notAfter: Date): void;
  /** One outcome reported by the caBundle reconciler. */
  caBundle(result: CaBundleResult): void;
  /**
   * Whether the last caBundle check found (or made) every managed webhook of this
   * MutatingWebhookConfiguration trust the serving CA (true), or failed (false).
   */
  caBundleInSync(webhookConfiguration: string, inSync: boolean): void;
  /** A request refused because its caller did not present an accepted client certificate. */
  refusedCaller(reason: RefusedCaller): void;
  /** Prometheus text exposition. */
  render(): Promise<{ contentType: string; body: string }>;
}

export interface MetricsOptions {
  /** Also export Node process metrics (CPU, memory, event-loop lag, GC). Default true. */
  processMetrics?: boolean;
}

interface Inc {
  inc(value?: number): void;
}

export function createMetrics(options: MetricsOptions = {}): WebhookMetrics {
  const registry = new Registry();
  const registers = [registry];
  const p = METRIC_PREFIX;

  const requests = new Counter({
    name: `${p}requests_total`,
    help: 'Requests to the admission endpoint, by HTTP status code.',
    labelNames: ['code'],
    registers,
  });
  const duration = new Histogram({
    name: `${p}request_duration_seconds`,
    help: 'Time from the first byte of the request to the response, by outcome (injected, skipped, failed, invalid, error).',
    labelNames: ['outcome'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const injections = new Counter({
    name: `${p}injections_total`,
    help: 'Pods answered with a sidecar patch (dry-run requests included).',
    registers,
  });
  const skips = new Counter({
    name: `${p}skips_total`,
    help: 'Pods and other objects let through unmodified, by reason.',
    labelNames: ['reason'],
    registers,
  });
  const failures = new Counter({
    name: `${p}failures_total`,
    help: 'Injections that failed, by error code and by what the webhook answered (--on-error: denied or allowed).',
    labelNames: ['code', 'action'],
    registers,
  });
  // Counted in a plain number and read at scrape time: two gauge updates per request cost more
  // than the counting itself.
  let inFlightNow = 0;
  new Gauge({
    name: `${p}in_flight_requests`,
    help: 'Requests to the admission endpoint being processed now.',
    registers,
    collect() {
      this.set(inFlightNow);
    },
  });
  const reloads = new Counter({
    name: `${p}reloads_total`,
    help: 'Attempts to load a changed config or certificate, by kind (config, cert) and result (success, failure).',
    labelNames: ['kind', 'result'],
    registers,
  });
  // Prometheus' own convention (prometheus_config_last_reload_successful): a failure is counted
  // once per refused version, so only a gauge says the refused files are still what is on disk.
  const lastReloadOk = new Gauge({
    name: `${p}last_reload_successful`,
    help: 'Whether the newest files of each kind (config, cert, client-ca) were loaded (1) or refused, so the last good version keeps serving (0).',
    labelNames: ['kind'],
    registers,
  });
  // The alerting rules (deploy/monitoring) and issue 31's certificate rotation rely on this name.
  const certificateExpiry = new Gauge({
    name: `${p}certificate_expiry_timestamp_seconds`,
    help: 'notAfter of a certificate in use, as a Unix timestamp, by certificate: serving (the leaf served to the apiserver), serving-ca (the CA that signed it, which the caBundle must hold), client-ca (the earliest-expiring CA of serve --client-ca). Set on every load and reload.',
    labelNames: ['certificate'],
    registers,
  });
  const caBundle = new Counter({
    name: `${p}cabundle_reconcile_total`,
    help: 'caBundle reconciliations of the MutatingWebhookConfiguration, by result.',
    labelNames: ['result'],
    registers,
  });
  const caBundleInSync = new Gauge({
    name: `${p}cabundle_in_sync`,
    help: 'Whether the last caBundle check (serve --webhook-config) found or made every managed webhook of the MutatingWebhookConfiguration trust the serving CA (1), or failed (0: the apiserver may not trust the certificate; see cabundle_reconcile_total{result="failure"} and the log). Absent until the first check.',
    labelNames: ['webhook_configuration'],
    registers,
  });

  // The core counts its memo's work in one process-wide object; it is read at scrape time.
  new Counter({
    name: `${p}render_memo_total`,
    help: 'Template renders by how the render memo served them: hit (pods that agree on what the template reads), stored (rendered and kept), skipped (rendered while the memo stood aside: keys were not repeating), large (rendered without a key: the pod is too large for its key to cost less than the render).',
    labelNames: ['result'],
    registers,
    collect() {
      this.reset();
      this.inc({ result: 'hit' }, memoCounts.hits);
      this.inc({ result: 'stored' }, memoCounts.stored);
      this.inc({ result: 'skipped' }, memoCounts.skipped);
      this.inc({ result: 'large' }, memoCounts.large);
    },
  });
  const refusedCallers = new Counter({
    name: `${p}refused_callers_total`,
    help: 'Requests refused because the caller presented no client certificate, an untrusted one, or one with another name (serve --client-ca).',
    labelNames: ['reason'],
    registers,
  });

  // Children are bound once: the hot path does a map lookup, not a label-object hash.
  const requestByCode = new Map<number, Inc>();
  for (const code of WEBHOOK_STATUS_CODES) {
    const child = requests.labels({ code: String(code) });
    child.inc(0);
    requestByCode.set(code, child);
  }
  const durationByOutcome = new Map<Outcome, { observe(v: number): void }>();
  for (const o of OUTCOMES) {
    duration.zero({ outcome: o });
    durationByOutcome.set(o, duration.labels({ outcome: o }));
  }
  const skipByReason = new Map<string, Inc>();
  for (const r of SKIP_REASONS) {
    const child = skips.labels({ reason: r });
    child.inc(0);
    skipByReason.set(r, child);
  }
  const failureKey = (code: string, action: string): string => `${code}/${action}`;
  const failureChildren = new Map<string, Inc>();
  for (const code of FAILURE_CODES) {
    for (const action of ['denied', 'allowed'] as const) {
      const child = failures.labels({ code, action });
      child.inc(0);
      failureChildren.set(failureKey(code, action), child);
    }
  }
  for (const kind of ['config', 'cert'] as const) {
    for (const result of ['success', 'failure'] as const) reloads.inc({ kind, result }, 0);
  }
  injections.inc(0);
  for (const result of ['patched', 'unchanged', 'conflict', 'failure'] as const) caBundle.inc({ result }, 0);

  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });

  return {
    registry,
    request(status, outcome, seconds) {
      let child = requestByCode.get(status);
      if (child === undefined) {
        // Any other status is still a small closed set (Node's own 408/431, ...); bind lazily.
        child = requests.labels({ code: String(status) });
        requestByCode.set(status, child);
      }
      child.inc();
      durationByOutcome.get(outcome)?.observe(seconds);
    },
    injected() {
      injections.inc();
    },
    skipped(reason) {
      // Unknown reasons (a newer core) are folded into one value rather than growing labels.
      (skipByReason.get(reason) ?? skipByReason.get('other'))?.inc();
    },
    failed(code, action) {
      const key = failureKey(code, action);
      let child = failureChildren.get(key);
      if (child === undefined) {
        child = failures.labels({ code, action });
        failureChildren.set(key, child);
      }
      child.inc();
    },
    inFlight(delta) {
      inFlightNow += delta;
    },
    loaded(kind) {
      lastReloadOk.set({ kind }, 1);
    },
    reload(kind, result) {
      reloads.inc({ kind, result });
      lastReloadOk.set({ kind }, result === 'success' ? 1 : 0);
    },
    certificateExpiry(certificate, notAfter) {
      certificateExpiry.set({ certificate }, notAfter.getTime() / 1000);
    },
    caBundle(result) {
      caBundle.inc({ result });
    },
    caBundleInSync(webhookConfiguration, inSync) {
      caBundleInSync.set({ webhook_configuration: webhookConfiguration }, inSync ? 1 : 0);
    },
    refusedCaller(reason) {
      refusedCallers.inc({ reason });
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
