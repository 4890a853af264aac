/**
 * @module patch/smp-directives
 * The strategic-merge directive vocabulary (`$patch`, `$retainKeys`, `$setElementOrder/`,
 * `$deleteFromPrimitiveList/`), the merge error constructor, and `takeNew`: what a patch value
 * becomes when there is nothing to merge it into.
 *
 * `takeNew` follows current apimachinery (`discardNullValuesFromPatch` then `removeDirectives`):
 * nulls are dropped, and a map carrying `$patch` is dropped with everything in it. We also drop
 * the other directive keys (`$retainKeys`, ...) because Kubernetes' typed decode drops them
 * (they are not Pod fields); leaving them in would make the pod invalid for us only.
 */
import { InjectionError } from '../errors.js';
import { joinIndex, joinKey, kindOf, MAX_DEPTH, showPath, tooDeep } from './values.js';
import { setOwn } from '../util/own.js';
import { describeValue } from '../util/describe.js';

export const DIRECTIVE = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const SET_ELEMENT_ORDER = '$setElementOrder';
export const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';

/** True for the keys that are instructions to the merge, never data. */
function isDirectiveKey(key: string): boolean {
  return key === DIRECTIVE || key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER) || key.startsWith(DELETE_FROM_PRIMITIVE_LIST);
}

/**
 * A merge failure at `path`, relative to the pod: `spec.containers[name="istio-proxy"].env[2]`
 * (matched items are named by their merge key, other items by their index in the overlay or pod
 * list, as the message says). The message says what to change.
 */
export function mergeError(path: string, message: string): InjectionError {
  return new InjectionError('SI_INJECT_MERGE', `strategic merge failed at ${showPath(path)}: ${message}`, {
    details: { path },
  });
}

export interface Taken {
  keep: boolean;
  value: unknown;
}

const DROP: Taken = { keep: false, value: undefined };

/**
 * A fresh copy of a patch value that has no counterpart in the original: nulls discarded,
 * directive maps removed. `keep: false` means the value itself was a directive map.
 * `ignoreOwnDirective` is for `$patch: replace`, whose body is taken without the marker.
 */
export function takeNew(value: unknown, path: string | (() => string), depth: number, ignoreOwnDirective = false): Taken {
  // Every overlay node passes through here, and paths are only for error messages: copy without
  // them first (the path may be given as a function, called only then), and walk again with
  // paths only to report the error the fast copy ran into.
  const copy = cleanCopy(value, depth, ignoreOwnDirective);
  if (copy === DROPPED) return DROP;
  if (copy !== INVALID) return { keep: true, value: copy };
  return takeWithPaths(value, typeof path === 'string' ? path : path(), depth, ignoreOwnDirective);
}

const DROPPED = Symbol('dropped');
const INVALID = Symbol('invalid');

/** takeNew without paths: the same copy, DROPPED for a directive map, INVALID where takeWithPaths throws. */
function cleanCopy(value: unknown, depth: number, ignoreOwnDirective: boolean): unknown {
  if (depth > MAX_DEPTH) return INVALID;
  if (typeof value !== 'object' || value === null) return kindOf(value) === 'invalid' ? INVALID : value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      const t = cleanCopy(value[i], depth + 1, false);
      if (t === INVALID) return INVALID;
      if (t !== DROPPED) out.push(t);
    }
    return out;
  }
  if (kindOf(value) !== 'object') return INVALID;
  const src = value as Record<string, unknown>;
  if (!ignoreOwnDirective && Object.hasOwn(src, DIRECTIVE)) return DROPPED;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(src)) {
    const v = src[k];
    if (v === null || v === undefined || (k.charCodeAt(0) === 36 /* $ */ && isDirectiveKey(k))) continue;
    const t = cleanCopy(v, depth + 1, false);
    if (t === INVALID) return INVALID;
    if (t !== DROPPED) setOwn(out, k, t);
  }
  return out;
}

/** The reference walk, with paths: it throws the error for the first bad node (exported for the test that holds takeNew to it). */
export function takeWithPaths(value: unknown, path: string, depth: number, ignoreOwnDirective = false): Taken {
  if (depth > MAX_DEPTH) throw tooDeep(path, 'the overlay');
  const kind = kindOf(value);
  if (kind === 'array') {
    const src = value as unknown[];
    const out: unknown[] = [];
    for (let i = 0; i < src.length; i++) {
      const t = takeWithPaths(src[i], joinIndex(path, i), depth + 1);
      if (t.keep) out.push(t.value);
    }
    return { keep: true, value: out };
  }
  if (kind === 'object') {
    const src = value as Record<string, unknown>;
    if (!ignoreOwnDirective && Object.hasOwn(src, DIRECTIVE)) return DROP;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(src)) {
      const v = src[k];
      if (v === null || v === undefined || isDirectiveKey(k)) continue;
      const t = takeWithPaths(v, joinKey(path, k), depth + 1);
      if (t.keep) setOwn(out, k, t.value);
    }
    return { keep: true, value: out };
  }
  if (kind === 'invalid') {
    throw mergeError(path, `the overlay holds ${describeValue(value)}, which is not JSON data`);
  }
  return { keep: true, value };
}
