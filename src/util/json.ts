/**
 * @module util/json
 * Small helpers for JSON-shaped data (what YAML/JSON parsing yields). Shared by every module so
 * equality and copying mean the same thing everywhere.
 */
import { setOwn } from './own.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** A plain data object: not null, not an array. (Prototype is not checked: JSON.parse objects qualify.) */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own-property lookup, immune to `__proto__` and inherited names. */
export function getOwn(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Structural equality of JSON values; object key order does not matter, array order does. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  for (const k of keys) {
    if (!Object.hasOwn(bo, k) || !deepEqual(ao[k], bo[k])) return false;
  }
  return true;
}

/**
 * Deep copy of JSON-shaped data. Objects get a null-free normal prototype but keys are copied
 * with `setOwn` so a `__proto__` key stays data.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = cloneJson((value as Record<string, unknown>)[k]);
    setOwn(out, k, v);
  }
  return out as T;
}

/**
 * About how many characters `JSON.stringify(value)` writes (escapes not counted), or Infinity as
 * soon as that passes `limit`: a walk that stops early, so sizing a pod with 2,000 environment
 * variables against a small limit reads a few hundred of them, and builds nothing. Recursive
 * with `for...in` (twice as fast as a stack of `Object.keys`); a value too deep for the stack
 * counts as past any limit.
 */
export function jsonLengthWithin(value: unknown, limit: number): number {
  let n = 0;
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      n += v.length + 3; // quotes and a separator
    } else if (typeof v === 'object' && v !== null) {
      n += 3; // brackets and a separator (an array of arrays has commas no string pays for)
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length && n <= limit; i++) walk(v[i]);
      } else {
        // Inherited enumerable keys (a polluted prototype) would only count too much.
        for (const k in v) {
          if (n > limit) return;
          n += k.length + 4;
          walk((v as Record<string, unknown>)[k]);
        }
      }
    } else {
      n += 6;
    }
  };
  try {
    walk(value);
  } catch (err) {
    if (err instanceof RangeError) return Infinity;
    throw err;
  }
  return n > limit ? Infinity : n;
}

/**
 * Freeze a JSON value and everything in it, so a value shared between requests (a loaded config,
 * a cached overlay, the mesh defaults) cannot be changed by one of them. `skip` leaves a node and
 * everything under it alone (a subtree known never to be written and too large to walk, or one
 * that is not data). Iterative: depth is not bounded here.
 */
export function deepFreeze<T>(value: T, skip?: (node: object) => boolean): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || skip?.(v) === true) continue;
    for (const item of Object.values(v)) stack.push(item);
    Object.freeze(v);
  }
  return value;
}
