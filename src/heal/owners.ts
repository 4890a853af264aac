/**
 * @module heal/owners
 * A pod's owning workload, from controller owner references as the controllers write them: a
 * ReplicaSet owned by a Deployment is that Deployment, a Job owned by a CronJob is that CronJob;
 * StatefulSet, DaemonSet, Job and anything else is itself; a pod without a controller is a bare
 * pod (its own workload). Intermediate owners come from an index the caller fills from lists
 * of ReplicaSets and Jobs, so nothing is guessed from names.
 */
import { isPlainObject } from '../util/json.js';
import type { WorkloadRef } from './types.js';

type Obj = Record<string, unknown>;

export interface OwnerRef {
  kind: string;
  name: string;
  apiVersion?: string;
  uid?: string;
}

/** Looks up `namespace/name` of a ReplicaSet or Job: its controller (undefined: none or unknown). */
export interface ControllerLookup {
  get(key: string): OwnerRef | undefined;
}

/** `namespace/name` of ReplicaSets and Jobs -> their controller. */
export interface OwnerIndex {
  replicaSets: ControllerLookup;
  jobs: ControllerLookup;
}

export const EMPTY_OWNER_INDEX: OwnerIndex = { replicaSets: new Map(), jobs: new Map() };

/** The controller reference of any object's metadata, if it has one. */
export function controllerOf(obj: unknown): OwnerRef | undefined {
  if (!isPlainObject(obj) || !isPlainObject(obj.metadata)) return undefined;
  const refs = obj.metadata.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  const ref = refs.find((r) => isPlainObject(r) && r.controller === true) as Obj | undefined;
  if (ref === undefined || typeof ref.kind !== 'string' || typeof ref.name !== 'string') return undefined;
  const out: OwnerRef = { kind: ref.kind, name: ref.name };
  if (typeof ref.apiVersion === 'string') out.apiVersion = ref.apiVersion;
  if (typeof ref.uid === 'string') out.uid = ref.uid;
  return out;
}

/** Index entries for a list of ReplicaSets or Jobs. */
export function indexControllers(items: readonly unknown[]): Map<string, OwnerRef | undefined> {
  const map = new Map<string, OwnerRef | undefined>();
  for (const item of items) {
    if (!isPlainObject(item) || !isPlainObject(item.metadata)) continue;
    const { namespace, name } = item.metadata;
    if (typeof namespace === 'string' && typeof name === 'string') map.set(`${namespace}/${name}`, controllerOf(item));
  }
  return map;
}

export function workloadOf(pod: unknown, index: OwnerIndex): WorkloadRef {
  const meta = isPlainObject(pod) && isPlainObject(pod.metadata) ? pod.metadata : {};
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  const podName = typeof meta.name === 'string' ? meta.name : typeof meta.generateName === 'string' ? meta.generateName : '';
  return resolveWorkload(namespace, podName, typeof meta.uid === 'string' ? meta.uid : undefined, controllerOf(pod), index);
}

/** The workload of a pod known by its name, uid and controller reference (workloadOf's rule). */
export function resolveWorkload(namespace: string, podName: string, podUid: string | undefined, ref: OwnerRef | undefined, index: OwnerIndex): WorkloadRef {
  if (ref === undefined) return withUid({ kind: 'Pod', name: podName, namespace, apiVersion: 'v1' }, podUid);
  const parent = (map: ControllerLookup, kind: string): WorkloadRef | undefined => {
    const up = map.get(`${namespace}/${ref.name}`);
    return up !== undefined && up.kind === kind ? withUid({ kind, name: up.name, namespace, apiVersion: up.apiVersion }, up.uid) : undefined;
  };
  const self = withUid({ kind: ref.kind, name: ref.name, namespace, apiVersion: ref.apiVersion }, ref.uid);
  if (ref.kind === 'ReplicaSet') return parent(index.replicaSets, 'Deployment') ?? self;
  if (ref.kind === 'Job') return parent(index.jobs, 'CronJob') ?? self;
  return self;
}

function withUid(ref: WorkloadRef, uid: string | undefined): WorkloadRef {
  if (ref.apiVersion === undefined) delete ref.apiVersion;
  if (uid !== undefined) ref.uid = uid;
  return ref;
}

export function workloadKey(w: WorkloadRef): string {
  return `${w.namespace}/${w.kind}/${w.name}`;
}
