/**
 * @module admission/result-cache
 * Remembers injection results for admission requests that carry the same pod. The core is a
 * pure function of (pod, namespace, path, config), and the pods of one ReplicaSet, Job or
 * StatefulSet reach the webhook byte-identical apart from the review's uid (at mutating
 * admission a pod has no uid or name of its own yet). So a rollout of 50 replicas renders the
 * templates once, not 50 times.
 *
 * The key is the request body with the review's uid cut out, plus the path. That is sound only
 * when the uid's bytes occur exactly once in the body: then two bodies with equal keys differ
 * at most in that one string, the review uid, which the core never sees. Any other body (uid
 * absent, escaped, or repeated) is simply not cached. Results are kept per config object, so a
 * reload starts a new cache, and the cache is bounded by entries and by key bytes.
 */
import type { Decision, JsonPatchOperation } from '../inject/types.js';
import { DEFAULT_CACHE_ENTRIES } from './defaults.js';

/** What the handler needs of a result (not the final pod: entries stay about the size of their key). */
export type CachedResult =
  | { kind: 'skipped'; decision: Decision; warnings: string[] }
  | { kind: 'injected'; decision: Decision; patch: JsonPatchOperation[]; warnings: string[] };

export interface ResultCacheOptions {
  /** Most entries kept per config (least recently used are dropped). */
  maxEntries?: number;
  /** Most key bytes kept per config (request bodies are the keys). */
  maxKeyBytes?: number;
}

export const DEFAULT_CACHE_KEY_BYTES = 16 * 1024 * 1024;

interface Bucket {
  entries: Map<string, CachedResult>;
  keyBytes: number;
}

export class ResultCache {
  readonly #maxEntries: number;
  readonly #maxKeyBytes: number;
  // Keyed by the config object: a reloaded config gets a fresh bucket, the old one is collected.
  #buckets = new WeakMap<object, Bucket>();

  constructor(options: ResultCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? DEFAULT_CACHE_ENTRIES;
    this.#maxKeyBytes = options.maxKeyBytes ?? DEFAULT_CACHE_KEY_BYTES;
  }

  /** The cache key for a request, or undefined when this body cannot be cached soundly. */
  key(body: Buffer, uid: string, path: string): string | undefined {
    if (uid.length === 0 || this.#maxEntries === 0) return undefined;
    const needle = Buffer.from(uid, 'utf8');
    const at = body.indexOf(needle);
    if (at === -1 || body.indexOf(needle, at + needle.length) !== -1) return undefined;
    // latin1 maps bytes 1:1 to chars: cheap, and equal strings mean equal bytes.
    return `${path}\n${at}\n${body.toString('latin1', 0, at)}${body.toString('latin1', at + needle.length)}`;
  }

  get(config: object, key: string): CachedResult | undefined {
    const bucket = this.#buckets.get(config);
    const hit = bucket?.entries.get(key);
    if (hit !== undefined) {
      // Map keeps insertion order: re-inserting marks the entry most recently used.
      bucket!.entries.delete(key);
      bucket!.entries.set(key, hit);
    }
    return hit;
  }

  set(config: object, key: string, result: CachedResult): void {
    if (key.length > this.#maxKeyBytes) return;
    let bucket = this.#buckets.get(config);
    if (bucket === undefined) {
      bucket = { entries: new Map(), keyBytes: 0 };
      this.#buckets.set(config, bucket);
    }
    if (bucket.entries.has(key)) return;
    bucket.entries.set(key, result);
    bucket.keyBytes += key.length;
    for (const oldest of bucket.entries.keys()) {
      if (bucket.entries.size <= this.#maxEntries && bucket.keyBytes <= this.#maxKeyBytes) break;
      bucket.entries.delete(oldest);
      bucket.keyBytes -= oldest.length;
    }
  }

  /** Entries held for a config (for tests and debugging). */
  size(config: object): number {
    return this.#buckets.get(config)?.entries.size ?? 0;
  }
}
