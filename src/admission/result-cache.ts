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
 *
 * A hit that never parses (`probe`): an entry whose uid was also shown to be the review's own
 * request.uid string (`uidWrittenPlainly`) carries its answer cut around the uid (replay.ts) and
 * records the uid's offset. A new body is probed at those offsets only: the bytes up to the next
 * quote are taken as its uid (plain printable ASCII, occurring exactly once), the rest is hashed
 * as above, and a matching entry means the body is the stored one's bytes with only that one
 * string's content changed: same JSON structure, so the same review with this uid, and the same
 * answer with this uid spliced in. Anything else falls through to the full path. The body of the
 * last hashed replay is kept (a copy): the next replica of a rollout is recognised by comparing
 * its bytes around the uid with it (memcmp), without hashing.
 */
import { createHash } from 'node:crypto';
import type { Decision } from '../inject/types.js';
import type { JsonPatchOperation } from '../patch/types.js';
import { DEFAULT_CACHE_ENTRIES } from './defaults.js';
import type { Replay } from './replay.js';
import { isWholeString, plainStringEnd } from './uid-span.js';
import { MAX_UID_LENGTH } from './review.js';

/** What the handler needs of a result (not the final pod: entries stay about the size of their key). */
export type CachedResult =
  | { kind: 'skipped'; decision: Decision; warnings: string[] }
  | { kind: 'injected'; decision: Decision; patch: JsonPatchOperation[]; warnings: string[] };

export interface ResultCacheOptions {
  /** Most entries kept per config (least recently used are dropped). */
  maxEntries?: number;
  /** Most bytes kept per config (answers, or patches as JSON): a huge pod's patch is answered, not remembered. */
  maxBytes?: number;
}

export const DEFAULT_CACHE_BYTES = 16 * 1024 * 1024;

interface Entry {
  result: CachedResult;
  bytes: number;
  replay?: Replay;
}

interface Bucket {
  entries: Map<string, Entry>;
  bytes: number;
  /** Offsets of replayable uids, most recent first (the apiserver's layout gives one). */
  offsets: number[];
  /** The body of the last hashed replay (a copy), to recognise the next replica by comparing bytes. */
  last?: { body: Buffer; at: number; end: number; path: string; key: string; entry: Entry };
}

/** A key with where its uid was cut, so a later step can reuse the digest. */
export interface CacheKey {
  key: string;
  at: number;
  end: number;
}

/** What a probe found: an answer to replay for `uid`, or a key to reuse when the full path gets there. */
export type Probe = { replay: Replay; uid: string; hint?: undefined } | { replay?: undefined; uid?: undefined; hint?: CacheKey };

const MAX_OFFSETS = 4;
/** Larger bodies are always hashed: no multi-megabyte copy is kept per config for them. */
const MAX_LAST_BODY = 256 * 1024;

/** `body` (uid at [last.at, end)) equals `last.body` outside the uid, byte for byte. */
function sameAround(body: Buffer, end: number, last: { body: Buffer; at: number; end: number }): boolean {
  const tail = body.length - end;
  if (tail !== last.body.length - last.end) return false;
  return body.compare(last.body, 0, last.at, 0, last.at) === 0 && body.compare(last.body, last.end, last.body.length, end, body.length) === 0;
}

function digest(body: Buffer, at: number, end: number, path: string): string {
  // The path has no newline and the offset is digits, so the framing is unambiguous.
  return createHash('sha256').update(`${path}\n${at}\n`).update(body.subarray(0, at)).update(body.subarray(end)).digest('base64');
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
    return this.locate(body, uid, path)?.key;
  }

  /** `key` with the uid's place; `hint` (a probe of this same body and path) saves the digest. */
  locate(body: Buffer, uid: string, path: string, hint?: CacheKey): CacheKey | undefined {
    if (uid.length === 0 || this.#maxEntries === 0) return undefined;
    const needle = Buffer.from(uid, 'utf8');
    const at = body.indexOf(needle);
    const end = at + needle.length;
    if (at === -1 || body.indexOf(needle, end) !== -1 || !isWholeString(body, at, end)) return undefined;
    if (hint !== undefined && hint.at === at && hint.end === end) return hint;
    return { key: digest(body, at, end, path), at, end };
  }

  /**
   * Look `body` up without parsing it, at the offsets where replayable uids were found. Sound
   * only for bodies the caller has not validated because a hit proves the body equal to a
   * validated one outside the uid (see the module comment); a miss proves nothing.
   */
  probe(config: object, body: Buffer, path: string): Probe {
    const bucket = this.#buckets.get(config);
    if (bucket === undefined) return {};
    let hint: CacheKey | undefined;
    for (const at of bucket.offsets) {
      const end = plainStringEnd(body, at, MAX_UID_LENGTH);
      if (end === -1) continue;
      const uid = body.subarray(at, end);
      // Today's rule for every key: the uid's bytes occur exactly once.
      if (body.indexOf(uid) !== at || body.indexOf(uid, end) !== -1) continue;
      // A rollout sends one workload's replicas in a row: the same bytes around the uid as the
      // last replay's, checked by comparing them (memcmp), which is cheaper than hashing them.
      const last = bucket.last;
      if (last !== undefined && last.at === at && last.path === path && sameAround(body, end, last) && bucket.entries.get(last.key) === last.entry) {
        this.#touch(bucket, last.key, last.entry);
        return { replay: last.entry.replay!, uid: uid.toString('latin1') };
      }
      const key = digest(body, at, end, path);
      const entry = bucket.entries.get(key);
      if (entry?.replay !== undefined) {
        this.#touch(bucket, key, entry);
        // A copy (the request's buffer is not ours to keep), only of pod-sized bodies.
        if (body.length <= MAX_LAST_BODY) bucket.last = { body: Buffer.from(body), at, end, path, key, entry };
        return { replay: entry.replay, uid: uid.toString('latin1') };
      }
      hint ??= { key, at, end };
    }
    return { hint };
  }

  get(config: object, key: string): CachedResult | undefined {
    const bucket = this.#buckets.get(config);
    const hit = bucket?.entries.get(key);
    if (hit !== undefined) this.#touch(bucket!, key, hit);
    return hit?.result;
  }

  #touch(bucket: Bucket, key: string, entry: Entry): void {
    // Map keeps insertion order: re-inserting marks the entry most recently used.
    bucket.entries.delete(key);
    bucket.entries.set(key, entry);
  }

  /**
   * Remember a result. `extra.replay` (with `extra.at`, its uid's offset) lets later bodies hit
   * without parsing; `extra.bytes` is what the entry holds (the answer's length), else the patch's.
   */
  set(config: object, key: string, result: CachedResult, extra: { replay?: Replay; at?: number; bytes?: number } = {}): void {
    const bytes = extra.bytes ?? (result.kind === 'injected' ? JSON.stringify(result.patch).length : 0);
    if (bytes > this.#maxBytes) return;
    let bucket = this.#buckets.get(config);
    if (bucket === undefined) {
      bucket = { entries: new Map(), bytes: 0, offsets: [] };
      this.#buckets.set(config, bucket);
    }
    if (bucket.entries.has(key)) return;
    const replay = extra.at !== undefined ? extra.replay : undefined;
    bucket.entries.set(key, replay !== undefined ? { result, bytes, replay } : { result, bytes });
    bucket.bytes += bytes;
    if (replay !== undefined && bucket.offsets[0] !== extra.at) {
      bucket.offsets = [extra.at!, ...bucket.offsets.filter((o) => o !== extra.at)].slice(0, MAX_OFFSETS);
    }
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
