/**
 * @module patch/smp-list
 * Strategic merge of lists, in the exact order Kubernetes' `mergeSlice` produces (Istio's
 * goldens depend on it):
 *
 * 1. `$patch: delete` elements remove matching items; a `{$patch: replace}` element makes the
 *    other patch elements the whole list.
 * 2. Patch elements whose key exists are merged in place; others are appended.
 * 3. The result is then reordered (`normalizeElementOrder`): items named by the patch are put in
 *    patch order, the rest ("server-only") keep their original order, and the two runs are
 *    interleaved: a server-only item goes first only if it stood before the next patch item in
 *    the original list. So a *new* item lands before the server-only items that follow the
 *    previous patch item, e.g. original `[a, b]` + patch `[c]` gives `[c, a, b]`.
 *
 * Unlike Go (which scans lists for every lookup), lookups use maps: O(n log n) overall.
 */
import { cloneJson, getOwn } from '../util/json.js';
import { DIRECTIVE, mergeError, takeNew } from './smp-directives.js';
import { isScalar, joinIndex, kindOf } from './values.js';
import { describeValue } from '../util/describe.js';

type Obj = Record<string, unknown>;
type Scalar = string | number | boolean;

/** Merges one matched element (the caller knows the element schema). Returns a fresh object. */
export type ElementMerger = (original: Obj, patch: Obj, path: string) => Obj;

/**
 * A list merged by `mergeKey` (containers by name, volumeMounts by mountPath, ...). Returns a fresh
 * list; the original's items the patch does not touch are copied, or shared when `share`.
 */
export function mergeKeyedList(
  original: readonly unknown[],
  patch: readonly unknown[],
  mergeKey: string,
  mergeElement: ElementMerger,
  path: string,
  depth: number,
  share = false,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return [];
  for (let i = 0; i < original.length; i++) {
    if (kindOf(original[i]) !== 'object') {
      throw mergeError(joinIndex(path, i), `the pod's list item is ${describeValue(original[i])}, but this list holds maps merged by "${mergeKey}"`);
    }
  }

  // 1. Directive elements.
  const plain: Obj[] = [];
  const deleteKeys = new Set<Scalar>();
  let replace = false;
  for (let i = 0; i < patch.length; i++) {
    const el = patch[i];
    const at = joinIndex(path, i);
    if (kindOf(el) !== 'object') {
      throw mergeError(at, `the overlay's list item is ${describeValue(el)}, but this list holds maps merged by "${mergeKey}"`);
    }
    const item = el as Obj;
    const directive = getOwn(item, DIRECTIVE);
    if (directive === undefined) {
      plain.push(item);
    } else if (directive === 'delete') {
      deleteKeys.add(patchKeyOf(item, mergeKey, at));
    } else if (directive === 'replace') {
      // Kubernetes drops such an element's other fields silently and empties the list around
      // it; an element that also carries data is almost certainly a mistake, so say so.
      if (Object.keys(item).some((k) => k !== DIRECTIVE)) {
        throw mergeError(
          at,
          `a list item with "$patch: replace" replaces the whole list with the other items, and its own fields would be ignored; ` +
            `use a separate "- $patch: replace" item, or "$patch: delete" plus a new item to replace one element`,
        );
      }
      replace = true;
    } else if (directive === 'merge') {
      throw mergeError(at, `"$patch: merge" is not supported on list items (Kubernetes rejects it too); remove it`);
    } else {
      throw mergeError(at, `unknown directive "$patch: ${String(directive)}"; use replace or delete`);
    }
  }

  if (replace) {
    const out: unknown[] = [];
    for (let i = 0; i < plain.length; i++) {
      patchKeyOf(plain[i], mergeKey, joinIndex(path, i));
      out.push(takeNew(plain[i], joinIndex(path, i), depth + 1).value);
    }
    return out;
  }

  const base = deleteKeys.size === 0 ? original.slice() : original.filter((el) => !deleteKeys.has(getOwn(el as Obj, mergeKey) as Scalar));

  // 2. Merge in place or append. `fresh[i]` marks items already copied.
  const merged: unknown[] = base.slice();
  const fresh: boolean[] = new Array<boolean>(merged.length).fill(false);
  const where = new Map<unknown, number>();
  for (let i = 0; i < merged.length; i++) {
    const k = getOwn(merged[i] as Obj, mergeKey);
    if (k !== undefined && !where.has(k)) where.set(k, i);
  }
  const patchPos = new Map<unknown, number>();
  for (let i = 0; i < plain.length; i++) {
    const key = patchKeyOf(plain[i], mergeKey, joinIndex(path, i));
    if (!patchPos.has(key)) patchPos.set(key, i);
    const at = where.get(key);
    if (at !== undefined) {
      // Name the item by its key: clearer than an index that differs between pod and overlay.
      merged[at] = mergeElement(merged[at] as Obj, plain[i], `${path}[${mergeKey}=${JSON.stringify(key)}]`);
      fresh[at] = true;
    } else {
      where.set(key, merged.length);
      merged.push(takeNew(plain[i], joinIndex(path, i), depth + 1).value);
      fresh.push(true);
    }
  }

  // 3. Reorder like normalizeElementOrder. Every item must carry a scalar key here (Go errors too).
  const keys: Scalar[] = merged.map((el, i) => podKeyOf(el as Obj, mergeKey, joinIndex(path, i)));
  const basePos = new Map<unknown, number>();
  for (let i = 0; i < base.length; i++) if (!basePos.has(keys[i])) basePos.set(keys[i], i);
  const order = interleave(
    merged.length,
    (i) => patchPos.has(keys[i]),
    (i) => patchPos.get(keys[i]),
    (i) => basePos.get(keys[i]),
  );
  return order.map((i) => (fresh[i] || share ? merged[i] : cloneJson(merged[i])));
}

/** A list of scalars with `patchStrategy: merge` (finalizers): a set union, Kubernetes-ordered. */
export function mergeScalarSet(original: readonly unknown[], patch: readonly unknown[], path: string): unknown[] {
  if (original.length === 0 && patch.length === 0) return [];
  assertScalars(original, patch, path);
  const merged = [...new Set<unknown>([...original, ...patch])];
  const patchPos = firstPositions(patch);
  const basePos = firstPositions(original);
  const order = interleave(
    merged.length,
    (i) => patchPos.has(merged[i]),
    (i) => patchPos.get(merged[i]),
    (i) => basePos.get(merged[i]),
  );
  return order.map((i) => merged[i]);
}

/** `$deleteFromPrimitiveList/<field>`: drop every listed value (Kubernetes does this for any list strategy). */
export function deleteFromScalarList(current: readonly unknown[], toDelete: readonly unknown[], path: string): unknown[] {
  assertScalars(current, toDelete, path);
  const gone = new Set<unknown>(toDelete);
  return current.filter((v) => !gone.has(v));
}

/**
 * Reorder by `$setElementOrder/<field>`: items named there take that order, the others keep the
 * original list's order, interleaved as in {@link mergeKeyedList}. `merged` is fresh and is reused.
 */
export function applyElementOrder(
  merged: readonly unknown[],
  setOrder: readonly unknown[],
  originalList: readonly unknown[],
  mergeKey: string,
  path: string,
): unknown[] {
  let keyOf: (v: unknown, at: string) => unknown;
  if (mergeKey === '') {
    assertScalars(merged, setOrder, path);
    keyOf = (v) => v;
  } else {
    keyOf = (v, at) => podKeyOf(v as Obj, mergeKey, at);
    for (let i = 0; i < setOrder.length; i++) {
      if (kindOf(setOrder[i]) !== 'object') throw mergeError(`${path}(order)[${i}]`, `$setElementOrder items must be maps holding "${mergeKey}"`);
    }
  }
  const orderPos = new Map<unknown, number>();
  setOrder.forEach((v, i) => {
    const k = keyOf(v, `${path}(order)[${i}]`);
    if (!orderPos.has(k)) orderPos.set(k, i);
  });
  const basePos = new Map<unknown, number>();
  originalList.forEach((v, i) => {
    const k = keyOf(v, joinIndex(path, i));
    if (!basePos.has(k)) basePos.set(k, i);
  });
  const keys = merged.map((v, i) => keyOf(v, joinIndex(path, i)));
  const order = interleave(
    merged.length,
    (i) => orderPos.has(keys[i]),
    (i) => orderPos.get(keys[i]),
    (i) => basePos.get(keys[i]),
  );
  return order.map((i) => merged[i]);
}

/**
 * The patch list must list its items in the same relative order as `$setElementOrder`
 * (Kubernetes' validatePatchWithSetOrderList); `$patch` items are skipped.
 */
export function validateElementOrder(patchList: readonly unknown[], setOrder: readonly unknown[], mergeKey: string, path: string): void {
  if (patchList.length === 0 || setOrder.length === 0) return;
  const items = patchList.filter((el) => !(mergeKey !== '' && kindOf(el) === 'object' && Object.hasOwn(el as Obj, DIRECTIVE)));
  let p = 0;
  for (let s = 0; p < items.length && s < setOrder.length; s++) {
    const a = items[p];
    const b = setOrder[s];
    let same: boolean;
    if (mergeKey === '') same = a === b;
    else if (kindOf(a) === 'object' && kindOf(b) === 'object') same = getOwn(a as Obj, mergeKey) === getOwn(b as Obj, mergeKey);
    else throw mergeError(path, `$setElementOrder and the list it orders must hold maps with "${mergeKey}"`);
    if (same) p++;
  }
  if (p < items.length) {
    throw mergeError(path, `the order of the overlay's list does not match its $setElementOrder list; list the items in the same order`);
  }
}

/**
 * Kubernetes' partition + sort + mergeSortedSlice. Items are split into patch items (sorted by
 * `patchRank`) and server-only items (sorted by `baseRank`); then a server-only item is emitted
 * before the next patch item only if both are in the original and it came first there.
 * Unranked items keep their relative order after ranked ones (a degenerate case Go leaves to
 * its sort's internals).
 */
function interleave(
  n: number,
  isPatchItem: (i: number) => boolean,
  patchRank: (i: number) => number | undefined,
  baseRank: (i: number) => number | undefined,
): number[] {
  const patchItems: number[] = [];
  const serverOnly: number[] = [];
  for (let i = 0; i < n; i++) (isPatchItem(i) ? patchItems : serverOnly).push(i);
  const byRank = (rank: (i: number) => number | undefined) => (x: number, y: number) =>
    (rank(x) ?? Number.MAX_SAFE_INTEGER) - (rank(y) ?? Number.MAX_SAFE_INTEGER);
  patchItems.sort(byRank(patchRank)); // Array.prototype.sort is stable
  serverOnly.sort(byRank(baseRank));
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length && j < patchItems.length) {
    const l = baseRank(serverOnly[i]);
    const r = baseRank(patchItems[j]);
    if (l !== undefined && r !== undefined && l < r) out.push(serverOnly[i++]);
    else out.push(patchItems[j++]);
  }
  while (i < serverOnly.length) out.push(serverOnly[i++]);
  while (j < patchItems.length) out.push(patchItems[j++]);
  return out;
}

function firstPositions(list: readonly unknown[]): Map<unknown, number> {
  const pos = new Map<unknown, number>();
  for (let i = 0; i < list.length; i++) if (!pos.has(list[i])) pos.set(list[i], i);
  return pos;
}

/** The merge key of an overlay item: required (Kubernetes errors too) and a scalar. */
function patchKeyOf(item: Obj, mergeKey: string, at: string): Scalar {
  const k = getOwn(item, mergeKey);
  if (k === undefined) {
    throw mergeError(at, `the overlay's list item has no "${mergeKey}", the merge key of this list; add "${mergeKey}" to the item`);
  }
  if (!isScalar(k)) throw mergeError(at, `the overlay's "${mergeKey}" is ${describeValue(k)}; a merge key must be a string or a number`);
  return k;
}

/** The merge key of an item of the merged list (from the pod or the overlay). */
function podKeyOf(item: Obj, mergeKey: string, at: string): Scalar {
  const k = getOwn(item, mergeKey);
  if (k === undefined) {
    throw mergeError(at, `this list item has no "${mergeKey}", the merge key of this list, so the overlay cannot be merged into it; add "${mergeKey}"`);
  }
  if (!isScalar(k)) throw mergeError(at, `"${mergeKey}" is ${describeValue(k)}; a merge key must be a string or a number`);
  return k;
}

/** Set-merged lists hold scalars of one type (Kubernetes: "list element types are not identical"). */
function assertScalars(a: readonly unknown[], b: readonly unknown[], path: string): void {
  let type: string | undefined;
  for (const v of [...a, ...b]) {
    if (!isScalar(v)) {
      throw mergeError(path, `this list is merged as a set of strings or numbers, but holds ${describeValue(v)}`);
    }
    if (type === undefined) type = typeof v;
    else if (typeof v !== type) throw mergeError(path, `this list mixes ${type}s and ${typeof v}s; set-merged lists need one type`);
  }
}
