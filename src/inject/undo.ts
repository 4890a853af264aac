/**
 * @module inject/undo
 * Exact undo of an injection. Removing the items the status lists (containers, volumes, ... by
 * name) takes back what the templates added; the undo entries take back everything else they
 * changed: labels and annotations added or overwritten, a user's container that customised the
 * sidecar (Istio's override), fields of user containers, other spec fields. Entries are keyed by
 * map key and by item name, never by list index, so a pod that another webhook changed since
 * (reinvocation) is restored where we touched it and left alone elsewhere.
 *
 * Built at injection time as the difference between the pod as it was (`before`) and the
 * injected pod minus the listed items (`after`); checked by applying it, so a pod can always be
 * restored exactly (if the fine-grained entries ever fell short, whole top-level fields are
 * recorded instead).
 */
import { escapePointerToken, parsePointer } from '../patch/index.js';
import { cloneJson, deepEqual, isPlainObject, type JsonObject } from '../util/json.js';
import { ownChild } from './cow.js';
import { copyMap } from '../util/own.js';
import { NAMED_LISTS } from './pod-input.js';
import type { Pod } from './pod-types.js';
import type { RemovedItems } from './profile-hooks.js';
import { setOwn } from '../util/own.js';
import { statusNames } from './status-annotation.js';
import type { InjectionStatus, UndoEntry } from './types.js';

type Obj = Record<string, unknown>;

/** Pointers of the lists whose items are matched by name. */
const NAMED_POINTERS = new Set(NAMED_LISTS.map((l) => `/spec/${l}`));

/** Remove (in place) the items a status lists, and the status annotation itself; returns the containers removed. */
export function removeInjected(pod: Pod, status: InjectionStatus, statusKey: string): RemovedItems {
  const removed: RemovedItems = { containers: [], initContainers: [] };
  const spec = pod.spec;
  spec.containers = withoutNamed(spec.containers, statusNames(status, 'containers'), removed.containers);
  if (spec.initContainers) spec.initContainers = withoutNamed(spec.initContainers, statusNames(status, 'initContainers'), removed.initContainers);
  if (spec.volumes) spec.volumes = withoutNamed(spec.volumes, statusNames(status, 'volumes'), []);
  if (spec.imagePullSecrets) spec.imagePullSecrets = withoutNamed(spec.imagePullSecrets, statusNames(status, 'imagePullSecrets'), []);
  const annotations = pod.metadata?.annotations;
  if (annotations !== null && annotations !== undefined) delete annotations[statusKey];
  return removed;
}

/** `items` without those named in `names` (which go to `removed`); `items` itself when no name is given. */
function withoutNamed<T extends { name?: string | null }>(items: T[], names: readonly string[], removed: T[]): T[] {
  if (names.length === 0) return items;
  const drop = new Set(names);
  const kept: T[] = [];
  for (const it of items) (typeof it.name === 'string' && drop.has(it.name) ? removed : kept).push(it);
  return kept;
}

/**
 * `pod` without what `status` lists and without the status annotation, as a new object that
 * shares every untouched subtree with `pod` (for reading only: computing the undo record).
 */
export function withoutInjected(pod: JsonObject, status: InjectionStatus, statusKey: string): JsonObject {
  const out: JsonObject = { ...pod };
  const spec = pod.spec;
  if (isPlainObject(spec)) {
    const newSpec: JsonObject = { ...spec };
    for (const list of ['containers', 'initContainers', 'volumes', 'imagePullSecrets']) {
      const names = statusNames(status, list);
      const items = spec[list];
      if (names.length === 0 || !Array.isArray(items)) continue;
      const drop = new Set(names);
      newSpec[list] = items.filter((it) => !(isPlainObject(it) && typeof it.name === 'string' && drop.has(it.name)));
    }
    out.spec = newSpec;
  }
  const meta = pod.metadata;
  if (isPlainObject(meta) && isPlainObject(meta.annotations) && Object.hasOwn(meta.annotations, statusKey)) {
    const { [statusKey]: _status, ...annotations } = meta.annotations;
    out.metadata = { ...meta, annotations };
  }
  return out;
}

/** The entries that turn `after` back into `before`. */
export function computeUndo(before: Readonly<Obj>, after: JsonObject): UndoEntry[] {
  const entries: UndoEntry[] = [];
  diffObject(before, after, '', entries, undefined);
  // The check applies the entries to a copy-on-write view of `after` (cow.ts): it copies only
  // the paths the entries touch, and deepEqual skips the rest by identity.
  const check = copyMap(after);
  const owned = new Set<object>([check]);
  for (const e of entries) {
    try {
      applyEntry(check, e, owned);
    } catch {
      // As applyUndo: an entry that does not fit is skipped, and the comparison below decides.
    }
  }
  if (deepEqual(check, before)) return entries;
  // Safety net: record whole top-level fields that still differ.
  const coarse: UndoEntry[] = [];
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (deepEqual(before[k], after[k])) continue;
    coarse.push(Object.hasOwn(before, k) ? { p: `/${escapePointerToken(k)}`, v: before[k] } : { p: `/${escapePointerToken(k)}` });
  }
  return coarse;
}

interface ItemRef {
  p: string;
  n: string;
}

function push(entries: UndoEntry[], item: ItemRef | undefined, ptr: string, value?: { v: unknown }): void {
  const e: UndoEntry = item === undefined ? { p: ptr } : { p: item.p, n: item.n, s: ptr };
  if (value !== undefined) e.v = value.v;
  entries.push(e);
}

function diffObject(before: Obj, after: Obj, ptr: string, entries: UndoEntry[], item: ItemRef | undefined): void {
  for (const k of Object.keys(after)) {
    if (Object.hasOwn(before, k)) continue;
    const child = `${ptr}/${escapePointerToken(k)}`;
    if (item === undefined) created(child, after[k], entries);
    else push(entries, item, child);
  }
  for (const k of Object.keys(before)) {
    const b = before[k];
    if (!Object.hasOwn(after, k)) {
      push(entries, item, `${ptr}/${escapePointerToken(k)}`, { v: b });
      continue;
    }
    const a = after[k];
    // The same object (shared, cow.ts) or the same scalar: nothing to undo below.
    if (a === b) continue;
    const child = `${ptr}/${escapePointerToken(k)}`;
    if (item === undefined && NAMED_POINTERS.has(child) && Array.isArray(b) && Array.isArray(a)) {
      diffNamedList(b, a, child, entries);
    } else if (isPlainObject(b) && isPlainObject(a)) {
      diffObject(b, a, child, entries, item);
    } else if (!deepEqual(b, a)) {
      push(entries, item, child, { v: b });
    }
  }
}

/**
 * A member the injection created. A map or a named list is taken back member by member and then
 * removed only if nothing else was put in it since (a pod changed by later admission: the
 * ServiceAccount plugin's token volume, another webhook's annotation); anything else whole.
 */
function created(ptr: string, value: unknown, entries: UndoEntry[]): void {
  if (isPlainObject(value)) {
    for (const key of Object.keys(value)) created(`${ptr}/${escapePointerToken(key)}`, value[key], entries);
    entries.push({ p: ptr, e: 1 });
  } else if (Array.isArray(value) && (value.length === 0 || (NAMED_POINTERS.has(ptr) && namesOf(value) !== undefined))) {
    for (const n of namesOf(value) ?? []) entries.push({ p: ptr, n });
    entries.push({ p: ptr, e: 1 });
  } else {
    entries.push({ p: ptr });
  }
}

function namesOf(list: unknown[]): string[] | undefined {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const it of list) {
    if (!isPlainObject(it) || typeof it.name !== 'string' || seen.has(it.name)) return undefined;
    seen.add(it.name);
    names.push(it.name);
  }
  return names;
}

function diffNamedList(before: unknown[], after: unknown[], ptr: string, entries: UndoEntry[]): void {
  const bn = namesOf(before);
  const an = namesOf(after);
  if (bn === undefined || an === undefined) {
    if (!deepEqual(before, after)) entries.push({ p: ptr, v: before });
    return;
  }
  const afterByName = new Map(an.map((n, i) => [n, after[i] as Obj]));
  const beforeSet = new Set(bn);
  for (const n of an) if (!beforeSet.has(n)) entries.push({ p: ptr, n });
  bn.forEach((n, i) => {
    const b = before[i] as Obj;
    const a = afterByName.get(n);
    if (a === undefined) entries.push({ p: ptr, n, v: b, i });
    else diffObject(b, a, '', entries, { p: ptr, n });
  });
  const common = an.filter((n) => beforeSet.has(n));
  const expected = bn.filter((n) => afterByName.has(n));
  if (common.some((n, i) => n !== expected[i])) entries.push({ p: ptr, o: bn });
}

/**
 * Apply undo entries in place. Entries that no longer fit the pod (the item they name is gone,
 * a parent is not a map) are skipped with a warning: the pod changed since injection.
 */
export function applyUndo(pod: Obj, entries: readonly UndoEntry[], warnings: string[]): void {
  for (const e of entries) {
    try {
      applyEntry(pod, e);
    } catch (err) {
      warnings.push(
        `could not restore ${e.p}${e.n !== undefined ? ` item ${JSON.stringify(e.n)}` : ''}${e.s ?? ''}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
}

/**
 * Apply one entry. `owned` (the undo check) makes it copy on write: every map and list on the way
 * is replaced by a copy (remembered in `owned`) before it is changed, so the pod given, which
 * shares its subtrees with others, is never written; without it the pod is edited in place.
 */
function applyEntry(pod: Obj, e: UndoEntry, owned?: Set<object>): void {
  if (e.k === 1) return; // read by strip-record.ts before the entries
  const tokens = parsePointer(e.p);
  if (e.e === 1) {
    pruneIfEmpty(pod, tokens, owned);
    return;
  }
  if (e.n === undefined && e.o === undefined) {
    setOrDelete(pod, tokens, e, owned);
    return;
  }
  // A named list.
  const parent = walk(pod, tokens.slice(0, -1), e.v !== undefined && e.s === undefined, owned);
  if (parent === undefined) throw new Error('its parent is gone');
  const key = tokens[tokens.length - 1];
  let list = child(parent, key, owned);
  if (e.o !== undefined) {
    if (Array.isArray(list)) parent[key] = reorder(list, e.o);
    return;
  }
  const at = Array.isArray(list) ? list.findIndex((it) => isPlainObject(it) && it.name === e.n) : -1;
  if (e.s === undefined) {
    if (e.v === undefined) {
      if (at >= 0) (list as unknown[]).splice(at, 1);
      return;
    }
    if (!Array.isArray(list)) {
      list = [];
      setOwn(parent, key, list);
    }
    const arr = list as unknown[];
    if (at >= 0) arr[at] = cloneJson(e.v);
    else arr.splice(Math.min(e.i ?? arr.length, arr.length), 0, cloneJson(e.v));
    return;
  }
  if (at < 0) throw new Error('the item is gone');
  setOrDelete(child(list as unknown as Obj, String(at), owned) as Obj, parsePointer(e.s), e, owned);
}

/** `parent[key]` (own members only); with `owned` (copy on write), first made the caller's to change (cow.ts). */
function child(parent: Obj, key: string, owned: Set<object> | undefined): unknown {
  if (owned !== undefined) return ownChild(parent, key, owned);
  return Object.hasOwn(parent, key) ? parent[key] : undefined;
}

function setOrDelete(root: Obj, tokens: string[], e: UndoEntry, owned?: Set<object>): void {
  if (tokens.length === 0) throw new Error('cannot replace the whole object');
  const parent = walk(root, tokens.slice(0, -1), e.v !== undefined, owned);
  const key = tokens[tokens.length - 1];
  if (parent === undefined) {
    if (e.v === undefined) return; // already absent
    throw new Error('its parent is not a map');
  }
  if (e.v === undefined) {
    // A list the injection added holds only others' items once ours are removed by name
    // (records written before `e` existed say "delete" for such lists): keep them.
    const current = Object.hasOwn(parent, key) ? parent[key] : undefined;
    if (Array.isArray(current) && current.length > 0 && NAMED_POINTERS.has(`/${tokens.map(escapePointerToken).join('/')}`)) return;
    delete parent[key];
  } else setOwn(parent, key, cloneJson(e.v));
}

function pruneIfEmpty(root: Obj, tokens: string[], owned?: Set<object>): void {
  const parent = walk(root, tokens.slice(0, -1), false, owned);
  const key = tokens[tokens.length - 1];
  if (parent === undefined || key === undefined || !Object.hasOwn(parent, key)) return;
  const v = parent[key];
  if ((Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0)) delete parent[key];
}

/** The map at `tokens`, creating missing (or null) maps on the way when `create`. */
function walk(root: Obj, tokens: string[], create: boolean, owned?: Set<object>): Obj | undefined {
  let node: Obj = root;
  for (const t of tokens) {
    let next = child(node, t, owned);
    if (!isPlainObject(next)) {
      if (!create || (next !== undefined && next !== null)) return undefined;
      const created: Obj = {};
      setOwn(node, t, created);
      owned?.add(created);
      next = created;
    }
    node = next as Obj;
  }
  return node;
}

/** Put the items named in `order` in that order, in the slots they occupy; others stay put. */
function reorder(list: unknown[], order: readonly string[]): unknown[] {
  const rank = new Map(order.map((n, i) => [n, i]));
  const slots: number[] = [];
  const items: unknown[] = [];
  list.forEach((it, i) => {
    if (isPlainObject(it) && typeof it.name === 'string' && rank.has(it.name)) {
      slots.push(i);
      items.push(it);
    }
  });
  items.sort((x, y) => rank.get((x as Obj).name as string)! - rank.get((y as Obj).name as string)!);
  const out = list.slice();
  slots.forEach((slot, i) => (out[slot] = items[i]));
  return out;
}
