/**
 * @module heal/pod-record
 * What `status` and the reconciler keep of a pod once it is classified: its identity, its
 * controller reference and its classification, a few hundred bytes instead of the whole pod
 * (tens of kilobytes once parsed). The transform before caching, as client-go's SetTransform:
 * the pod is classified as it arrives (a list page, a watch event) and then dropped.
 */
import { isPlainObject } from '../util/json.js';
import { controllerOf, type OwnerRef } from './owners.js';
import type { Classification } from './types.js';

export interface PodRecord {
  name: string;
  namespace: string;
  uid?: string;
  resourceVersion: string;
  /** The controller reference (ReplicaSet, Job, StatefulSet...); none for a bare pod. */
  owner?: OwnerRef;
  classification: Classification;
}

/** Whether a pod can still run (not terminating, not finished): others are not kept. */
export function isLive(pod: unknown): boolean {
  if (!isPlainObject(pod) || !isPlainObject(pod.metadata)) return false;
  if (pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null) return false;
  const phase = isPlainObject(pod.status) ? pod.status.phase : undefined;
  return phase !== 'Succeeded' && phase !== 'Failed';
}

export type PodClassify = (pod: Record<string, unknown>, namespace: string) => Classification;

/** The record of a live pod; undefined for anything else (finished, terminating, not a pod). */
export function toPodRecord(pod: unknown, classify: PodClassify): PodRecord | undefined {
  if (!isLive(pod)) return undefined;
  const p = pod as Record<string, unknown> & { metadata: Record<string, unknown> };
  const meta = p.metadata;
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  const name = typeof meta.name === 'string' ? meta.name : typeof meta.generateName === 'string' ? meta.generateName : '';
  const record: PodRecord = {
    name,
    namespace,
    resourceVersion: typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '',
    classification: classify(p, namespace),
  };
  if (typeof meta.uid === 'string') record.uid = meta.uid;
  const owner = controllerOf(pod);
  if (owner !== undefined) record.owner = owner;
  return record;
}
