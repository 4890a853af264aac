/**
 * @module template/funcs/dicts
 * Sprig's dictionary functions over `map[string]interface {}`. `set`/`unset`/`merge` mutate
 * their first argument and return it, as in Go (templates rely on `$_ := set $d "k" v`).
 * `merge`/`mergeOverwrite` reproduce imdario/mergo v0.3.12's rules, quirks included: nested maps
 * merge in place, a non-empty destination is never replaced by a source map or list, and with
 * overwrite an empty or nil source value still replaces the destination.
 */
import {
  goFunc,
  GoFuncError,
  GoNumber,
  goTypeName,
  INTERFACE,
  isGoObject,
  MAP_OF_INTERFACE,
  newGoMap,
  taggedGoType,
  withGoType,
  type FuncMap,
} from '../value.js';
import { ifaceResult, isEmpty, isGoMap, isNil, strval } from './coerce.js';
import { stringSlice } from './string-lists.js';
import { isNilContainer, nilMap } from './nil.js';
import { setOwn } from '../../util/own.js';

export function hasOwn(m: Record<string, unknown> | null, key: string): boolean {
  return m !== null && Object.hasOwn(m, key);
}

function get(d: Record<string, unknown> | null, key: string): unknown {
  return hasOwn(d, key) ? ifaceResult((d as Record<string, unknown>)[key]) : '';
}

/**
 * Maps shared by every render (the mesh config's messages) are frozen: in Go they are typed
 * proto messages that `set` refuses, and here a write would reach later pods.
 */
function assertWritable(d: Record<string, unknown>): void {
  if (Object.isFrozen(d))
    throw new GoFuncError(
      'this map is read-only configuration data shared by every pod (in Go a typed message, not a map[string]interface {}); copy it with deepCopy before changing it',
    );
}

function set(d: Record<string, unknown> | null, key: string, value: unknown): Record<string, unknown> {
  if (d === null || isNilContainer(d)) throw new GoFuncError('assignment to entry in nil map');
  assertWritable(d);
  setOwn(d, key, value);
  return d;
}

function unset(d: Record<string, unknown> | null, key: string): Record<string, unknown> {
  if (d === null) return nilMap();
  if (!isNilContainer(d)) {
    assertWritable(d);
    delete d[key];
  }
  return d;
}

function pluck(key: string, ...dicts: (Record<string, unknown> | null)[]): unknown[] {
  const res: unknown[] = [];
  for (const d of dicts) if (hasOwn(d, key)) res.push((d as Record<string, unknown>)[key]);
  return res;
}

function keys(...dicts: (Record<string, unknown> | null)[]): string[] {
  const k: string[] = [];
  for (const d of dicts) if (d !== null) k.push(...Object.keys(d));
  return stringSlice(k);
}

function pick(dict: Record<string, unknown> | null, ...ks: string[]): Record<string, unknown> {
  const res = newGoMap();
  for (const k of ks) if (hasOwn(dict, k)) setOwn(res, k, (dict as Record<string, unknown>)[k]);
  return res;
}

function omit(dict: Record<string, unknown> | null, ...ks: string[]): Record<string, unknown> {
  const res = newGoMap();
  if (dict === null) return res;
  const drop = new Set(ks);
  for (const k of Object.keys(dict)) if (!drop.has(k)) setOwn(res, k, dict[k]);
  return res;
}

function dict(...v: unknown[]): Record<string, unknown> {
  const d = newGoMap();
  for (let i = 0; i < v.length; i += 2) {
    const key = strval(v[i] === undefined ? null : v[i]);
    setOwn(d, key, i + 1 >= v.length ? '' : v[i + 1]);
  }
  return d;
}

function values(d: Record<string, unknown> | null): unknown[] {
  return d === null ? [] : Object.keys(d).map((k) => d[k]);
}

/** mergo's view of a value's reflect kind, for the cases its map merge distinguishes. */
function mergeKind(v: unknown): 'map' | 'slice' | 'struct' | 'other' {
  if (Array.isArray(v)) return 'slice';
  if (isGoObject(v)) return 'struct';
  if (isGoMap(v)) return 'map';
  return 'other';
}

/** mergo.deepMerge for two maps (dst is modified). */
function mergoMergeMaps(dst: Record<string, unknown>, src: Record<string, unknown>, overwrite: boolean): void {
  assertWritable(dst);
  for (const key of Object.keys(src)) {
    const srcEl = src[key];
    const dstHas = Object.hasOwn(dst, key);
    const dstEl = dstHas ? dst[key] : undefined;
    if (isNil(srcEl)) {
      if (overwrite) setOwn(dst, key, null);
      continue;
    }
    const kind = mergeKind(srcEl);
    if (kind === 'map') {
      // Only a plain map destination merges recursively (and in place, as maps are references).
      if (dstHas && isGoMap(dstEl) && !isNilContainer(dstEl) && (taggedGoType(dstEl) ?? MAP_OF_INTERFACE) === MAP_OF_INTERFACE) {
        mergoMergeMaps(dstEl, srcEl as Record<string, unknown>, overwrite);
      }
    } else if (kind === 'slice') {
      let replacement: unknown = !dstHas || isNil(dstEl) ? [] : dstEl;
      if (overwrite || Object.keys(dst).length === 0) replacement = srcEl;
      setOwn(dst, key, replacement);
    }
    if (dstHas && !isEmpty(dstEl) && (kind === 'map' || kind === 'slice')) continue;
    if (overwrite || !dstHas || isEmpty(dstEl)) setOwn(dst, key, srcEl);
  }
}

function mergeWith(overwrite: boolean) {
  return (dst: Record<string, unknown> | null, ...srcs: (Record<string, unknown> | null)[]): unknown => {
    // mergo replaces a nil destination with a new map once a non-nil source comes along.
    let target = dst === null || isNilContainer(dst) ? null : dst;
    for (const src of srcs) {
      if (src === null || isNilContainer(src)) continue;
      if (target === null) target = newGoMap();
      mergoMergeMaps(target, src, overwrite);
    }
    return target ?? nilMap();
  };
}

/** copystructure.Copy over the value model: fresh maps and slices with the same Go types. */
function deepCopyValue(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || v instanceof GoNumber || isGoObject(v) || isNilContainer(v)) return v;
  const tag = taggedGoType(v);
  if (Array.isArray(v)) {
    const out = v.map(deepCopyValue);
    return tag === undefined ? out : withGoType(out, tag);
  }
  if (!isGoMap(v)) return v;
  const out = newGoMap(tag);
  for (const k of Object.keys(v)) setOwn(out, k, deepCopyValue(v[k]));
  return out;
}

function deepCopy(v: unknown): unknown {
  if (v === undefined || v === null) throw new GoFuncError('reflect: call of reflect.Value.Type on zero Value');
  return deepCopyValue(v);
}

function conversionError(v: unknown, want: string): GoFuncError {
  const got = isNil(v) ? 'nil' : goTypeName(v);
  return new GoFuncError(`interface conversion: interface {} is ${got}, not ${want}`);
}

function asPlainMap(v: unknown): Record<string, unknown> {
  if (isGoMap(v) && taggedGoType(v) === undefined) return v;
  throw conversionError(v, MAP_OF_INTERFACE);
}

function dig(...ps: unknown[]): unknown {
  if (ps.length < 3) throw new GoFuncError('dig needs at least three arguments');
  let d = asPlainMap(ps[ps.length - 1]);
  const def = ps[ps.length - 2];
  const ks = ps.slice(0, -2).map((k) => {
    if (typeof k !== 'string') throw conversionError(k, 'string');
    return k;
  });
  for (let i = 0; ; i++) {
    if (!Object.hasOwn(d, ks[i])) return ifaceResult(def);
    const step = d[ks[i]];
    if (i === ks.length - 1) return ifaceResult(step);
    d = asPlainMap(step);
  }
}

const M = MAP_OF_INTERFACE;
const S = 'string';

export const dictFuncs: FuncMap = {
  dict: goFunc([], dict, INTERFACE),
  get: goFunc([M, S], get),
  set: goFunc([M, S, INTERFACE], set),
  unset: goFunc([M, S], unset),
  hasKey: goFunc([M, S], (d: Record<string, unknown> | null, key: string) => hasOwn(d, key)),
  pluck: goFunc([S], pluck, M),
  keys: goFunc([], keys, M),
  pick: goFunc([M], pick, S),
  omit: goFunc([M], omit, S),
  merge: goFunc([M], mergeWith(false), M),
  mustMerge: goFunc([M], mergeWith(false), M),
  mergeOverwrite: goFunc([M], mergeWith(true), M),
  mustMergeOverwrite: goFunc([M], mergeWith(true), M),
  values: goFunc([M], values),
  deepCopy: goFunc([INTERFACE], deepCopy),
  mustDeepCopy: goFunc([INTERFACE], deepCopy),
  dig: goFunc([], dig, INTERFACE),
};
