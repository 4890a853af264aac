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
export function isDirectiveKey(key: string): boolean {
  return (
    key === DIRECTIVE ||
    key === RETAIN_KEYS ||
    key.startsWith(SET_ELEMENT_ORDER) ||
    key.startsWith(DELETE_FROM_PRIMITIVE_LIST)
  );
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
export function takeNew(value: unknown, path: string, depth: number, ignoreOwnDirective = false): Taken {
  if (depth > MAX_DEPTH) throw tooDeep(path, 'the overlay');
  const kind = kindOf(value);
  if (kind === 'array') {
    const src = value as unknown[];
    const out: unknown[] = [];
    for (let i = 0; i < src.length; i++) {
      const t = takeNew(src[i], joinIndex(path, i), depth + 1);
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
      const t = takeNew(v, joinKey(path, k), depth + 1);
      if (t.keep) setOwn(out, k, t.value);
    }
    return { keep: true, value: out };
  }
  if (kind === 'invalid') {
    throw mergeError(path, `the overlay holds ${describeValue(value)}, which is not JSON data`);
  }
  return { keep: true, value };
}
