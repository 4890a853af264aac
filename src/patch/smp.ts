/**
 * @module patch/smp
 * Kubernetes strategic merge patch for the Pod subtree: what Istio does with
 * `StrategicMergePatch(pod, overlay, corev1.Pod{})` after rendering the sidecar template.
 *
 * Semantics (apimachinery `strategicpatch`, apply side):
 * - maps merge key by key; `null` deletes; scalars replace;
 * - lists listed in {@link POD_SCHEMA} merge by key, sets of scalars merge as sets, every other
 *   list is replaced; order as Kubernetes (see smp-list.ts);
 * - directives: `$patch: replace | delete` on maps, `$patch: delete` and `{$patch: replace}` on
 *   list items, `$retainKeys`, `$setElementOrder/<f>`, `$deleteFromPrimitiveList/<f>`;
 * - type mismatch (a list where the pod has a map, ...): the overlay's value replaces the pod's,
 *   as in Kubernetes;
 * - a value with nothing to merge into is taken without its nulls and directive maps.
 *
 * Where we differ on purpose (each is an error or a no-op in Kubernetes, never a different
 * successful result): `$patch: merge` on a map is accepted as the default; a list item holding
 * `$patch: replace` *and* data is an error (Kubernetes silently drops the data and empties the
 * list); a merge-key list holding scalars is an error; `$deleteFromPrimitiveList` for a missing
 * field is ignored; several directives in one map apply in a fixed order (retainKeys, element
 * order, fields, deletions) where Go's order is its random map iteration.
 *
 * The result is a new object that shares nothing with either input, so callers may mutate it;
 * with `{share: true}` it shares the subtrees of `original` the patch does not touch (never a
 * node of the patch), so a merge costs what the patch touches, not the pod's size. The
 * injection pipeline merges that way and copies before it writes (inject/cow.ts).
 */
import { InjectionError } from '../errors.js';
import { cloneJson, getOwn, isPlainObject, type JsonObject } from '../util/json.js';
import { DELETE_FROM_PRIMITIVE_LIST, DIRECTIVE, mergeError, RETAIN_KEYS, SET_ELEMENT_ORDER, takeNew } from './smp-directives.js';
import { applyElementOrder, deleteFromScalarList, mergeKeyedList, mergeScalarSet, validateElementOrder } from './smp-list.js';
import { fieldOf, OPAQUE_SCHEMA, POD_SCHEMA, type SmpField, type SmpSchema } from './smp-schema.js';
import { joinKey, kindOf, MAX_DEPTH, tooDeep } from './values.js';
import { copyMap, setOwn } from '../util/own.js';
import { describeValue } from '../util/describe.js';

type Obj = Record<string, unknown>;

/**
 * Strategic-merge `patch` (a rendered sidecar overlay) into `original` (a pod). Never mutates its
 * inputs. `null`/`undefined` patch = no change. Throws InjectionError `SI_INJECT_MERGE` naming
 * the path when the overlay cannot be merged, `SI_INPUT_LIMIT` when nesting is absurdly deep.
 */
export function strategicMerge(original: JsonObject, patch: unknown, schema: SmpSchema = POD_SCHEMA, options: MergeOptions = {}): JsonObject {
  if (!isPlainObject(original)) {
    throw new InjectionError('SI_INJECT_MERGE', `strategic merge needs an object to merge into, got ${describeValue(original)}`);
  }
  const share = options.share === true;
  if (patch === null || patch === undefined) return share ? copyMap(original) : cloneJson(original);
  if (kindOf(patch) !== 'object') {
    throw new InjectionError('SI_INJECT_MERGE', `the overlay must be a map (a YAML mapping like the pod), got ${describeValue(patch)}`);
  }
  return mergeObject(original, patch as Obj, schema, '', 0, share) as JsonObject;
}

export interface MergeOptions {
  /** Share the untouched subtrees of `original` instead of copying them (the result is then not the caller's to mutate freely). */
  share?: boolean;
}

function mergeObject(original: Obj, patch: Obj, schema: SmpSchema, path: string, depth: number, share: boolean): Obj {
  if (depth > MAX_DEPTH) throw tooDeep(path, 'the pod or overlay');
  const directive = getOwn(patch, DIRECTIVE);
  if (directive === 'replace') return takeNew(patch, path, depth, true).value as Obj;
  if (directive === 'delete') return {}; // Kubernetes empties the map rather than removing the key
  if (directive !== undefined && directive !== 'merge') {
    throw mergeError(path, `unknown directive "$patch: ${String(directive)}"; use replace, delete or merge`);
  }

  // Sort the patch's keys into directives and fields.
  let retainKeys: unknown;
  const orderKeys: string[] = [];
  const deleteKeys: string[] = [];
  const fields: string[] = [];
  const touched = new Set<string>();
  for (const k of Object.keys(patch)) {
    if (patch[k] === undefined || k === DIRECTIVE) continue;
    if (k === RETAIN_KEYS) {
      retainKeys = patch[k];
    } else if (k.startsWith(SET_ELEMENT_ORDER)) {
      touched.add(targetOf(k, SET_ELEMENT_ORDER, path));
      orderKeys.push(k);
    } else if (k.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      touched.add(targetOf(k, DELETE_FROM_PRIMITIVE_LIST, path));
      deleteKeys.push(k);
    } else {
      touched.add(k);
      fields.push(k);
    }
  }

  // Start from the original; untouched values are copied, touched ones are replaced below.
  const out: Obj = {};
  for (const k of Object.keys(original)) setOwn(out, k, share || touched.has(k) ? original[k] : cloneJson(original[k]));

  if (retainKeys !== undefined) applyRetainKeys(out, patch, fields, retainKeys, path);

  const consumed = new Set<string>();
  for (const k of orderKeys) {
    const target = targetOf(k, SET_ELEMENT_ORDER, path);
    consumed.add(target);
    mergeWithElementOrder(out, patch, target, patch[k], fieldOf(schema, target), joinKey(path, target), depth, share);
  }
  for (const k of fields) {
    if (!consumed.has(k)) mergeField(out, k, patch[k], fieldOf(schema, k), path, depth, share);
  }
  for (const k of deleteKeys) {
    const target = targetOf(k, DELETE_FROM_PRIMITIVE_LIST, path);
    const list = patch[k];
    const at = joinKey(path, target);
    if (list === null) {
      delete out[target]; // Go: a null value deletes the field, whatever its key looked like
      continue;
    }
    if (!Array.isArray(list)) throw mergeError(at, `"${k}" must be a list of the values to delete, got ${describeValue(list)}`);
    const current = getOwn(out, target);
    if (Array.isArray(current)) setOwn(out, target, deleteFromScalarList(current, list, at));
  }

  // Touched keys that nothing replaced (e.g. a delete list for a non-list) still hold the input's value.
  if (share) return out;
  for (const k of touched) {
    if (Object.hasOwn(out, k) && Object.hasOwn(original, k) && out[k] === original[k] && typeof out[k] === 'object') {
      setOwn(out, k, cloneJson(out[k]));
    }
  }
  return out;
}

/**
 * One field of the patch against the (partly built) output map. The field's path (for error
 * messages, and passed down) is built from `parentPath` only where it can be needed: per key it
 * was a noticeable share of a merge.
 */
function mergeField(out: Obj, key: string, value: unknown, field: SmpField | undefined, parentPath: string, depth: number, share: boolean): void {
  if (value === null) {
    delete out[key];
    return;
  }
  const current = getOwn(out, key);
  const ck = Object.hasOwn(out, key) ? kindOf(current) : undefined;
  const pk = kindOf(value);
  if (pk === 'invalid') throw mergeError(joinKey(parentPath, key), `the overlay holds ${describeValue(value)}, which is not JSON data`);
  if (ck === undefined || ck !== pk) {
    // Nothing to merge into, or a different type: the overlay's value wins (Kubernetes too).
    const taken = takeNew(value, () => joinKey(parentPath, key), depth + 1);
    if (taken.keep) setOwn(out, key, taken.value);
    else delete out[key];
    return;
  }
  if (pk !== 'object' && pk !== 'array') {
    setOwn(out, key, value);
    return;
  }
  const path = joinKey(parentPath, key);
  if (pk === 'object') {
    const sub = field?.type === 'object' ? field.schema : OPAQUE_SCHEMA;
    setOwn(out, key, mergeObject(current as Obj, value as Obj, sub, path, depth + 1, share));
  } else {
    setOwn(out, key, mergeArrays(current as unknown[], value as unknown[], field, path, depth + 1, share));
  }
}

/** Two lists of one field, by the field's strategy. A fresh list (its untouched items shared when `share`). */
function mergeArrays(current: unknown[], value: unknown[], field: SmpField | undefined, path: string, depth: number, share: boolean): unknown[] {
  if (field?.type === 'list') {
    const element = field.element ?? OPAQUE_SCHEMA;
    return mergeKeyedList(current, value, field.mergeKey, (o, p, at) => mergeObject(o, p, element, at, depth + 1, share), path, depth, share);
  }
  if (field?.type === 'set') return mergeScalarSet(current, value, path);
  return takeNew(value, path, depth).value as unknown[]; // atomic: replaced
}

/** `$setElementOrder/<key>`: merge the field's list (if the patch has one), then impose the order. */
function mergeWithElementOrder(
  out: Obj,
  patch: Obj,
  key: string,
  setOrder: unknown,
  field: SmpField | undefined,
  path: string,
  depth: number,
  share: boolean,
): void {
  if (!Array.isArray(setOrder)) throw mergeError(path, `"$setElementOrder/${key}" must be a list, got ${describeValue(setOrder)}`);
  const hasOriginal = Object.hasOwn(out, key);
  const hasPatch = Object.hasOwn(patch, key) && patch[key] !== undefined;
  if (!hasOriginal && !hasPatch) return;
  const originalList = hasOriginal ? out[key] : [];
  const patchList = hasPatch ? patch[key] : [];
  if (!Array.isArray(originalList)) throw mergeError(path, `"$setElementOrder/${key}" orders a list, but the pod has ${describeValue(originalList)} here`);
  if (!Array.isArray(patchList)) throw mergeError(path, `"$setElementOrder/${key}" orders a list, but the overlay has ${describeValue(patchList)} here`);
  const mergeKey = field?.type === 'list' ? field.mergeKey : '';
  validateElementOrder(patchList, setOrder, mergeKey, path);
  let merged: unknown[];
  if (hasOriginal && hasPatch) merged = mergeArrays(originalList, patchList, field, path, depth + 1, share);
  else if (hasPatch) merged = takeNew(patchList, path, depth + 1).value as unknown[];
  else merged = share ? originalList.slice() : cloneJson(originalList);
  setOwn(out, key, applyElementOrder(merged, setOrder, originalList, mergeKey, path));
}

/** `$retainKeys`: every field the patch sets must be listed; fields not listed are cleared. */
function applyRetainKeys(out: Obj, patch: Obj, fields: readonly string[], retainKeys: unknown, path: string): void {
  if (!Array.isArray(retainKeys)) throw mergeError(path, `"$retainKeys" must be a list of field names, got ${describeValue(retainKeys)}`);
  const keep = new Set<unknown>(retainKeys);
  for (const k of fields) {
    if (patch[k] !== null && !keep.has(k)) {
      throw mergeError(path, `the overlay sets "${k}" but "$retainKeys" does not list it; add "${k}" to $retainKeys`);
    }
  }
  for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
}

/** `$setElementOrder/containers` -> `containers`; the prefix must be followed by `/` (Go: ErrBadPatchFormat...). */
function targetOf(key: string, prefix: string, path: string): string {
  if (key.length <= prefix.length || key[prefix.length] !== '/') {
    throw mergeError(path, `directive key "${key}" is malformed; write "${prefix}/<field>"`);
  }
  return key.slice(prefix.length + 1);
}
