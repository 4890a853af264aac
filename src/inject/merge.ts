/**
 * @module inject/merge
 * Put the rendered overlays into the pod, as Istio's RunTemplate and
 * reapplyOverwrittenContainers do:
 *
 * 1. Each overlay is strategic-merged, in order, onto the pod (merge keys, `$patch`, `null`),
 *    and also onto an empty pod, which collects what the templates inject (the status names).
 * 2. Native sidecars: when a template injects an init container whose name the user has in
 *    `containers` (a customised sidecar written before native sidecars), that container moves to
 *    `initContainers` first, so both merge into one.
 * 3. Overrides: a user container named like an injected one customises it. The user's container
 *    is merged on top of the injected one, so the user's fields win (lists by their merge keys);
 *    `image: auto` keeps the injected image. Nulls in the user's container count as absent, as
 *    for Go's typed containers.
 *
 * The pod given is not modified. The result is a new object that shares the subtrees no overlay
 * touched with it (cow.ts: the caller owns what it writes into before writing).
 */
import { InjectionError } from '../errors.js';
import { strategicMerge } from '../patch/index.js';
import { deepFreeze, isPlainObject, type JsonObject } from '../util/json.js';
import { setOwn } from '../util/own.js';
import { quote } from '../util/describe.js';
import { asJson, containersIn, itemNames, type Container, type Pod } from './pod-types.js';
import type { Overrides } from './profile-hooks.js';

/** Istio's marker for "use the injected image" in a customised sidecar container. */
const AUTO_IMAGE = 'auto';

interface Injected {
  initContainers: string[];
  containers: string[];
  volumes: string[];
  imagePullSecrets: string[];
}

export interface MergeResult {
  pod: JsonObject;
  /** Names the templates rendered (the status lists these). */
  injected: Injected;
  /**
   * The injected containers proper, for ordering: rendered names minus those that only patch a
   * container the pod already has (the template item has no image of its own, e.g. Istio's
   * grpc-agent adding env to the app container), which stay where the user put them.
   */
  sidecars: { containers: string[]; initContainers: string[] };
  /** The user containers (as overlays) that customised injected ones. */
  overrides: Overrides;
}

type Obj = Record<string, unknown>;

/** Every merge here shares what it does not touch (cow.ts). */
const SHARE = { share: true } as const;

/**
 * The maps of a list of a pod the templates produced (the merged pod, the templates' own pod).
 * Template output is not checked like the input pod (a template may render any YAML the merge
 * takes), so it is read defensively here; the user's pod is read through its types.
 */
function listOf(pod: Obj, list: string): Obj[] {
  const spec = pod.spec;
  if (!isPlainObject(spec)) return [];
  const items = spec[list];
  return Array.isArray(items) ? items.filter(isPlainObject) : [];
}

function names(pod: Obj, list: string): string[] {
  return listOf(pod, list)
    .map((c) => c.name)
    .filter((n): n is string => typeof n === 'string');
}

/** Merge overlays into `user` (the pod without any earlier injection). */
export function mergeOverlays(user: Pod, overlays: readonly { name: string; overlay: JsonObject }[]): MergeResult {
  let merged: JsonObject = asJson(user);
  let templatePod: JsonObject = EMPTY_TEMPLATE_POD;
  for (const { overlay } of overlays) {
    templatePod = templatePodAfter(templatePod, overlay);
    merged = moveToInit(merged, names(templatePod, 'initContainers'));
    merged = foldIntoNativeSidecars(strategicMerge(merged, overlay, undefined, SHARE));
  }
  const injected: Injected = {
    initContainers: names(templatePod, 'initContainers'),
    containers: names(templatePod, 'containers'),
    volumes: names(templatePod, 'volumes'),
    imagePullSecrets: names(templatePod, 'imagePullSecrets'),
  };
  const overrides: Overrides = { containers: [], initContainers: [] };
  merged = reapplyUserContainers(merged, user, injected, overrides);
  const userNames = new Set([...itemNames(user, 'containers'), ...itemNames(user, 'initContainers')]);
  const sidecarsIn = (list: string) =>
    listOf(templatePod, list)
      .filter((c) => typeof c.name === 'string' && !(userNames.has(c.name) && (c.image === undefined || c.image === null)))
      .map((c) => c.name as string);
  return { pod: merged, injected, overrides, sidecars: { containers: sidecarsIn('containers'), initContainers: sidecarsIn('initContainers') } };
}

/** What the templates alone make, before the first: nothing. */
const EMPTY_TEMPLATE_POD: JsonObject = Object.freeze({}) as JsonObject;

/**
 * The templates' own pod after one more overlay. It depends on the overlays only, and rendered
 * overlays are cached (render.ts: the same frozen object for the same text), so it is kept per
 * (pod so far, overlay) and read, never changed: pods of one workload skip a full copy of the
 * sidecar. Weak maps: an entry goes when its overlay leaves the render cache.
 */
const templatePods = new WeakMap<JsonObject, WeakMap<JsonObject, JsonObject>>();

function templatePodAfter(before: JsonObject, overlay: JsonObject): JsonObject {
  let next = templatePods.get(before);
  if (next === undefined) templatePods.set(before, (next = new WeakMap()));
  let after = next.get(overlay);
  if (after === undefined) {
    after = foldIntoNativeSidecars(strategicMerge(before, overlay, undefined, SHARE));
    // Only a frozen (cached, immutable) overlay can be a key: another could change under it.
    if (Object.isFrozen(overlay)) {
      deepFreeze(after); // shared between requests from now on
      next.set(overlay, after);
    }
  }
  return after;
}

/**
 * A later template that customises a sidecar under `containers` (written before native
 * sidecars) while an earlier one injected it as a native sidecar (an init container with
 * `restartPolicy: Always`): the customisation is merged into the native sidecar instead of
 * making a second container of the same name (Istio emits both, an invalid pod).
 */
function foldIntoNativeSidecars(pod: JsonObject): JsonObject {
  const inits = listOf(pod, 'initContainers');
  const containers = listOf(pod, 'containers');
  const native = new Set(inits.filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  const folding = containers.filter((c) => native.has(c.name));
  if (folding.length === 0) return pod;
  let out: JsonObject = { ...pod, spec: { ...(pod.spec as Obj), containers: containers.filter((c) => !folding.includes(c)) } as JsonObject };
  for (const c of folding) out = strategicMerge(out, { spec: { initContainers: [c as JsonObject] } }, undefined, SHARE);
  return out;
}

/** Move user containers named like injected init containers into initContainers (native sidecars). */
function moveToInit(pod: JsonObject, initNames: readonly string[]): JsonObject {
  if (initNames.length === 0) return pod;
  const containers = listOf(pod, 'containers');
  const inits = new Set(names(pod, 'initContainers'));
  const moving = containers.filter((c) => typeof c.name === 'string' && initNames.includes(c.name) && !inits.has(c.name));
  if (moving.length === 0) return pod;
  const spec = pod.spec as Obj;
  return {
    ...pod,
    spec: {
      ...spec,
      containers: containers.filter((c) => !moving.includes(c)),
      initContainers: [...listOf(pod, 'initContainers'), ...moving],
    } as JsonObject,
  };
}

/** Istio's reapplyOverwrittenContainers: the user's own container of an injected name wins. */
function reapplyUserContainers(merged: JsonObject, user: Pod, injected: Injected, record: MergeResult['overrides']): JsonObject {
  const userContainers = containersIn(user, 'containers');
  const userInits = containersIn(user, 'initContainers');
  const find = (list: readonly Container[], name: string) => list.find((c) => c.name === name);
  for (const name of injected.containers) {
    const mine = find(userContainers, name);
    if (mine === undefined) continue;
    const overlay = overrideOverlay(mine);
    record.containers.push(overlay);
    merged = strategicMerge(merged, { spec: { containers: [overlay] } }, undefined, SHARE);
  }
  for (const name of injected.initContainers) {
    const mine = find(userInits, name) ?? find(userContainers, name);
    if (mine === undefined) continue;
    const overlay = overrideOverlay(mine);
    record.initContainers.push(overlay);
    merged = strategicMerge(merged, { spec: { initContainers: [overlay] } }, undefined, SHARE);
  }
  return merged;
}

/** A user container as an overlay: nulls dropped (absent in Go), `$`-keys dropped (not directives), `image: auto` dropped. */
function overrideOverlay(container: Container): JsonObject {
  const out = withoutNulls(container) as Obj;
  if (out.image === AUTO_IMAGE) delete out.image;
  return out as JsonObject;
}

function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => x !== null).map(withoutNulls);
  if (!isPlainObject(v)) return v;
  const out: Obj = {};
  for (const k of Object.keys(v)) {
    if (v[k] === null || k.startsWith('$')) continue;
    setOwn(out, k, withoutNulls(v[k]));
  }
  return out;
}

/**
 * A pod needs at least one container in `spec.containers`. A user container named like a sidecar
 * that is injected as a native sidecar (an init container) is folded into it; when those were
 * the pod's only containers nothing would be left to run, and the apiserver would refuse the pod.
 */
export function assertHasAppContainer(pod: JsonObject, templates: readonly string[]): void {
  if (names(pod, 'containers').length > 0) return;
  const init = names(pod, 'initContainers');
  throw new InjectionError(
    'SI_INJECT_CONFLICT',
    `after injecting ${templates.map(quote).join(', ')} the pod would have no containers left: its containers are all named like sidecars the template injects as init containers (${init.map(quote).join(', ')}); ` +
      'give the application container its own name',
    { details: { initContainers: init } },
  );
}

/** Container names must be unique across containers and init containers: a clash is an error, never emitted. */
export function assertUniqueNames(pod: JsonObject, templates: readonly string[]): void {
  const seen = new Map<string, string>();
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const name of names(pod, list)) {
      const prev = seen.get(name);
      if (prev !== undefined) {
        throw new InjectionError(
          'SI_INJECT_CONFLICT',
          `after injecting ${templates.map(quote).join(', ')} the pod would have two containers named ${quote(name)} (in ${prev} and ${list}); ` +
            'rename your container, or move it to the list the template injects it into so it customises the injected one',
          { details: { container: name } },
        );
      }
      seen.set(name, list);
    }
  }
  const volumes = new Set<string>();
  for (const name of names(pod, 'volumes')) {
    if (volumes.has(name))
      throw new InjectionError('SI_INJECT_CONFLICT', `after injection the pod would have two volumes named ${quote(name)}; rename one`, {
        details: { volume: name },
      });
    volumes.add(name);
  }
}

/**
 * The app and an injected container share the pod's network: declaring the same port twice
 * means one of them cannot bind it. Refused with SI_INJECT_CONFLICT naming both containers.
 * Only containers that run alongside the app count (containers and native sidecars).
 */
export function assertNoPortConflicts(pod: JsonObject, sidecars: { containers: readonly string[]; initContainers: readonly string[] }): void {
  const injected = new Set([...sidecars.containers, ...sidecars.initContainers]);
  const running = [...listOf(pod, 'containers'), ...listOf(pod, 'initContainers').filter((c) => c.restartPolicy === 'Always')];
  const owners = new Map<string, string>();
  for (const c of running) {
    if (typeof c.name !== 'string' || !injected.has(c.name) || !Array.isArray(c.ports)) continue;
    for (const p of c.ports)
      if (isPlainObject(p) && typeof p.containerPort === 'number')
        owners.set(`${typeof p.protocol === 'string' ? p.protocol : 'TCP'}/${p.containerPort}`, c.name);
  }
  if (owners.size === 0) return;
  for (const c of running) {
    if (typeof c.name !== 'string' || injected.has(c.name) || !Array.isArray(c.ports)) continue;
    for (const p of c.ports) {
      if (!isPlainObject(p) || typeof p.containerPort !== 'number') continue;
      const key = `${typeof p.protocol === 'string' ? p.protocol : 'TCP'}/${p.containerPort}`;
      const sidecar = owners.get(key);
      if (sidecar !== undefined) {
        throw new InjectionError(
          'SI_INJECT_CONFLICT',
          `container ${quote(c.name)} declares port ${key}, which the injected container ${quote(sidecar)} uses; containers of a pod share its network, so move the app to another port`,
          { details: { container: c.name, sidecar, port: key } },
        );
      }
    }
  }
}
