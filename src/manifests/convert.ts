/**
 * @module manifests/convert
 * Turns what js-yaml built into plain JSON data, the way sigs.k8s.io/yaml would see it, and
 * enforces the safety limits. js-yaml shares one object between an anchor and its aliases and
 * even builds cycles (`&a [*a]`); this pass copies the graph into a tree (so code that edits one
 * pod template never edits another), refuses cycles, caps alias expansion with go-yaml's own
 * rule (billion laughs stops here, in bounded time and memory), caps depth, expands `<<` merge
 * keys with go-yaml's semantics, and replaces the special scalars of resolve.ts with JSON values.
 */
import type { JsonObject, JsonValue } from '../util/json.js';
import {
  BigIntScalar,
  FloatScalar,
  MERGE_KEY_PREFIX,
  MergeKey,
  NULL_KEY_MARKER,
  NullScalar,
  SpecialScalar,
} from './resolve.js';
import { setOwn } from './own.js';

/** Limits for one document. */
export interface ConvertLimits {
  /** Deepest nesting of mappings/sequences, counting alias and merge expansion. */
  readonly maxDepth: number;
}

export interface ConvertOptions {
  readonly limits: ConvertLimits;
  /**
   * When true (the default of readManifest), a key written before a `<<` merge that the merge then
   * overrides is an error: go-yaml (kubectl) takes the merged value there, while the YAML merge spec
   * and most other tools keep the written one, so the file means different things to different tools.
   */
  readonly strictMerge: boolean;
}

export interface ConvertResult {
  readonly value: JsonValue;
  /** Integer literals a JS number cannot hold exactly (their exact digits). */
  readonly inexactIntegers: string[];
}

/** A problem found while converting; `path` is where, from the document root. */
export class ConvertError extends Error {
  constructor(
    readonly code: 'SI_INPUT_YAML' | 'SI_INPUT_LIMIT',
    message: string,
    readonly path: Array<string | number> = [],
    /** The problem is a null key inside the mapping at `path` (for locating it). */
    readonly nullKey = false,
  ) {
    super(message);
  }
}

/** go-yaml v2's allowedAliasRatio: generous for small documents, 10 % past 4 million nodes. */
function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= 400_000) return 0.99;
  if (decodeCount >= 4_000_000) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - 400_000) / 3_600_000);
}

export function convertDocument(raw: unknown, options: ConvertOptions): ConvertResult {
  const walker = new Walker(options);
  const value = raw === undefined ? null : walker.value(raw, 0);
  return { value, inexactIntegers: walker.inexact };
}

class Walker {
  readonly inexact: string[] = [];
  private decodeCount = 0;
  private aliasCount = 0;
  private aliasDepth = 0;
  private readonly seen = new Set<object>();
  private readonly onPath = new Set<object>();

  constructor(private readonly options: ConvertOptions) {}

  value(v: unknown, depth: number): JsonValue {
    this.count();
    if (v === null || typeof v !== 'object') return v as string | number | boolean | null;
    if (v instanceof SpecialScalar) return this.special(v);
    if (depth >= this.options.limits.maxDepth) {
      throw new ConvertError('SI_INPUT_LIMIT', `nesting is deeper than ${this.options.limits.maxDepth} levels`);
    }
    if (this.onPath.has(v)) {
      throw new ConvertError('SI_INPUT_YAML', 'an anchor contains an alias to itself (the value would be infinite)');
    }
    // A second visit of the same object is an alias: count its nodes as go-yaml does.
    const alias = this.seen.has(v);
    if (alias) this.aliasDepth++;
    else this.seen.add(v);
    this.onPath.add(v);
    try {
      return Array.isArray(v) ? this.sequence(v, depth) : this.mapping(v as Record<string, unknown>, depth);
    } finally {
      this.onPath.delete(v);
      if (alias) this.aliasDepth--;
    }
  }

  private count(): void {
    this.decodeCount++;
    if (this.aliasDepth > 0) {
      this.aliasCount++;
      if (
        this.aliasCount > 100 &&
        this.decodeCount > 1000 &&
        this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)
      ) {
        throw new ConvertError(
          'SI_INPUT_LIMIT',
          'the document expands aliases (*name) excessively (a "billion laughs" YAML bomb?); Kubernetes refuses it too',
        );
      }
    }
  }

  private special(v: SpecialScalar): JsonValue {
    if (v instanceof NullScalar) return null;
    if (v instanceof MergeKey) return '<<'; // `<<` as a value is just text
    if (v instanceof BigIntScalar) {
      this.inexact.push(v.exact);
      return v.value;
    }
    if (v instanceof FloatScalar) {
      if (Number.isFinite(v.value)) return v.value;
      throw new ConvertError(
        'SI_INPUT_YAML',
        `${v.toString()} is not a number JSON can carry (Kubernetes rejects it); quote it if it is meant as text`,
      );
    }
    throw new ConvertError('SI_INPUT_YAML', 'unsupported scalar');
  }

  private sequence(items: unknown[], depth: number): JsonValue[] {
    const out: JsonValue[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      try {
        out[i] = this.value(items[i], depth + 1);
      } catch (e) {
        throw withPath(e, i);
      }
    }
    return out;
  }

  private mapping(obj: Record<string, unknown>, depth: number): JsonObject {
    const out: JsonObject = {};
    // Keys written so far; only tracked once the mapping turns out to have a merge.
    let written: Set<string> | null = null;
    for (const key of Object.keys(obj)) {
      const raw = obj[key];
      if (key.charCodeAt(0) === 0) {
        if (key.startsWith(MERGE_KEY_PREFIX)) {
          written ??= new Set(Object.keys(out));
          try {
            this.merge(out, raw, depth, written);
          } catch (e) {
            throw withPath(e, '<<');
          }
          continue;
        }
        if (key === NULL_KEY_MARKER) {
          throw new ConvertError('SI_INPUT_YAML', 'a mapping key is null (~); Kubernetes only accepts string keys', [], true);
        }
      }
      if (key === '[object Object]') {
        throw new ConvertError('SI_INPUT_YAML', 'a mapping key is itself a mapping or sequence; Kubernetes only accepts string keys');
      }
      this.count(); // the key node
      let v: JsonValue;
      try {
        v = this.value(raw, depth + 1);
      } catch (e) {
        throw withPath(e, key);
      }
      setOwn(out, key, v);
      written?.add(key);
    }
    return out;
  }

  /** go-yaml v2: a merged mapping overwrites what is set so far; in a list, earlier maps win. */
  private merge(out: JsonObject, raw: unknown, depth: number, written: Set<string>): void {
    const sources: unknown[] = Array.isArray(raw) ? [...raw].reverse() : [raw];
    for (const src of sources) {
      if (src === null || typeof src !== 'object' || Array.isArray(src) || src instanceof SpecialScalar) {
        throw new ConvertError('SI_INPUT_YAML', 'a merge key (<<) needs a mapping or a list of mappings as its value');
      }
    }
    for (const src of sources) {
      const merged = this.value(src, depth + 1) as JsonObject;
      for (const k of Object.keys(merged)) {
        if (this.options.strictMerge && written.has(k)) {
          throw new ConvertError(
            'SI_INPUT_YAML',
            `key "${k}" is written before the merge key (<<) that also sets it: kubectl takes the merged value, ` +
              'most other YAML tools the written one; put "<<" first so every tool reads the same value',
          );
        }
        setOwn(out, k, merged[k]);
      }
    }
  }
}

function withPath(e: unknown, segment: string | number): unknown {
  if (e instanceof ConvertError) e.path.unshift(segment);
  return e;
}
