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
 * `initContainers` lists and their items, and the `env`, `args` and `securityContext` of the
 * items the templates injected. Writers may set any key of those (and push to the lists);
 * anything deeper is replaced, never edited in place (Istio's probe rewrite replaces a user
 * container's probes; it edits only the proxy's env and the init container's args).
 *
 * The test run turns on {@link DEBUG_CHECKS}, which freezes the pod as received, so a write into
 * a shared node fails every test that reaches it (a write outside the frame does: the Istio
 * conformance cases fail at once without it).
 */
import { isPlainObject, type JsonObject } from '../util/json.js';
import { setOwn } from '../util/own.js';

/**
 * `SIDECAR_INJECTOR_DEBUG_CHECKS=1` (set by `npm test`): the pod as received is frozen in place
 * (the caller's own object, which the core must never write anyway), and the patch is applied to
 * it and compared with the injected pod. A write into a shared node, or a patch that does not
 * give the injected pod, then fails loudly instead of going unnoticed.
 */
export const DEBUG_CHECKS = process.env.SIDECAR_INJECTOR_DEBUG_CHECKS === '1';

type Obj = Record<string, unknown>;

/** A shallow copy of a map, keeping a `__proto__` key as data. */
export function copyMap(o: Obj): Obj {
  const out: Obj = {};
  for (const k of Object.keys(o)) setOwn(out, k, o[k]);
  return out;
}

/** Replace `parent[key]` by a shallow copy when it is a map or a list; the copy (or undefined). */
function own(parent: Obj, key: string): unknown {
  if (!Object.hasOwn(parent, key)) return undefined;
  const v = parent[key];
  if (Array.isArray(v)) {
    const copy = v.slice();
    parent[key] = copy;
    return copy;
  }
  if (isPlainObject(v)) {
    const copy = copyMap(v);
    setOwn(parent, key, copy);
    return copy;
  }
  return undefined;
}

/** Give the merged pod (whose top level the merge created) private copies of the writer frame, in place. `injected`: the names the templates injected. */
export function ownWriterFrame(merged: JsonObject, injected: ReadonlySet<string>): void {
  const pod = merged as Obj;
  const meta = own(pod, 'metadata');
  if (isPlainObject(meta)) {
    own(meta, 'annotations');
    own(meta, 'labels');
  }
  const spec = own(pod, 'spec');
  if (!isPlainObject(spec)) return;
  for (const list of ['containers', 'initContainers']) {
    const items = own(spec, list);
    if (!Array.isArray(items)) continue;
    for (let i = 0; i < items.length; i++) {
      const item: unknown = items[i];
      if (!isPlainObject(item)) continue;
      const c = copyMap(item);
      items[i] = c;
      if (typeof c.name !== 'string' || !injected.has(c.name)) continue;
      own(c, 'env');
      own(c, 'args');
      own(c, 'securityContext');
    }
  }
}

/** The debug check: freeze the pod as received, in place (managedFields left alone: large, never walked). */
export function freezeReceived(pod: unknown): void {
  if (!isPlainObject(pod)) return;
  const meta = pod.metadata;
  const managed = isPlainObject(meta) && Object.hasOwn(meta, 'managedFields') ? meta.managedFields : undefined;
  deepFreeze(pod, managed);
}

/** Whether a pod (not yet validated) carries the annotation `key`. */
export function hasAnnotation(pod: unknown, key: string): boolean {
  if (!isPlainObject(pod) || !isPlainObject(pod.metadata)) return false;
  const a = pod.metadata.annotations;
  return isPlainObject(a) && Object.hasOwn(a, key);
}

/** Freeze a JSON value and everything in it (the debug check); `skip` is left alone (managedFields: large, never written). */
export function deepFreeze(value: unknown, skip?: unknown): void {
  if (value === skip || typeof value !== 'object' || value === null) return;
  for (const v of Object.values(value)) deepFreeze(v, skip);
  Object.freeze(value);
}
