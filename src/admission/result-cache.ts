/**
 * @module admission/result-cache
 * Remembers injection results for admission requests that carry the same pod. The core is a
 * pure function of (pod, namespace, path, config), and the pods of one ReplicaSet, Job or
 * StatefulSet reach the webhook byte-identical apart from the review's uid (at mutating
 * admission a pod has no uid or name of its own yet). So a rollout of 50 replicas renders the
 * templates once, not 50 times.
 *
 * The key is a SHA-256 digest of the path and the request body with the review's uid cut out.
 * That is sound only when the uid's bytes occur exactly once in the body and are the whole
 * content of one JSON string (uid-span.ts): then two bodies with equal keys differ at most inside
 * that one string, the review uid, which the core never sees. Any other body (uid absent,
 * escaped, repeated, or matching raw JSON structure) is simply not cached. A digest, not the body
 * itself, so a hit neither builds nor compares a string as long as the pod. Results are kept per
 * config object, so a reload starts a new cache, bounded by entries and by patch bytes.
 */
import { createHash } from 'node:crypto';
import type { Decision } from '../inject/types.js';
import type { JsonPatchOperation } from '../patch/types.js';
import { DEFAULT_CACHE_ENTRIES } from './defaults.js';
import { isWholeString } from './uid-span.js';

/** What the handler needs of a result (not the final pod: entries stay about the size of their key). */
export type CachedResult =
  | { kind: 'skipped'; decision: Decision; warnings: string[] }
  | { kind: 'injected'; decision: Decision; patch: JsonPatchOperation[]; warnings: string[] };

export interface ResultCacheOptions {
  /** Most entries kept per config (least recently used are dropped). */
  maxEntries?: number;
  /** Most patch bytes (JSON) kept per config: a huge pod's patch is answered, not remembered. */
  maxBytes?: number;
}

export const DEFAULT_CACHE_BYTES = 16 * 1024 * 1024;

interface Entry {
  result: CachedResult;
  bytes: number;
}

interface Bucket {
  entries: Map<string, Entry>;
  bytes: number;
}

export class ResultCache {
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  // Keyed by the config object: a reloaded config gets a fresh bucket, the old one is collected.
  #buckets = new WeakMap<object, Bucket>();

  constructor(options: ResultCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? DEFAULT_CACHE_ENTRIES;
    this.#maxBytes = options.maxBytes ?? DEFAULT_CACHE_BYTES;
  }

  /** The cache key for a request, or undefined when this body cannot be cached soundly. */
  key(body: Buffer, uid: string, path: string): string | undefined {
    if (uid.length === 0 || this.#maxEntries === 0) return undefined;
    const needle = Buffer.from(uid, 'utf8');
    const at = body.indexOf(needle);
    const end = at + needle.length;
    if (at === -1 || body.indexOf(needle, end) !== -1 || !isWholeString(body, at, end)) return undefined;
    // The path has no newline and the offset is digits, so the framing is unambiguous.
    return createHash('sha256')
      .update(`${path}\n${at}\n`)
      .update(body.subarray(0, at))
      .update(body.subarray(end))
      .digest('base64');
  }

  get(config: object, key: string): CachedResult | undefined {
    const bucket = this.#buckets.get(config);
    const hit = bucket?.entries.get(key);
    if (hit !== undefined) {
      // Map keeps insertion order: re-inserting marks the entry most recently used.
      bucket!.entries.delete(key);
      bucket!.entries.set(key, hit);
    }
    return hit?.result;
  }

  set(config: object, key: string, result: CachedResult): void {
    const bytes = result.kind === 'injected' ? JSON.stringify(result.patch).length : 0;
    if (bytes > this.#maxBytes) return;
    let bucket = this.#buckets.get(config);
    if (bucket === undefined) {
      bucket = { entries: new Map(), bytes: 0 };
      this.#buckets.set(config, bucket);
    }
    if (bucket.entries.has(key)) return;
    bucket.entries.set(key, { result, bytes });
    bucket.bytes += bytes;
    for (const [oldest, entry] of bucket.entries) {
      if (bucket.entries.size <= this.#maxEntries && bucket.bytes <= this.#maxBytes) break;
      bucket.entries.delete(oldest);
      bucket.bytes -= entry.bytes;
    }
  }

  /** Entries held for a config (for tests and debugging). */
  size(config: object): number {
    return this.#buckets.get(config)?.entries.size ?? 0;
  }
}
