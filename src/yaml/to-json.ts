/**
 * @module yaml/to-json
 * Turns what js-yaml built into plain JSON data, the way sigs.k8s.io/yaml would see it, and
 * enforces the safety limits. js-yaml shares one object between an anchor and its aliases and
 * even builds cycles (`&a [*a]`); this pass turns the graph into a tree (converting in place on
 * first use and copying every alias use, so code that edits one pod template never edits
 * another), refuses cycles, caps alias expansion with go-yaml's own
 * rule (billion laughs stops here, in bounded time and memory), caps depth, expands `<<` merge
 * keys with go-yaml's semantics, and replaces the special scalars of resolve.ts with JSON values.
 */
import type { JsonObject, JsonValue } from '../util/json.js';
import { BigIntScalar, FloatScalar, MERGE_KEY_PREFIX, MergeKey, NULL_KEY_MARKER, NullScalar, SpecialScalar } from './resolve.js';
import { setOwn } from '../util/own.js';

/** Limits for one document. */
interface ConvertLimits {
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
  /**
   * False when the source has no anchor (no `&`): then no object can be shared or cyclic and the
   * bookkeeping for aliases is skipped. Default true.
   */
  readonly mayShare?: boolean;
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

const IN_PROGRESS = Symbol('in progress');

class Walker {
  readonly inexact: string[] = [];
  private decodeCount = 0;
  private aliasCount = 0;
  private aliasDepth = 0;
  /** js-yaml object -> its converted value (the same object unless it held merge keys), or IN_PROGRESS. */
  private readonly converted = new Map<object, JsonValue | typeof IN_PROGRESS>();
  private readonly mayShare: boolean;

  constructor(private readonly options: ConvertOptions) {
    this.mayShare = options.mayShare ?? true;
  }

  value(v: unknown, depth: number): JsonValue {
    this.count();
    if (v === null || typeof v !== 'object') return v as string | number | boolean | null;
    if (v instanceof SpecialScalar) return this.special(v);
    if (depth >= this.options.limits.maxDepth) throw this.tooDeep();
    if (!this.mayShare) return Array.isArray(v) ? this.sequence(v, depth) : this.mapping(v as Record<string, unknown>, depth);
    const done = this.converted.get(v);
    if (done === IN_PROGRESS) {
      throw new ConvertError('SI_INPUT_YAML', 'an anchor contains an alias to itself (the value would be infinite)');
    }
    if (done !== undefined) {
      // A second use of the same object is an alias: a copy, counted as go-yaml counts it.
      this.aliasDepth++;
      try {
        return this.copy(done, depth, true);
      } finally {
        this.aliasDepth--;
      }
    }
    // First use: convert in place (js-yaml built fresh objects), so most data is not copied.
    this.converted.set(v, IN_PROGRESS);
    const out = Array.isArray(v) ? this.sequence(v, depth) : this.mapping(v as Record<string, unknown>, depth);
    this.converted.set(v, out);
    return out;
  }

  private tooDeep(): ConvertError {
    return new ConvertError('SI_INPUT_LIMIT', `nesting is deeper than ${this.options.limits.maxDepth} levels`);
  }

  private count(): void {
    this.decodeCount++;
    if (this.aliasDepth > 0) {
      this.aliasCount++;
      if (this.aliasCount > 100 && this.decodeCount > 1000 && this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)) {
        throw new ConvertError('SI_INPUT_LIMIT', 'the document expands aliases (*name) excessively (a "billion laughs" YAML bomb?); Kubernetes refuses it too');
      }
    }
  }

  /** A deep copy of converted data, counting every node and checking depth (`root`: already counted). */
  private copy(v: JsonValue, depth: number, root = false): JsonValue {
    if (!root) this.count();
    if (v === null || typeof v !== 'object') return v;
    if (depth >= this.options.limits.maxDepth) throw this.tooDeep();
    if (Array.isArray(v)) {
      const out: JsonValue[] = new Array(v.length);
      for (let i = 0; i < v.length; i++) out[i] = this.copy(v[i], depth + 1);
      return out;
    }
    const out: JsonObject = {};
    for (const k of Object.keys(v)) {
      this.count(); // the key node
      setOwn(out, k, this.copy(v[k], depth + 1));
    }
    return out;
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
      throw new ConvertError('SI_INPUT_YAML', `${v.toString()} is not a number JSON can carry (Kubernetes rejects it); quote it if it is meant as text`);
    }
    throw new ConvertError('SI_INPUT_YAML', 'unsupported scalar');
  }

  private sequence(items: unknown[], depth: number): JsonValue[] {
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (item === null || typeof item !== 'object') {
        this.count();
        continue;
      }
      try {
        items[i] = this.value(item, depth + 1);
      } catch (e) {
        throw withPath(e, i);
      }
    }
    return items as JsonValue[];
  }

  private mapping(obj: Record<string, unknown>, depth: number): JsonObject {
    const keys = Object.keys(obj);
    for (const key of keys) {
      if (key.charCodeAt(0) === 0 || key === '[object Object]') return this.rebuild(obj, keys, depth);
    }
    for (const key of keys) {
      this.count(); // the key node
      const raw = obj[key];
      if (raw === null || typeof raw !== 'object') {
        this.count();
        continue;
      }
      try {
        obj[key] = this.value(raw, depth + 1); // an own `__proto__` key is a plain data property here
      } catch (e) {
        throw withPath(e, key);
      }
    }
    return obj as JsonObject;
  }

  /** A mapping with merge keys (or bad keys): built anew, in key order, with go-yaml's merge rules. */
  private rebuild(obj: Record<string, unknown>, keys: string[], depth: number): JsonObject {
    const out: JsonObject = {};
    // Keys written so far; only tracked once the mapping turns out to have a merge.
    let written: Set<string> | null = null;
    for (const key of keys) {
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
      // A fresh value: an alias use is copied, an inline mapping is used only here.
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
