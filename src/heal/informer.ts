/**
 * @module heal/informer
 * List once, then watch from the list's resourceVersion, keeping a local copy of a collection
 * (client-go's reflector and store, reduced to what the reconciler needs), the way an
 * apiserver wants to be treated:
 * - the list is paginated (`limit`/`continue`, in the api) and each object goes through
 *   `transform` before it is kept (client-go's SetTransform): the store holds what the caller
 *   needs, not the objects; the transform runs in slices, yielding to the event loop, so a
 *   webhook in the same process keeps answering during a list of 50,000 pods (and watch events
 *   are applied the same way, in order);
 * - watches ask for bookmarks and resume from the last resourceVersion seen: a watch the
 *   apiserver ends (after its `timeoutSeconds`, 5 to 10 minutes) or a connection that fails is
 *   resumed, never relisted; only `410 Gone` (the resourceVersion was compacted) relists, once;
 * - every retry backs off exponentially with jitter (1 s doubling to 30 s, reset by a watch
 *   that delivers), so an apiserver that is down or restarting sees no storm.
 * No polling.
 */
import { isPlainObject } from '../util/json.js';
import { apiStatus } from '../kube/api-error.js';
import type { ClusterApi } from '../kube/cluster-api.js';

/** Why the store was (re)filled from a list. */
export type ListReason = 'start' | 'expired' | 'error' | 'resync';

export interface InformerOptions<T> {
  api: Pick<ClusterApi, 'listPages' | 'watch'>;
  /** Collection path, e.g. `/api/v1/pods`. */
  path: string;
  /** Read metadata only (PartialObjectMetadata). */
  metadataOnly?: boolean;
  /** What to keep of an object; undefined: nothing (the key is then absent). */
  transform(obj: unknown): T | undefined;
  /** A key changed through the watch: before and after (undefined: absent). */
  onEvent?(key: string, before: T | undefined, after: T | undefined): void;
  /** The store was replaced by a list; `previous` is what it held before. */
  onSync?(reason: ListReason, previous: ReadonlyMap<string, T>): void;
  log?(message: string, fields?: Record<string, unknown>): void;
  backoff?: { initialMs?: number; maxMs?: number };
  /** For tests: the jitter's source. */
  random?(): number;
  /** Synchronous work at most this long before yielding, during a list (ms). */
  sliceMs?: number;
  /** How long the apiserver keeps each watch open (`timeoutSeconds`); default 5 to 10 minutes at random, as client-go. */
  watchSeconds?: () => number;
}

export function keyOf(obj: unknown): string | undefined {
  if (!isPlainObject(obj) || !isPlainObject(obj.metadata) || typeof obj.metadata.name !== 'string') return undefined;
  const ns = typeof obj.metadata.namespace === 'string' ? obj.metadata.namespace : '';
  return `${ns}/${obj.metadata.name}`;
}

export interface InformerStats {
  lists: Record<ListReason, number>;
  watches: number;
  events: number;
}

export class Informer<T> {
  items = new Map<string, T>();
  readonly #o: InformerOptions<T>;
  #rv = '';
  #stopped = true;
  /** Bumped by stop and by every (re)list: callbacks of an older round are ignored. */
  #round = 0;
  #abort: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;
  #synced = false;
  /** Watch events received, not yet applied (in order; the round they belong to). */
  #queue: { round: number; type: string; obj: unknown }[] = [];
  #draining = false;
  readonly stats: InformerStats = { lists: { start: 0, expired: 0, error: 0, resync: 0 }, watches: 0, events: 0 };

  constructor(options: InformerOptions<T>) {
    this.#o = options;
  }

  get path(): string {
    return this.#o.path;
  }

  /** A list has filled the store at least once. */
  get synced(): boolean {
    return this.#synced;
  }

  /** Resolves after the first list (so the caller starts from a complete picture). */
  async start(): Promise<void> {
    this.#stopped = false;
    if (await this.#list('start')) this.#watch();
  }

  stop(): void {
    this.#stopped = true;
    this.#round++;
    clearTimeout(this.#timer);
    this.#abort?.();
    this.#abort = undefined;
    this.items.clear();
    this.#queue = [];
    this.#synced = false;
  }

  /** List again now (the transform's inputs changed, e.g. a new config), then watch. */
  resync(): void {
    if (this.#stopped) return;
    this.#relist('resync', 0);
  }

  /** Fill the store from a list; false when a newer list or stop() overtook this one. */
  async #list(reason: ListReason): Promise<boolean> {
    const round = ++this.#round;
    this.#abort?.();
    this.#abort = undefined;
    this.#queue = [];
    this.stats.lists[reason]++;
    const next = new Map<string, T>();
    const slice = this.#o.sliceMs ?? 10;
    const overtaken = new Error('overtaken');
    const listed = await this.#o.api
      .listPages(
        this.#o.path,
        {},
        async (page) => {
          let t = performance.now();
          for (let i = 0; i < page.length; i++) {
            if (round !== this.#round) throw overtaken;
            const item = page[i];
            // Let go of each object once transformed: a page outlives several slices, and
            // what it still holds would be promoted to the old generation.
            page[i] = undefined;
            const k = keyOf(item);
            const v = k === undefined ? undefined : this.#o.transform(item);
            if (v !== undefined) next.set(k!, v);
            if (performance.now() - t > slice) {
              await new Promise<void>((r) => setImmediate(r));
              t = performance.now();
            }
          }
        },
        { metadataOnly: this.#o.metadataOnly === true },
      )
      .catch((err: unknown) => {
        if (err === overtaken) return undefined;
        throw err;
      });
    if (listed === undefined || round !== this.#round) return false;
    const previous = this.items;
    this.items = next;
    this.#rv = listed.resourceVersion;
    this.#synced = true;
    this.#o.onSync?.(reason, previous);
    return true;
  }

  #watch(): void {
    if (this.#stopped) return;
    const round = this.#round;
    const startedAt = Date.now();
    let delivered = false;
    let expired = false;
    this.stats.watches++;
    const current = (): boolean => round === this.#round && !this.#stopped;
    this.#o.api
      .watch(
        this.#o.path,
        {
          resourceVersion: this.#rv,
          allowWatchBookmarks: 'true',
          timeoutSeconds: String(this.#o.watchSeconds?.() ?? Math.round(300 * (1 + (this.#o.random ?? Math.random)()))),
        },
        (type, obj) => {
          if (!current() || expired) return;
          if (type === 'ERROR') {
            // A Status: 410 means our resourceVersion is gone from the apiserver's window.
            const code = isPlainObject(obj) ? obj.code : undefined;
            expired = true;
            this.#abort?.();
            if (code === 410) this.#relist('expired', this.#delay(this.#failures++));
            else this.#relist('error', this.#delay(++this.#failures), obj);
            return;
          }
          const meta = isPlainObject(obj) && isPlainObject(obj.metadata) ? obj.metadata : {};
          if (typeof meta.resourceVersion === 'string') this.#rv = meta.resourceVersion;
          if (!delivered) {
            delivered = true;
            this.#failures = 0;
          }
          if (type === 'BOOKMARK') return;
          this.#queue.push({ round, type, obj });
          this.#drainSoon();
        },
        (err) => {
          if (!current() || expired) return;
          this.#abort = undefined;
          // Ended by the apiserver after a while (its timeout): resume at once. Ended at once
          // or by a failure: resume after a back-off. Either way from the last resourceVersion.
          const quick = !delivered && Date.now() - startedAt < 1000;
          if (err === null && !quick) return this.#later(() => this.#watch(), 0);
          const inMs = this.#delay(++this.#failures);
          this.#o.log?.('watch ended; resuming from the last resourceVersion', {
            path: this.#o.path,
            error: err === null ? 'closed at once' : String(err),
            inMs,
          });
          this.#later(() => this.#watch(), inMs);
        },
        { metadataOnly: this.#o.metadataOnly === true },
      )
      .then(
        (w) => {
          if (current() && !expired) this.#abort = () => w.abort();
          else w.abort();
        },
        (err: unknown) => {
          if (!current()) return;
          if (apiStatus(err) === 410) return this.#relist('expired', this.#delay(this.#failures++));
          // Not started (apiserver down, restarting, overloaded): try the same watch again later.
          const inMs = this.#delay(++this.#failures);
          this.#o.log?.('watch could not start; retrying', { path: this.#o.path, error: String(err), inMs });
          this.#later(() => this.#watch(), inMs);
        },
      );
  }

  #drainSoon(): void {
    if (this.#draining) return;
    this.#draining = true;
    setImmediate(() => this.#drain());
  }

  /**
   * Apply queued watch events in order, `sliceMs` at a time: a burst (a namespace deleted, a
   * rollout) is spread over event-loop turns, so a webhook request waits one slice, not the burst.
   */
  #drain(): void {
    const t = performance.now();
    const slice = this.#o.sliceMs ?? 10;
    while (this.#queue.length > 0 && performance.now() - t < slice) {
      const { round, type, obj } = this.#queue.shift()!;
      if (round !== this.#round || this.#stopped) continue;
      const k = keyOf(obj);
      if (k === undefined) continue;
      this.stats.events++;
      const before = this.items.get(k);
      const after = type === 'DELETED' ? undefined : this.#o.transform(obj);
      if (after === undefined) this.items.delete(k);
      else this.items.set(k, after);
      if (before !== undefined || after !== undefined) this.#o.onEvent?.(k, before, after);
    }
    this.#draining = false;
    if (this.#queue.length > 0) this.#drainSoon();
  }

  #relist(reason: ListReason, inMs: number, error?: unknown): void {
    if (reason !== 'resync' || error !== undefined) {
      const why = reason === 'expired' ? 'watch expired (410 Gone); relisting' : 'watch or list failed; relisting';
      this.#o.log?.(why, {
        path: this.#o.path,
        inMs,
        ...(error !== undefined ? { error: error instanceof Error ? error.message : JSON.stringify(error) } : {}),
      });
    }
    this.#later(() => {
      this.#list(reason).then(
        (done) => done && this.#watch(),
        (err: unknown) => {
          if (!this.#stopped) this.#relist(reason === 'resync' ? 'resync' : 'error', this.#delay(++this.#failures), err);
        },
      );
    }, inMs);
  }

  #later(fn: () => void, ms: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(fn, ms);
  }

  /** Exponential with jitter; attempt 0 is a short random pause (replicas do not relist in step). */
  #delay(attempt: number): number {
    const initial = this.#o.backoff?.initialMs ?? 1000;
    const max = this.#o.backoff?.maxMs ?? 30_000;
    const base = Math.min(max, initial * 2 ** Math.max(0, attempt - 1));
    const r = (this.#o.random ?? Math.random)();
    return Math.round(attempt === 0 ? r * initial : base * (0.5 + r / 2));
  }
}
