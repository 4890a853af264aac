/**
 * @module inject/strip-record
 * The compact undo record (status format 2, issue 37). The status annotation travels in every
 * pod the apiserver decodes, and format 1 carried every change verbatim: with Istio's config it
 * was 1.6 KB against Istio's 0.3 KB. Format 2 records only what cannot be derived:
 *
 * 1. the items the status lists are removed by name (as in format 1);
 * 2. the profiles' `restore` hooks give back what their post-processing changed and recorded on
 *    the removed containers (Istio: the app's probes, its Prometheus annotations);
 * 3. label and annotation members the injection added are deleted: `rm` names them by a
 *    5-character hash of their JSON Pointer (30 bits), not by name;
 * 4. labels, annotations, init containers, volumes and imagePullSecrets left empty are removed:
 *    the injection created them, unless an undo entry `{p, k: 1}` says the pod had it (then it
 *    stays where it is, so the pod's member order stays too);
 * 5. the undo entries (format 1's, undo.ts) restore the rest: values the injection overwrote,
 *    fields of user containers, an empty list the pod had, ...
 *
 * The record is computed at injection by running steps 1-4 on the injected pod and diffing the
 * result against the pod as it was, and checked by applying step 5 (undo.ts computeUndo), so a
 * strip gives back the pod exactly. A hash is used only where no other member of the two maps
 * shares it, so step 3 never takes a member the pod had. A member someone adds after injection
 * is taken by step 3 only if its pointer's hash collides with one recorded (about one in 10^8
 * for a pod with ten recorded members); format 1 took such a member whenever its name matched.
 */
import { createHash } from 'node:crypto';
import { escapePointerToken } from '../patch/index.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import type { Container, Pod } from './pod-types.js';
import type { Profile, RemovedItems } from './profile-hooks.js';
import { statusNames } from './status-annotation.js';
import type { InjectionStatus, UndoEntry } from './types.js';
import { computeUndo, withoutInjected } from './undo.js';

type Obj = Record<string, unknown>;

const HASH_CHARS = 5;
/** The maps whose added members `rm` names. */
const HASHED = ['labels', 'annotations'] as const;
/** Removed when left empty: where, and which member. */
const PRUNED: readonly (readonly ['metadata' | 'spec', string])[] = [
  ['metadata', 'labels'],
  ['metadata', 'annotations'],
  ['spec', 'initContainers'],
  ['spec', 'volumes'],
  ['spec', 'imagePullSecrets'],
];

/** 5 base64url characters of the sha256 of a member's JSON Pointer. */
export function memberHash(pointer: string): string {
  return createHash('sha256').update(pointer).digest('base64url').slice(0, HASH_CHARS);
}

const hashOf = (map: string, key: string): string => memberHash(`/metadata/${map}/${escapePointerToken(key)}`);

/** What format 2 records: the hashes of added members, and the undo entries for the rest. */
export interface StripRecord {
  rm: string;
  undo: UndoEntry[];
}

/**
 * The record for `merged` (the injected pod) against `before` (the pod as it was): steps 1-4 are
 * run on a view of `merged` (private copies of what they change, everything else shared and
 * never written), and the entries are what turns that view back into `before`.
 */
export function computeStripRecord(before: Pod, merged: JsonObject, status: InjectionStatus, statusKey: string, profiles: readonly Profile[]): StripRecord {
  const view = withoutInjected(merged, status, statusKey) as Obj;
  const restores = profiles.filter((p) => p.restore !== undefined);
  if (restores.length > 0) {
    const pod = privateFrame(view);
    const removed = removedItems(merged, status);
    for (const p of restores) p.restore!(pod as unknown as Pod, removed);
  }
  const rm = takeAdded(view, before as unknown as Obj);
  const keep = had(before as unknown as Obj);
  prune(view, keep, true);
  const entries = computeUndo(before as unknown as Obj, view as JsonObject);
  const keepEntries: UndoEntry[] = [];
  for (const p of keep) if (isEmptyAt(view, p)) keepEntries.push({ p, k: 1 });
  return { rm, undo: [...keepEntries, ...entries] };
}

/** The PRUNED pointers `pod` has a member at (whatever its value). */
function had(pod: Obj): Set<string> {
  const out = new Set<string>();
  for (const [parentKey, key] of PRUNED) {
    const parent = pod[parentKey];
    if (isPlainObject(parent) && Object.hasOwn(parent, key)) out.add(`/${parentKey}/${key}`);
  }
  return out;
}

function isEmptyAt(pod: Obj, pointer: string): boolean {
  const [, parentKey, key] = pointer.split('/');
  const parent = pod[parentKey];
  return isPlainObject(parent) && Object.hasOwn(parent, key) && isEmpty(parent[key]);
}

function isEmpty(v: unknown): boolean {
  return (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

/** Steps 2-4 on a pod whose listed items were removed (`removed`), in place; then the caller applies `undo`. */
export function applyStripRecord(pod: Pod, removed: RemovedItems, rm: string, undo: readonly UndoEntry[], profiles: readonly Profile[]): void {
  for (const p of profiles) p.restore?.(pod, removed);
  const hashes = new Set<string>();
  for (let i = 0; i < rm.length; i += HASH_CHARS) hashes.add(rm.slice(i, i + HASH_CHARS));
  const meta = pod.metadata as Obj | undefined;
  if (meta !== undefined && hashes.size > 0) {
    for (const map of HASHED) {
      const m = meta[map];
      if (!isPlainObject(m)) continue;
      for (const k of Object.keys(m)) if (hashes.has(hashOf(map, k))) delete m[k];
    }
  }
  prune(pod as unknown as Obj, new Set(undo.filter((e) => e.k === 1).map((e) => e.p)), false);
}

/**
 * Delete (in `view`, copying the two maps) the label and annotation members `before` lacks, and
 * return their hashes; a member whose hash another member of the two maps shares stays, for the
 * undo entries to delete by name.
 */
function takeAdded(view: Obj, before: Obj): string {
  const meta = view.metadata;
  if (!isPlainObject(meta)) return '';
  const had = isPlainObject(before.metadata) ? before.metadata : {};
  const added: { map: (typeof HASHED)[number]; key: string; hash: string }[] = [];
  const kept = new Set<string>();
  for (const map of HASHED) {
    const m = meta[map];
    if (!isPlainObject(m)) continue;
    const old = isPlainObject(had[map]) ? had[map] : {};
    for (const key of Object.keys(m)) {
      const hash = hashOf(map, key);
      if (Object.hasOwn(old, key)) kept.add(hash);
      else added.push({ map, key, hash });
    }
  }
  const taken = added.filter((a) => !kept.has(a.hash));
  if (taken.length === 0) return '';
  const newMeta: Obj = { ...meta };
  for (const map of HASHED) {
    const mine = taken.filter((a) => a.map === map);
    if (mine.length === 0) continue;
    const m: Obj = { ...(meta[map] as Obj) };
    for (const a of mine) delete m[a.key];
    newMeta[map] = m;
  }
  view.metadata = newMeta;
  return [...new Set(taken.map((a) => a.hash))].join('');
}

/** Remove the PRUNED members left empty but those in `keep`; `copy`: replace their parents with copies first (the view). */
function prune(pod: Obj, keep: ReadonlySet<string>, copy: boolean): void {
  for (const [parentKey, key] of PRUNED) {
    const parent = pod[parentKey];
    if (!isPlainObject(parent) || !Object.hasOwn(parent, key) || !isEmpty(parent[key]) || keep.has(`/${parentKey}/${key}`)) continue;
    const target = copy ? { ...parent } : parent;
    delete target[key];
    pod[parentKey] = target;
  }
}

/** Private copies of what a restore hook may set members of: metadata, its maps, spec, container lists and containers. */
function privateFrame(view: Obj): Obj {
  if (isPlainObject(view.metadata)) {
    const meta: Obj = { ...view.metadata };
    for (const map of HASHED) if (isPlainObject(meta[map])) meta[map] = { ...(meta[map] as Obj) };
    view.metadata = meta;
  }
  if (isPlainObject(view.spec)) {
    const spec: Obj = { ...view.spec };
    for (const list of ['containers', 'initContainers']) {
      if (Array.isArray(spec[list])) spec[list] = (spec[list] as unknown[]).map((c) => (isPlainObject(c) ? { ...c } : c));
    }
    view.spec = spec;
  }
  return view;
}

/** The containers the status lists, as the injected pod has them (what strip will have removed). */
function removedItems(merged: JsonObject, status: InjectionStatus): RemovedItems {
  const spec = isPlainObject(merged.spec) ? merged.spec : {};
  const pick = (list: 'containers' | 'initContainers'): Container[] => {
    const names = new Set(statusNames(status, list));
    const items = spec[list];
    return Array.isArray(items) ? (items.filter((c) => isPlainObject(c) && typeof c.name === 'string' && names.has(c.name)) as Container[]) : [];
  };
  return { containers: pick('containers'), initContainers: pick('initContainers') };
}
