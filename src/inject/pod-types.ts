/**
 * @module inject/pod-types
 * The Kubernetes Pod as the pipeline sees it after `readPodInput`: the upstream types
 * (k8s.io/api core/v1 Pod, ObjectMeta, PodSpec, Container, Volume), narrowed to exactly what
 * readPodInput checked and no further. Fields it did not check stay `unknown` (the index
 * signatures), so a stage that reads one must still look at it; fields it checked are typed, so
 * stages use them without re-checking. `null` stays where Kubernetes' JSON allows it (an absent
 * map written as `null`): the pipeline keeps the pod exactly as received apart from what it
 * injects.
 */
import type { JsonObject } from '../util/json.js';

/** A string map as checked: every value a string (labels, annotations). */
export type StringMap = Record<string, string>;

/** metav1.ObjectMeta: the fields readPodInput checked. */
export interface ObjectMeta {
  name?: string | null;
  generateName?: string | null;
  namespace?: string | null;
  labels?: StringMap | null;
  annotations?: StringMap | null;
  [field: string]: unknown;
}

/** corev1.Container (also an EphemeralContainer): a map with a non-empty, pod-unique name. */
export interface Container {
  name: string;
  [field: string]: unknown;
}

/** corev1.Volume: a map with a non-empty name, unique among the pod's volumes. */
export interface Volume {
  name: string;
  [field: string]: unknown;
}

/** corev1.LocalObjectReference (an imagePullSecrets item): a map; the name may be absent. */
export interface LocalObjectReference {
  name?: string | null;
  [field: string]: unknown;
}

/** corev1.PodSpec: `containers` present, the named lists lists of maps (or absent/null). */
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[] | null;
  ephemeralContainers?: Container[] | null;
  volumes?: Volume[] | null;
  imagePullSecrets?: LocalObjectReference[] | null;
  [field: string]: unknown;
}

/** corev1.Pod, or a workload's pod template (`{metadata, spec}`). */
export interface Pod {
  metadata?: ObjectMeta | null;
  spec: PodSpec;
  [field: string]: unknown;
}

/**
 * The pod as JSON, for the JSON engines (strategic merge, undo). The one conversion: a Pod came
 * from JSON and stages put only JSON into it, so this is the same value seen through the wider type.
 */
export function asJson(pod: Pod): JsonObject {
  return pod as unknown as JsonObject;
}

/** Pod lists whose items are matched by name (status, strip, undo, merge). */
export type NamedList = 'containers' | 'initContainers' | 'ephemeralContainers' | 'volumes' | 'imagePullSecrets';

/** The pod's annotations (empty when it has none). */
export function annotationsOf(pod: Pod): Readonly<StringMap> {
  return pod.metadata?.annotations ?? {};
}

/** The containers of one of the pod's container lists (empty when absent). */
export function containersIn(pod: Pod, list: 'containers' | 'initContainers' | 'ephemeralContainers'): Container[] {
  return pod.spec[list] ?? [];
}

/** Names of the items of a pod's named list, in order (imagePullSecrets without a name are left out). */
export function itemNames(pod: Pod, list: NamedList): string[] {
  const items: readonly { name?: string | null }[] = pod.spec[list] ?? [];
  const out: string[] = [];
  for (const it of items) if (typeof it.name === 'string') out.push(it.name);
  return out;
}
