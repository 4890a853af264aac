/**
 * @module cluster/ca-bundle-reconciler
 * Keeps the caBundle of our webhooks in a MutatingWebhookConfiguration trusting the CA that
 * signs what we serve: at start, as soon as the CA changes, and on a timer to repair drift
 * (someone re-applied the manifest with an empty caBundle). Old CAs still in the bundle stay
 * until they expire, so a rollover across replicas fails no request. Writes are conditional on
 * the resourceVersion read and retried on conflict; errors back off exponentially up to a cap
 * and never escape the timer. Counters go out through `onEvent`; the telemetry module owns metrics.
 * `trustedSince` tells since when the bundle has held a current CA: self-provisioning lets a new
 * CA sign only once the apiserver has had time to trust it.
 */
import { createHash } from 'node:crypto';
import { CertError, ClusterError, toInjectorError, type InjectorError } from '../errors.js';
import { DEFAULT_MAX_BUNDLE_CAS, planCaBundle } from '../certs/ca-bundle.js';
import { decodeCertificates } from '../certs/pem.js';
import { isConflict } from '../kube/api-error.js';
import type { KubeClient } from '../kube/client.js';
import { assertWebhookConfigName, parseWebhookConfiguration, webhookConfigPath } from '../kube/live-webhook-config.js';
import { caBundlePatch, selectWebhooks, type WebhookSelector } from './webhook-config.js';

export type ReconcileTrigger = 'start' | 'ca-changed' | 'periodic' | 'retry' | 'manual';

export type ReconcilerEvent =
  | { type: 'attempt'; trigger: ReconcileTrigger }
  | { type: 'unchanged'; trigger: ReconcileTrigger; webhooks: string[] }
  | { type: 'patched'; trigger: ReconcileTrigger; webhooks: string[]; caCount: number; retained: number; expiredRemoved: number }
  | { type: 'conflict'; trigger: ReconcileTrigger; attempt: number }
  | { type: 'failure'; trigger: ReconcileTrigger; error: InjectorError; consecutiveFailures: number; retryInMs: number }
  | { type: 'warning'; message: string };

export interface ReconcileResult {
  outcome: 'patched' | 'unchanged' | 'no-ca' | 'stopped';
  webhooks: string[];
}

export interface ReconcilerStats {
  attempts: number;
  patches: number;
  unchanged: number;
  conflicts: number;
  failures: number;
  consecutiveFailures: number;
  lastSuccessAt: Date | undefined;
  lastError: string | undefined;
}

/** The two calls the reconciler makes; tests may supply their own. */
export type KubeApi = Pick<KubeClient, 'get' | 'patch'>;

export interface CaBundleReconcilerOptions extends WebhookSelector {
  api: KubeApi;
  /** metadata.name of the MutatingWebhookConfiguration. */
  webhookConfigName: string;
  /** PEM text(s) of the current CA(s); may also be set later with `setCAs`. */
  caPems?: readonly string[];
  /** Drift check period. Default 60 s. */
  intervalMs?: number;
  /** First retry delay after a failure, doubled per consecutive failure. Default 1 s. */
  backoffInitialMs?: number;
  /** Cap on that delay. Default 60 s. */
  backoffMaxMs?: number;
  /** Re-read-and-retry rounds after a 409 within one run. Default 5. */
  conflictRetries?: number;
  /** Base pause between conflict retries, doubled each time. Default 100 ms. */
  conflictBackoffMs?: number;
  /** Fraction of each delay randomly taken off, so replicas do not retry in lockstep. Default 0.2. */
  jitter?: number;
  /** Bundle size bound (current CAs always fit). Default 10. */
  maxCAs?: number;
  now?: () => Date;
  onEvent?: (event: ReconcilerEvent) => void;
}

export class CaBundleReconciler {
  readonly #api: KubeApi;
  readonly #name: string;
  readonly #path: string;
  readonly #selector: WebhookSelector;
  readonly #intervalMs: number;
  readonly #backoffInitialMs: number;
  readonly #backoffMaxMs: number;
  readonly #conflictRetries: number;
  readonly #conflictBackoffMs: number;
  readonly #jitter: number;
  readonly #maxCAs: number;
  readonly #now: () => Date;
  readonly #onEvent: ((event: ReconcilerEvent) => void) | undefined;

  #cas: string[] = [];
  #casKey = '';
  #fingerprints: string[] = [];
  /** Current CA fingerprint -> the first successful reconcile with it in the bundle. */
  readonly #trusted = new Map<string, Date>();
  #started = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #queued: Promise<ReconcileResult> | undefined;
  #abort = new AbortController();
  #lastWarning = '';
  readonly #stats: ReconcilerStats = {
    attempts: 0,
    patches: 0,
    unchanged: 0,
    conflicts: 0,
    failures: 0,
    consecutiveFailures: 0,
    lastSuccessAt: undefined,
    lastError: undefined,
  };

  constructor(options: CaBundleReconcilerOptions) {
    this.#api = options.api;
    this.#name = options.webhookConfigName;
    assertWebhookConfigName(options.webhookConfigName);
    this.#path = webhookConfigPath(options.webhookConfigName);
    this.#selector = { webhookNames: options.webhookNames, service: options.service };
    this.#intervalMs = positive(options.intervalMs, 60_000, 'intervalMs');
    this.#backoffInitialMs = positive(options.backoffInitialMs, 1_000, 'backoffInitialMs');
    this.#backoffMaxMs = Math.max(this.#backoffInitialMs, positive(options.backoffMaxMs, 60_000, 'backoffMaxMs'));
    this.#conflictRetries = Math.max(0, Math.floor(options.conflictRetries ?? 5));
    this.#conflictBackoffMs = Math.max(0, options.conflictBackoffMs ?? 100);
    this.#jitter = Math.min(1, Math.max(0, options.jitter ?? 0.2));
    this.#maxCAs = options.maxCAs ?? DEFAULT_MAX_BUNDLE_CAS;
    this.#now = options.now ?? (() => new Date());
    this.#onEvent = options.onEvent;
    if (options.caPems) this.#setCAs(options.caPems);
  }

  /** Reconcile now, then every `intervalMs`. Idempotent. */
  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    this.#enqueue('start').catch(() => undefined);
  }

  /**
   * Replace the current CA(s) (first = the one signing our leaf). Throws `SI_CERT_INVALID` on
   * PEM without a certificate. Returns false, and does nothing, when the set is unchanged;
   * otherwise reconciles at once if started.
   */
  setCAs(pems: readonly string[]): boolean {
    const changed = this.#setCAs(pems);
    if (changed && this.#started && !this.#stopped) this.#enqueue('ca-changed').catch(() => undefined);
    return changed;
  }

  /** Run one reconcile now (after any in flight) and report its outcome or error. */
  reconcileNow(): Promise<ReconcileResult> {
    return this.#enqueue('manual');
  }

  /** Cancel timers and any request in flight; resolves when the reconciler is idle. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#abort.abort();
    await this.#queue;
  }

  get stats(): ReconcilerStats {
    return { ...this.#stats };
  }

  /** Since when every selected webhook's caBundle has held this current CA (sha256 hex of its DER); undefined: not confirmed. */
  trustedSince(fingerprint: string): Date | undefined {
    return this.#trusted.get(fingerprint);
  }

  #setCAs(pems: readonly string[]): boolean {
    const ders = pems.flatMap((pem) => decodeCertificates(pem, 'CA for the caBundle'));
    const fingerprints = ders.map((d) => createHash('sha256').update(d).digest('hex'));
    const key = fingerprints.join(',');
    if (key === this.#casKey) return false;
    this.#cas = [...pems];
    this.#casKey = key;
    this.#fingerprints = fingerprints;
    for (const fp of [...this.#trusted.keys()]) if (!fingerprints.includes(fp)) this.#trusted.delete(fp);
    return true;
  }

  // The bundle now holds every current, unexpired CA (planCaBundle puts them first).
  #confirm(fingerprints: readonly string[]): void {
    const now = this.#now();
    // A run that started before setCAs confirms only what is still current.
    for (const fp of fingerprints) if (this.#fingerprints.includes(fp) && !this.#trusted.has(fp)) this.#trusted.set(fp, now);
  }

  // Runs are serialised; a run requested while another waits to start joins that one.
  #enqueue(trigger: ReconcileTrigger): Promise<ReconcileResult> {
    if (this.#queued) return this.#queued;
    const run = this.#queue.then(() => {
      this.#queued = undefined;
      return this.#attempt(trigger);
    });
    this.#queued = run;
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #attempt(trigger: ReconcileTrigger): Promise<ReconcileResult> {
    if (this.#stopped) return { outcome: 'stopped', webhooks: [] };
    clearTimeout(this.#timer);
    this.#stats.attempts++;
    this.#emit({ type: 'attempt', trigger });
    try {
      const result = await this.#reconcile(trigger);
      this.#stats.consecutiveFailures = 0;
      this.#stats.lastSuccessAt = this.#now();
      this.#schedule(this.#intervalMs, 'periodic');
      return result;
    } catch (err) {
      if (this.#stopped) return { outcome: 'stopped', webhooks: [] };
      const error = toInjectorError(err);
      this.#stats.failures++;
      this.#stats.consecutiveFailures++;
      this.#stats.lastError = error.message;
      const retryInMs = this.#withJitter(Math.min(this.#backoffMaxMs, this.#backoffInitialMs * 2 ** Math.min(30, this.#stats.consecutiveFailures - 1)));
      this.#emit({ type: 'failure', trigger, error, consecutiveFailures: this.#stats.consecutiveFailures, retryInMs });
      this.#schedule(retryInMs, 'retry');
      throw error;
    }
  }

  async #reconcile(trigger: ReconcileTrigger): Promise<ReconcileResult> {
    const cas = this.#cas;
    const fingerprints = this.#fingerprints;
    if (cas.length === 0) {
      this.#warn('no CA has been set yet; the caBundle is left as it is');
      return { outcome: 'no-ca', webhooks: [] };
    }
    const signal = this.#abort.signal;
    for (let attempt = 1; ; attempt++) {
      const config = parseWebhookConfiguration(await this.#api.get(this.#path, { signal }), this.#name);
      const { selected, missing } = selectWebhooks(config, this.#selector);
      if (selected.length === 0) {
        throw new ClusterError(
          'SI_CLUSTER_WEBHOOK_MISSING',
          `MutatingWebhookConfiguration "${this.#name}" has none of the webhooks to manage (${describeSelector(this.#selector)}); it has ${config.webhooks.map((w) => `"${w.name}"`).join(', ') || 'no webhooks'}`,
        );
      }
      this.#warn(
        missing.length > 0
          ? `webhooks ${missing.map((n) => `"${n}"`).join(', ')} are not in MutatingWebhookConfiguration "${this.#name}"; patching the others`
          : '',
      );

      const now = this.#now();
      const changes: Array<{ index: number; name: string; caBundle: string }> = [];
      let caCount = 0;
      let retained = 0;
      let expiredRemoved = 0;
      for (const webhook of selected) {
        const plan = planCaBundle({ current: cas, existing: webhook.caBundle, now, maxCAs: this.#maxCAs });
        if (plan.certificates.length === 0) {
          throw new CertError(
            'SI_CERT_INVALID',
            `every current CA has expired; the caBundle of "${webhook.name}" is left unchanged until a valid CA is loaded`,
          );
        }
        if (plan.unchanged) continue;
        changes.push({ index: webhook.index, name: webhook.name, caBundle: plan.bundle });
        caCount = Math.max(caCount, plan.certificates.length);
        retained = Math.max(retained, plan.retained);
        expiredRemoved += plan.expired;
      }
      const names = selected.map((w) => w.name);
      if (changes.length === 0) {
        this.#confirm(fingerprints);
        this.#stats.unchanged++;
        this.#emit({ type: 'unchanged', trigger, webhooks: names });
        return { outcome: 'unchanged', webhooks: names };
      }
      try {
        await this.#api.patch(this.#path, caBundlePatch(config.resourceVersion, changes), 'json', { signal });
      } catch (err) {
        if (!isConflict(err) || attempt > this.#conflictRetries || this.#stopped) throw err;
        this.#stats.conflicts++;
        this.#emit({ type: 'conflict', trigger, attempt });
        await sleep(this.#withJitter(this.#conflictBackoffMs * 2 ** (attempt - 1)), signal);
        continue;
      }
      this.#confirm(fingerprints);
      this.#stats.patches++;
      const patched = changes.map((c) => c.name);
      this.#emit({ type: 'patched', trigger, webhooks: patched, caCount, retained, expiredRemoved });
      return { outcome: 'patched', webhooks: patched };
    }
  }

  #schedule(ms: number, trigger: ReconcileTrigger): void {
    clearTimeout(this.#timer);
    if (!this.#started || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#enqueue(trigger).catch(() => undefined);
    }, ms);
    // The webhook server keeps the process alive; this timer alone must not.
    this.#timer.unref();
  }

  #withJitter(ms: number): number {
    return Math.round(ms * (1 - this.#jitter * Math.random()));
  }

  // Warnings repeat every period while the condition lasts; report each distinct one once.
  #warn(message: string): void {
    if (message === this.#lastWarning) return;
    this.#lastWarning = message;
    if (message !== '') this.#emit({ type: 'warning', message });
  }

  #emit(event: ReconcilerEvent): void {
    try {
      this.#onEvent?.(event);
    } catch {
      // A faulty listener must not break reconciliation.
    }
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) throw new ClusterError('SI_CLUSTER_CONFIG', `${name} must be a positive number of milliseconds, got ${v}`);
  return v;
}

function describeSelector(selector: WebhookSelector): string {
  if (selector.webhookNames?.length) return `named ${selector.webhookNames.map((n) => `"${n}"`).join(', ')}`;
  if (selector.service) return `pointing at Service ${selector.service.namespace}/${selector.service.name}`;
  return 'any';
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
