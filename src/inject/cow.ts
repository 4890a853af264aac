/**
 * @module inject/cow
 * Copy on write for the injection pipeline. Copying the whole pod for every admission cost more
 * than injecting into it (a 40 KB pod has thousands of nodes, and each copy is then walked again
 * by the undo record, its check and the patch), so the pipeline shares instead:
 *
 * - the working copy shares everything below `metadata` with the pod as received (pod-input.ts;
 *   a pod that carries an earlier injection is still copied whole, because strip edits it);
 * - the merge shares every subtree the overlays do not touch (patch/smp.ts `{share: true}`);
 * - before anything writes into the merged pod, {@link ownWriterFrame} gives it private copies
 *   of the nodes later stages and profiles write into (the writer frame, below).
 *
 * Untouched subtrees are then the same objects in the pod as received, the working copy and the
 * merged pod, so the patch and the undo record (whole-pod diffs) skip them by identity.
 *
 * The writer frame: `metadata`, its `annotations` and `labels`, `spec`, the `containers` and
 * `initContainers` lists, the items of those the templates injected, and their `env`, `args` and
 * `securityContext`. Writers may set any key of those (and push to the lists); anything else is
 * replaced, never edited in place: a user's container is replaced in its list by a changed copy
 * (Istio's probe rewrite), so a pod of many containers does not pay for copying them all.
 *
 * The test run turns on {@link DEBUG_CHECKS}, which freezes the pod as received, so a write into
 * a shared node fails every test that reaches it (a write outside the frame does: the Istio
 * conformance cases fail at once without it).
 */
import { deepFreeze, isPlainObject, type JsonObject } from '../util/json.js';
import { copyMap, setOwn } from '../util/own.js';

/**
 * `SIDECAR_INJECTOR_DEBUG_CHECKS=1` (set by `npm test`): the pod as received is frozen in place
 * (the caller's own object, which the core must never write anyway), and the patch is applied to
 * it and compared with the injected pod. A write into a shared node, or a patch that does not
 * give the injected pod, then fails loudly instead of going unnoticed.
 */
export const DEBUG_CHECKS = process.env.SIDECAR_INJECTOR_DEBUG_CHECKS === '1';

type Obj = Record<string, unknown>;

/**
 * `parent[key]` (own members only), first replaced by a shallow copy when it is a map or a list:
 * the copy is the caller's to change. With `owned`, a node already in it is not copied again,
 * and the copy is added to it (a walk that copies each node on its way once: the undo check).
 */
export function ownChild(parent: Obj, key: string, owned?: Set<object>): unknown {
  const v = Object.hasOwn(parent, key) ? parent[key] : undefined;
  if (typeof v !== 'object' || v === null || owned?.has(v) === true) return v;
  const copy = Array.isArray(v) ? v.slice() : copyMap(v as Obj);
  setOwn(parent, key, copy);
  owned?.add(copy);
  return copy;
}

/** Give the merged pod (whose top level the merge created) private copies of the writer frame, in place. `injected`: the names the templates injected. */
export function ownWriterFrame(merged: JsonObject, injected: ReadonlySet<string>): void {
  const pod = merged as Obj;
  const meta = ownChild(pod, 'metadata');
  if (isPlainObject(meta)) {
    ownChild(meta, 'annotations');
    ownChild(meta, 'labels');
  }
  const spec = ownChild(pod, 'spec');
  if (!isPlainObject(spec)) return;
  ownChild(spec, 'containers');
  ownChild(spec, 'initContainers');
  ownItems(merged, injected);
}

/**
 * Replace the items named in `names` of the (frame-owned) container lists by private copies,
 * with their `env`, `args` and `securityContext`: for a writer that edits a container it did
 * not inject (a profile finding its proxy by name, which a user's container may also carry).
 */
export function ownItems(merged: JsonObject, names: ReadonlySet<string>): void {
  const spec = merged.spec;
  if (!isPlainObject(spec)) return;
  for (const list of ['containers', 'initContainers']) {
    const items = spec[list];
    if (!Array.isArray(items)) continue;
    for (let i = 0; i < items.length; i++) {
      const item: unknown = items[i];
      if (!isPlainObject(item) || typeof item.name !== 'string' || !names.has(item.name)) continue;
      const c = copyMap(item);
      items[i] = c as JsonObject;
      ownChild(c, 'env');
      ownChild(c, 'args');
      ownChild(c, 'securityContext');
    }
  }
}

/** The debug check: freeze the pod as received, in place (managedFields left alone: large, never walked). */
export function freezeReceived(pod: unknown): void {
  if (!isPlainObject(pod)) return;
  const meta = pod.metadata;
  const managed = isPlainObject(meta) && Object.hasOwn(meta, 'managedFields') ? meta.managedFields : undefined;
  deepFreeze(pod, (node) => node === managed);
}

/** Whether a pod (not yet validated) carries the annotation `key`. */
export function hasAnnotation(pod: unknown, key: string): boolean {
  if (!isPlainObject(pod) || !isPlainObject(pod.metadata)) return false;
  const a = pod.metadata.annotations;
  return isPlainObject(a) && Object.hasOwn(a, key);
}
