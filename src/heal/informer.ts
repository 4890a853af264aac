/**
 * @module heal/informer
 * List once, then watch from the list's resourceVersion, keeping a local copy of a collection
 * (client-go's informer, reduced to what the reconciler needs). A watch that ends (the
 * apiserver closes them every few minutes) is resumed from the last resourceVersion seen; an
 * expired one (410 Gone) or an error relists after a back-off. No polling.
 */
import { isPlainObject } from '../util/json.js';
import type { HealApi } from './kube.js';

export interface InformerOptions {
  api: Pick<HealApi, 'list' | 'watch'>;
  /** Collection path, e.g. `/api/v1/pods`. */
  path: string;
  /** Called after every change and after every (re)list. */
  onChange(): void;
  log?(message: string, fields?: Record<string, unknown>): void;
  backoffMs?: number;
}

export function keyOf(obj: unknown): string | undefined {
  if (!isPlainObject(obj) || !isPlainObject(obj.metadata) || typeof obj.metadata.name !== 'string') return undefined;
  const ns = typeof obj.metadata.namespace === 'string' ? obj.metadata.namespace : '';
  return `${ns}/${obj.metadata.name}`;
}

export class Informer {
  readonly items = new Map<string, unknown>();
  readonly #o: InformerOptions;
  #rv = '';
  #stopped = true;
  #abort: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Watch events received (for tests and logs). */
  events = 0;

  constructor(options: InformerOptions) {
    this.#o = options;
  }

  /** Resolves after the first list (so the caller starts from a complete picture). */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.#relist();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#abort?.();
    this.#abort = undefined;
    this.items.clear();
  }

  async #relist(): Promise<void> {
    const { items, resourceVersion } = await this.#o.api.list(this.#o.path);
    if (this.#stopped) return;
    this.items.clear();
    for (const item of items) {
      const k = keyOf(item);
      if (k !== undefined) this.items.set(k, item);
    }
    this.#rv = resourceVersion;
    this.#o.onChange();
    await this.#watch();
  }

  async #watch(): Promise<void> {
    if (this.#stopped) return;
    let gone = false;
    const watch = await this.#o.api.watch(
      this.#o.path,
      { resourceVersion: this.#rv, allowWatchBookmarks: 'true' },
      (type, obj) => {
        const meta = isPlainObject(obj) && isPlainObject(obj.metadata) ? obj.metadata : {};
        if (typeof meta.resourceVersion === 'string') this.#rv = meta.resourceVersion;
        if (type === 'BOOKMARK') return;
        if (type === 'ERROR') {
          // A Status object: 410 means our resourceVersion is too old.
          gone = isPlainObject(obj) && obj.code === 410;
          return;
        }
        const k = keyOf(obj);
        if (k === undefined) return;
        this.events++;
        if (type === 'DELETED') this.items.delete(k);
        else this.items.set(k, obj);
        this.#o.onChange();
      },
      (err: unknown) => {
        if (this.#stopped) return;
        if (err !== null && err !== undefined) this.#o.log?.('watch ended with an error; relisting', { path: this.#o.path, error: String(err) });
        this.#later(gone || (err !== null && err !== undefined));
      },
    ).catch((err: unknown) => {
      this.#o.log?.('watch failed to start; relisting', { path: this.#o.path, error: String(err) });
      this.#later(true);
      return undefined;
    });
    if (watch !== undefined) {
      if (this.#stopped) watch.abort();
      else this.#abort = () => watch.abort();
    }
  }

  #later(relist: boolean): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => {
        const next = relist ? this.#relist() : this.#watch();
        next.catch((err: unknown) => {
          this.#o.log?.('relist failed; retrying', { path: this.#o.path, error: String(err) });
          this.#later(true);
        });
      },
      relist ? (this.#o.backoffMs ?? 1000) : 0,
    );
  }
}
