/**
 * @module patch/json-patch-diff
 * RFC 6902 patch generation: the operations that turn the pod *exactly as received* into the
 * injected pod. This runs for every pod the webhook admits, so it is near-linear:
 *
 * - objects: keys compared one by one; a missing or `null` parent is added whole
 *   (`add /metadata/annotations {...}`), never through a child path (kubernetes#90623);
 * - arrays: common prefix and suffix are skipped (deep equality); in the middle, items that keep
 *   their identity (same `name`, or same scalar) are matched in order with a longest-increasing-
 *   subsequence pass (O(n log n)), recursed into for small diffs; the rest are removed (highest
 *   index first, so indexes stay valid) and added at their final index (`-` when appending).
 *   Prepending a sidecar is one `add /spec/containers/0`, whatever else the list holds.
 *
 * Operations carry values from `modified` by reference (no copies); serialize them, or clone
 * before mutating either side.
 */
import type { JsonPatchOperation } from './types.js';
import { InjectionError } from '../errors.js';
import { deepEqual } from '../util/json.js';
import { escapePointerToken } from './json-pointer.js';
import { kindOf, MAX_DEPTH, tooDeep } from './values.js';
import { describeValue } from '../util/describe.js';

type Obj = Record<string, unknown>;

/** Operations that transform `original` into `modified`. Empty when they are equal. */
export function createPatch(original: unknown, modified: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  diffValue(original, modified, '', ops, 0);
  return ops;
}

function diffValue(a: unknown, b: unknown, path: string, ops: JsonPatchOperation[], depth: number): void {
  if (a === b) return;
  if (depth > MAX_DEPTH) throw tooDeep(path, 'the document');
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (kb === 'invalid') throw notJson(path, b);
  if (ka === 'object' && kb === 'object') return diffObject(a as Obj, b as Obj, path, ops, depth);
  if (ka === 'array' && kb === 'array') return diffArray(a as unknown[], b as unknown[], path, ops, depth);
  assertJson(b, path, depth);
  // A scalar changed, or the type did. `add` over a null member is what evanphx/json-patch (the
  // apiserver's applier) handles best; `replace` otherwise.
  ops.push({ op: ka === 'null' && path !== '' ? 'add' : 'replace', path, value: b });
}

function diffObject(a: Obj, b: Obj, path: string, ops: JsonPatchOperation[], depth: number): void {
  for (const k of Object.keys(a)) {
    if (a[k] !== undefined && (!Object.hasOwn(b, k) || b[k] === undefined)) {
      ops.push({ op: 'remove', path: path + '/' + escapePointerToken(k) });
    }
  }
  for (const k of Object.keys(b)) {
    const bv = b[k];
    if (bv === undefined) continue; // absent once serialized
    if (a[k] === bv && Object.hasOwn(a, k)) continue; // the same subtree (shared): nothing changed
    const child = path + '/' + escapePointerToken(k);
    if (!Object.hasOwn(a, k) || a[k] === undefined) {
      assertJson(bv, child, depth + 1);
      ops.push({ op: 'add', path: child, value: bv });
    } else {
      diffValue(a[k], bv, child, ops, depth + 1);
    }
  }
}

function diffArray(a: unknown[], b: unknown[], path: string, ops: JsonPatchOperation[], depth: number): void {
  // Common prefix and suffix by deep equality (identity first, inside deepEqual).
  let start = 0;
  const minLen = Math.min(a.length, b.length);
  while (start < minLen && deepEqual(a[start], b[start])) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && deepEqual(a[endA - 1], b[endB - 1])) {
    endA--;
    endB--;
  }
  const nA = endA - start;
  const nB = endB - start;
  if (nA === 0 && nB === 0) return;

  // Same length and every pair keeps its identity: edit in place, item by item.
  if (nA === nB) {
    let aligned = true;
    for (let i = start; i < endA && aligned; i++) aligned = sameIdentity(a[i], b[i]);
    if (aligned) {
      for (let i = start; i < endA; i++) diffItem(a[i], b[i], path + '/' + i, ops, depth);
      return;
    }
  }

  // Match items that keep their identity, in order (LIS over positions in `a`).
  const keep = matchInOrder(a, b, start, endA, endB);
  const keptA = new Set<number>();
  for (const [ia] of keep) keptA.add(ia);
  for (let i = endA - 1; i >= start; i--) {
    if (!keptA.has(i)) ops.push({ op: 'remove', path: path + '/' + i });
  }
  let length = a.length - (nA - keptA.size);
  let next = 0; // next pair in `keep`
  for (let j = start; j < endB; j++) {
    if (next < keep.length && keep[next][1] === j) {
      diffItem(a[keep[next][0]], b[j], path + '/' + j, ops, depth);
      next++;
    } else {
      assertJson(b[j], path + '/' + j, depth + 1);
      ops.push({ op: 'add', path: path + '/' + (j === length ? '-' : j), value: b[j] });
      length++;
    }
  }
}

/** Recurse into a pair that keeps its identity; a pair that differs entirely is one `replace`. */
function diffItem(a: unknown, b: unknown, path: string, ops: JsonPatchOperation[], depth: number): void {
  if (a === b) return;
  const ka = kindOf(a);
  if (ka === kindOf(b) && (ka === 'object' || ka === 'array')) {
    diffValue(a, b, path, ops, depth + 1);
    return;
  }
  if (deepEqual(a, b)) return;
  assertJson(b, path, depth + 1);
  ops.push({ op: 'replace', path, value: b });
}

/** Two array items are "the same thing": both maps with the same `name` (or both without), or equal scalars. */
function sameIdentity(a: unknown, b: unknown): boolean {
  const ka = kindOf(a);
  if (ka !== kindOf(b)) return false;
  if (ka === 'object') {
    const na = nameOf(a as Obj);
    return na === nameOf(b as Obj);
  }
  if (ka === 'array') return true;
  return a === b;
}

function nameOf(o: Obj): unknown {
  return Object.hasOwn(o, 'name') ? o.name : undefined;
}

/**
 * Identity key of an item for matching: named maps by name, scalars by value; other items match
 * only when deeply equal (keyed by their JSON, a deliberate cost paid only in a changed middle).
 */
function identityKey(v: unknown): string {
  const k = kindOf(v);
  if (k === 'object') {
    const n = nameOf(v as Obj);
    if (typeof n === 'string') return 'name:' + n;
    return 'json:' + JSON.stringify(v);
  }
  if (k === 'array') return 'json:' + JSON.stringify(v);
  return k + ':' + String(v);
}

/**
 * Pairs `[indexInA, indexInB]` of items kept in place, increasing in both coordinates: each item
 * of `b` is paired with the first unused item of `a` with the same identity, then the longest
 * increasing run of those `a` positions is kept (patience sorting, O(n log n)).
 */
function matchInOrder(a: unknown[], b: unknown[], start: number, endA: number, endB: number): Array<[number, number]> {
  const queues = new Map<string, { at: number[]; next: number }>();
  for (let i = start; i < endA; i++) {
    const key = identityKey(a[i]);
    const q = queues.get(key);
    if (q) q.at.push(i);
    else queues.set(key, { at: [i], next: 0 });
  }
  const candA: number[] = [];
  const candB: number[] = [];
  for (let j = start; j < endB; j++) {
    const q = queues.get(identityKey(b[j]));
    if (q && q.next < q.at.length) {
      candA.push(q.at[q.next++]);
      candB.push(j);
    }
  }
  // Longest strictly increasing subsequence of candA.
  const tails: number[] = []; // index into cand of the smallest tail of each length
  const prev: number[] = new Array<number>(candA.length).fill(-1);
  for (let c = 0; c < candA.length; c++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (candA[tails[mid]] < candA[c]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[c] = tails[lo - 1];
    tails[lo] = c;
  }
  const out: Array<[number, number]> = new Array(tails.length);
  for (let c = tails.length > 0 ? tails[tails.length - 1] : -1, n = tails.length - 1; c >= 0; c = prev[c], n--) {
    out[n] = [candA[c], candB[c]];
  }
  return out;
}

/**
 * Values we put into operations must survive JSON serialization unchanged. Every added node
 * passes here and paths are only for the error: check without them, and walk again with paths
 * only to report what the check ran into.
 */
function assertJson(v: unknown, path: string, depth: number): void {
  if (!isJsonTree(v, depth)) assertJsonWithPaths(v, path, depth);
}

/** Whether assertJsonWithPaths would pass `v`. */
function isJsonTree(v: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  const k = kindOf(v);
  if (k === 'invalid') return false;
  if (k === 'array') {
    const arr = v as unknown[];
    for (let i = 0; i < arr.length; i++) if (!isJsonTree(arr[i], depth + 1)) return false;
  } else if (k === 'object') {
    const o = v as Obj;
    for (const key of Object.keys(o)) if (o[key] !== undefined && !isJsonTree(o[key], depth + 1)) return false;
  }
  return true;
}

function assertJsonWithPaths(v: unknown, path: string, depth: number): void {
  if (depth > MAX_DEPTH) throw tooDeep(path, 'the document');
  const k = kindOf(v);
  if (k === 'invalid') throw notJson(path, v);
  if (k === 'array') {
    const arr = v as unknown[];
    for (let i = 0; i < arr.length; i++) assertJsonWithPaths(arr[i], path + '/' + i, depth + 1);
  } else if (k === 'object') {
    const o = v as Obj;
    for (const key of Object.keys(o)) if (o[key] !== undefined) assertJsonWithPaths(o[key], path + '/' + escapePointerToken(key), depth + 1);
  }
}

function notJson(path: string, v: unknown): InjectionError {
  return new InjectionError('SI_PATCH', `cannot build the JSON patch: the value at "${path}" is ${describeValue(v)}, which is not JSON data`, {
    details: { path },
  });
}
