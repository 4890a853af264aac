/**
 * @module heal/events
 * Kubernetes Events on workloads (`kubectl describe deployment web` shows them), deduplicated
 * and rate-limited: the same reason and message on the same object is recorded once per
 * `dedupeMs`, and at most `burst` Events go out, refilled at `perMinute`. Dropped Events are
 * counted, never queued without bound. Sending is asynchronous and never throws into the
 * caller (the webhook path calls this).
 */
import { createHash } from 'node:crypto';
import type { ClusterApi, KubeEvent } from '../kube/cluster-api.js';
import type { WorkloadRef } from './types.js';

export type EventReason =
  | 'SidecarMissing'
  | 'SidecarStale'
  | 'SidecarRestarted'
  | 'InjectionFailed'
  // On the injector's own pod (serve --tls-secret): why it cannot serve, and what it provisioned.
  | 'TLSSecretMissing'
  | 'TLSSecretForbidden'
  | 'TLSSecretIncomplete'
  | 'TLSSecretInvalid'
  | 'TLSSecretUnreachable'
  | 'TLSCertificateProvisioned';

export interface RecorderOptions {
  api: Pick<ClusterApi, 'createEvent'>;
  /** `reportingInstance`: which replica (pod name). */
  instance: string;
  dedupeMs?: number;
  burst?: number;
  perMinute?: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}

export interface RecordStats {
  sent: number;
  deduplicated: number;
  rateLimited: number;
  failed: number;
}

const MAX_MESSAGE = 1024;
const MAX_REMEMBERED = 10_000;

export class EventRecorder {
  readonly #o: Required<Omit<RecorderOptions, 'onError'>> & Pick<RecorderOptions, 'onError'>;
  readonly #last = new Map<string, number>();
  #tokens: number;
  #refilledAt: number;
  readonly stats: RecordStats = { sent: 0, deduplicated: 0, rateLimited: 0, failed: 0 };
  readonly #pending = new Set<Promise<void>>();

  constructor(options: RecorderOptions) {
    this.#o = { dedupeMs: 10 * 60_000, burst: 25, perMinute: 60, now: () => Date.now(), ...options };
    this.#tokens = this.#o.burst;
    this.#refilledAt = this.#o.now();
  }

  /**
   * Record unless recorded recently or over the rate; returns whether it was sent. `same`
   * identifies a repeat (default: the message), so a message with changing counts still
   * deduplicates.
   */
  record(on: WorkloadRef, reason: EventReason, message: string, type: 'Normal' | 'Warning' = 'Warning', same: string = message): boolean {
    const now = this.#o.now();
    const text = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message;
    const key = `${on.namespace}/${on.kind}/${on.name}|${reason}|${same}`;
    const last = this.#last.get(key);
    if (last !== undefined && now - last < this.#o.dedupeMs) {
      this.stats.deduplicated++;
      return false;
    }
    this.#refill(now);
    if (this.#tokens < 1) {
      this.stats.rateLimited++;
      return false;
    }
    this.#tokens--;
    if (this.#last.size >= MAX_REMEMBERED) this.#forgetOld(now);
    this.#last.set(key, now);
    const p = this.#send(on, reason, text, type, new Date(now))
      .then((sent) => {
        // Not recorded (the apiserver was away): not a duplicate either, so the next look may send it.
        if (!sent && this.#last.get(key) === now) this.#last.delete(key);
      })
      .finally(() => this.#pending.delete(p));
    this.#pending.add(p);
    return true;
  }

  /** How many Events the rate limit lets out now (a caller with many to record asks first). */
  available(): number {
    this.#refill(this.#o.now());
    return Math.floor(this.#tokens);
  }

  /** Wait for Events in flight (shutdown, tests). */
  async flush(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  #refill(now: number): void {
    const add = ((now - this.#refilledAt) / 60_000) * this.#o.perMinute;
    if (add > 0) {
      this.#tokens = Math.min(this.#o.burst, this.#tokens + add);
      this.#refilledAt = now;
    }
  }

  #forgetOld(now: number): void {
    for (const [k, t] of this.#last) if (now - t >= this.#o.dedupeMs) this.#last.delete(k);
    if (this.#last.size >= MAX_REMEMBERED) this.#last.clear();
  }

  async #send(on: WorkloadRef, reason: EventReason, message: string, type: 'Normal' | 'Warning', at: Date): Promise<boolean> {
    const suffix = createHash('sha256').update(`${reason}|${message}|${at.getTime()}|${this.#o.instance}`).digest('hex').slice(0, 10);
    // metav1.Time has whole seconds.
    const time = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const event: KubeEvent = {
      metadata: { name: `${on.name.slice(0, 200)}.${suffix}`, namespace: on.namespace },
      involvedObject: {
        kind: on.kind,
        name: on.name,
        namespace: on.namespace,
        ...(on.uid ? { uid: on.uid } : {}),
        ...(on.apiVersion ? { apiVersion: on.apiVersion } : {}),
      },
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: time,
      lastTimestamp: time,
      source: { component: 'sidecar-injector' },
      reportingComponent: 'sidecar-injector',
      reportingInstance: this.#o.instance,
    };
    try {
      await this.#o.api.createEvent(on.namespace, event);
      this.stats.sent++;
      return true;
    } catch (err) {
      this.stats.failed++;
      this.#o.onError?.(err);
      return false;
    }
  }
}
