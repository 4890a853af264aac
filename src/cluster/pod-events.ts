/**
 * @module cluster/pod-events
 * Events on the injector's own pod, so `kubectl describe pod` shows why it is not ready (a
 * missing or forbidden TLS Secret) next to kubelet's probe failures. The pod learns its name,
 * namespace and uid from the downward API (POD_NAME, POD_NAMESPACE, POD_UID, set by the
 * install); without them (serve outside a pod) nothing is recorded. Recording itself
 * (deduplication, rate limit, never throwing) is heal/events' EventRecorder, over the same
 * client as the caBundle and the TLS Secret.
 */
import { EventRecorder } from '../heal/events.js';
import type { WorkloadRef } from '../heal/types.js';
import type { ClusterApi } from '../kube/cluster-api.js';

/** The pod this process runs in, from the downward-API variables; undefined outside a pod. */
export function podFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): WorkloadRef | undefined {
  const name = env.POD_NAME?.trim();
  const namespace = env.POD_NAMESPACE?.trim();
  if (!name || !namespace) return undefined;
  const uid = env.POD_UID?.trim();
  return { kind: 'Pod', apiVersion: 'v1', name, namespace, ...(uid ? { uid } : {}) };
}

export function podEventRecorder(api: Pick<ClusterApi, 'createEvent'>, pod: WorkloadRef, onError: (err: unknown) => void): EventRecorder {
  return new EventRecorder({ api, instance: pod.name, onError });
}
