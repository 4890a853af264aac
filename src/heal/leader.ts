/**
 * @module heal/leader
 * Leader election on a `coordination.k8s.io/v1` Lease, as client-go's leaderelection does: the
 * holder renews `spec.renewTime` every `retryPeriod`; a candidate takes the Lease over when the
 * holder has not renewed for `leaseDuration` (measured on the candidate's own clock from when
 * it last saw the record change, so clock skew between replicas does not matter); every write
 * is an optimistic update on `resourceVersion`, so two candidates cannot both win. A leader
 * that cannot renew within `renewDeadline` steps down. Stopping releases the Lease (holder
 * emptied, duration 1 s) so another replica takes over at once.
 */
import { apiStatus } from '../kube/api-error.js';
import { type Lease, type LeaseApi, microTime } from '../kube/cluster-api.js';

export interface LeaderOptions {
  leases: LeaseApi;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading(): void;
  onStoppedLeading(): void;
  log?(level: 'info' | 'warn', message: string, fields?: Record<string, unknown>): void;
  now?(): Date;
}

export class LeaderElector {
  readonly #o: Required<Omit<LeaderOptions, 'log' | 'now'>> & Pick<LeaderOptions, 'log'>;
  readonly #now: () => Date;
  #leading = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #lastRenew = 0;
  /** The record last seen and when (our clock) it last changed. */
  #observed: { key: string; at: number } | undefined;
  #running: Promise<void> | undefined;

  constructor(options: LeaderOptions) {
    this.#o = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...options };
    this.#now = options.now ?? (() => new Date());
  }

  get leading(): boolean {
    return this.#leading;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stop trying; when leading, release the Lease so another replica can take over now. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    if (this.#leading) {
      this.#setLeading(false);
      await this.#release().catch((err: unknown) => this.#o.log?.('warn', 'could not release the lease', { error: String(err) }));
    }
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#tick().finally(() => this.#schedule(this.#o.retryPeriodMs));
    }, ms);
  }

  async #tick(): Promise<void> {
    try {
      const held = await this.#tryAcquireOrRenew();
      if (this.#stopped) return;
      if (held) {
        this.#lastRenew = this.#now().getTime();
        this.#setLeading(true);
      } else if (this.#leading) {
        this.#setLeading(false);
      }
    } catch (err) {
      this.#o.log?.('warn', 'lease update failed', { error: err instanceof Error ? err.message : String(err) });
      if (this.#leading && this.#now().getTime() - this.#lastRenew > this.#o.renewDeadlineMs) this.#setLeading(false);
    }
  }

  #setLeading(on: boolean): void {
    if (on === this.#leading) return;
    this.#leading = on;
    this.#o.log?.('info', on ? 'became the reconcile leader' : 'stopped leading', {
      lease: `${this.#o.namespace}/${this.#o.name}`,
      identity: this.#o.identity,
    });
    if (on) this.#o.onStartedLeading();
    else this.#o.onStoppedLeading();
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { leases, namespace, name, identity } = this.#o;
    // MicroTime: the apiserver wants six fractional digits, which a plain Date does not give.
    const nowMs = this.#now().getTime();
    const now = microTime(nowMs);
    const durationS = Math.ceil(this.#o.leaseDurationMs / 1000);
    const current = await leases.get(namespace, name);
    if (current === undefined) {
      try {
        await leases.create(namespace, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec: { holderIdentity: identity, leaseDurationSeconds: durationS, acquireTime: now, renewTime: now, leaseTransitions: 0 },
        });
        return true;
      } catch (err) {
        if (apiStatus(err) === 409) return false; // another replica created it first
        throw err;
      }
    }
    const spec = current.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const key = `${holder}|${String(spec.renewTime)}|${current.metadata?.resourceVersion ?? ''}`;
    if (this.#observed?.key !== key) this.#observed = { key, at: nowMs };
    const expired = this.#observed.at + (spec.leaseDurationSeconds ?? durationS) * 1000 <= nowMs;
    if (holder !== '' && holder !== identity && !expired) return false;

    const next: Lease = {
      ...current,
      spec: {
        ...spec,
        holderIdentity: identity,
        leaseDurationSeconds: durationS,
        renewTime: now,
        ...(holder === identity ? {} : { acquireTime: now, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 }),
      },
    };
    try {
      await leases.replace(namespace, next);
      return true;
    } catch (err) {
      if (apiStatus(err) === 409) return false; // someone else wrote first: re-read next round
      throw err;
    }
  }

  async #release(): Promise<void> {
    const { leases, namespace, name, identity } = this.#o;
    const current = await leases.get(namespace, name);
    if (current?.spec?.holderIdentity !== identity) return;
    const now = microTime(this.#now().getTime());
    await leases.replace(namespace, { ...current, spec: { ...current.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now } });
  }
}
