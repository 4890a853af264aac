/**
 * @module inject/pod-input
 * The first step for an untrusted pod: check the shape every later step relies on and make the
 * private working copy. Pods and pod templates (`{metadata, spec}`) are both accepted. What is
 * checked: an object; `metadata` a map (or absent/null); labels and annotations maps of strings
 * (or absent/null); `spec` a map with a `containers` list; every item of containers,
 * initContainers, ephemeralContainers, volumes and imagePullSecrets a map, containers with a
 * non-empty string name, names unique (containers and init containers share one namespace, as
 * in Kubernetes). Each problem is an InjectionError (SI_INPUT_OBJECT) naming the field.
 *
 * The result is typed (pod-types.ts): what was checked here is what the types promise, so later
 * stages read those fields without checking them again.
 *
 * `metadata.managedFields` is handled here and in the patch stage only: it is left out of the
 * working copy (Istio drops it too: it can be huge and nothing reads it), and the patch stage
 * puts the received value back, the same reference, so the patch never walks it.
 *
 * The working copy is deep by default. With `share` it is copied only down to `metadata` and
 * shares the rest with the pod as received (cow.ts): for a pod nothing will edit in place.
 */
import { InjectionError } from '../errors.js';
import { cloneJson, isPlainObject } from '../util/json.js';
import { copyMap } from '../util/own.js';
import { describeValue as describe, quote } from '../util/describe.js';
import type { NamedList, Pod } from './pod-types.js';

export interface PodInput {
  /** The pod as received, now known to be a Pod (read-only: never changed, never copied). */
  received: Pod;
  /** The working copy, without `metadata.managedFields`: a deep copy, or with `share` a copy of the top level and metadata only. */
  pod: Pod;
  /** Whether the input had `metadata.managedFields` (its value is taken from `received` again). */
  hasManagedFields: boolean;
}

/** Lists of named items in a pod spec, and whether each item must carry a name. */
export const NAMED_LISTS = ['containers', 'initContainers', 'ephemeralContainers', 'volumes', 'imagePullSecrets'] as const satisfies readonly NamedList[];
export type { NamedList } from './pod-types.js';

function fail(message: string, field: string): never {
  throw new InjectionError('SI_INPUT_OBJECT', message, { details: { field } });
}

export function readPodInput(pod: unknown, share = false): PodInput {
  if (!isPlainObject(pod)) fail(`the object to inject is ${describe(pod)}, not a pod (a map with metadata and spec)`, '');
  const meta = pod.metadata;
  if (meta !== undefined && meta !== null && !isPlainObject(meta)) fail(`metadata is ${describe(meta)}; it must be a map`, 'metadata');
  if (isPlainObject(meta)) {
    for (const field of ['labels', 'annotations'] as const) {
      const m = meta[field];
      if (m === undefined || m === null) continue;
      if (!isPlainObject(m)) fail(`metadata.${field} is ${describe(m)}; it must be a map of strings`, `metadata.${field}`);
      for (const k of Object.keys(m)) {
        if (typeof m[k] !== 'string') {
          fail(
            `metadata.${field}[${quote(k)}] is ${describe(m[k])}; ${field} values must be strings (quote numbers and booleans in YAML)`,
            `metadata.${field}`,
          );
        }
      }
    }
    for (const field of ['name', 'generateName', 'namespace'] as const) {
      const v = meta[field];
      if (v !== undefined && v !== null && typeof v !== 'string') fail(`metadata.${field} is ${describe(v)}; it must be a string`, `metadata.${field}`);
    }
  }
  const spec = pod.spec;
  if (!isPlainObject(spec)) fail(`spec is ${spec === undefined ? 'missing' : describe(spec)}; a pod needs a spec map with containers`, 'spec');
  if (!Array.isArray(spec.containers)) {
    fail(`spec.containers is ${spec.containers === undefined ? 'missing' : describe(spec.containers)}; a pod needs a list of containers`, 'spec.containers');
  }
  const seen = new Map<string, string>();
  for (const list of NAMED_LISTS) {
    const items = spec[list];
    if (items === undefined || items === null) continue;
    if (!Array.isArray(items)) fail(`spec.${list} is ${describe(items)}; it must be a list`, `spec.${list}`);
    const volumeNames: string[] = [];
    items.forEach((item: unknown, i: number) => {
      const at = `spec.${list}[${i}]`;
      if (!isPlainObject(item)) fail(`${at} is ${describe(item)}; it must be a map`, at);
      const name = item.name;
      if (name !== undefined && name !== null && typeof name !== 'string') fail(`${at}.name is ${describe(name)}; it must be a string`, `${at}.name`);
      if (list === 'imagePullSecrets') return;
      if (typeof name !== 'string' || name === '') fail(`${at} has no name; every ${list === 'volumes' ? 'volume' : 'container'} needs one`, `${at}.name`);
      if (list === 'volumes') {
        volumeNames.push(name);
        return;
      }
      const prev = seen.get(name);
      if (prev !== undefined)
        fail(`container name ${quote(name)} is used twice (${prev} and ${at}); names must be unique across containers and init containers`, `${at}.name`);
      seen.set(name, at);
    });
    // Volume names are compared once every volume is known to be a named map.
    const names = new Set<string>();
    for (const [i, name] of volumeNames.entries()) {
      if (names.has(name)) fail(`volume name ${quote(name)} is used twice (spec.volumes[${i}]); volume names must be unique`, `spec.volumes[${i}].name`);
      names.add(name);
    }
  }
  // Every check above passed: the input is a Pod as pod-types.ts describes it.
  const received = pod as Pod;
  const hasManagedFields = isPlainObject(meta) && Object.hasOwn(meta, 'managedFields');
  let copy: Pod;
  if (hasManagedFields) {
    // Copy everything but managedFields (never cloned: it can be megabytes).
    const restMeta = copyMap(meta);
    delete restMeta.managedFields;
    copy = { ...received, metadata: restMeta } as Pod;
  } else {
    copy = (isPlainObject(meta) ? { ...received, metadata: copyMap(meta) } : { ...received }) as Pod;
  }
  return { received, pod: share ? copy : cloneJson(copy), hasManagedFields };
}
