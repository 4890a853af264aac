/**
 * @module rollout/health
 * The health gate of a rollout, read from what the kubelet and the controllers report: a new pod
 * passes when it names the expected revision in its status annotation and is Ready (the
 * kubelet's condition: every container, the sidecar's readiness probe included, passed), and a
 * workload passes when every replica is new and available (`kubectl rollout status`'s rules).
 * When the gate fails, the pods' container states and the Events around them say why
 * (ImagePullBackOff, a failing probe, a webhook refusing the pods...).
 */
import type { ClusterApi } from '../kube/cluster-api.js';
import { RESTARTED_AT, selectorString } from '../heal/restart-workloads.js';
import { isLive } from '../heal/pod-record.js';
import { workloadPath } from '../kube/cluster-api.js';
import type { WorkloadRef } from '../heal/types.js';
import { parseStatus } from '../inject/status-annotation.js';
import { isPlainObject } from '../util/json.js';

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj => (isPlainObject(v) ? v : {});
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** Undefined when the pod is Ready with `revision`'s sidecar, else why not. */
export function podProblem(pod: unknown, statusKey: string, revision: string): string | undefined {
  const meta = obj(obj(pod).metadata);
  const name = typeof meta.name === 'string' ? meta.name : '(unnamed)';
  const text = obj(meta.annotations)[statusKey];
  if (typeof text !== 'string') return `pod ${name} has no sidecar (no ${statusKey} annotation)`;
  let injectedBy: string;
  try {
    injectedBy = parseStatus(text, statusKey).status.revision || 'default';
  } catch (err) {
    return `pod ${name}: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (injectedBy !== revision) return `pod ${name} was injected by revision ${injectedBy}, not ${revision}`;
  const conditions = obj(obj(pod).status).conditions;
  const ready = Array.isArray(conditions) ? conditions.find((c) => obj(c).type === 'Ready') : undefined;
  if (obj(ready).status !== 'True') return `pod ${name} is not Ready (${containerSummary(pod) || String(obj(obj(pod).status).phase ?? 'no status')})`;
  return undefined;
}

/** Undefined when every replica runs the current template and is available, else what is pending. */
export function rolloutPending(workload: unknown): string | undefined {
  const o = obj(workload);
  const meta = obj(o.metadata);
  const spec = obj(o.spec);
  const status = obj(o.status);
  if (typeof meta.generation === 'number' && num(status.observedGeneration) < meta.generation) return 'the controller has not observed the new generation';
  if (o.kind === 'DaemonSet') {
    const desired = num(status.desiredNumberScheduled);
    if (num(status.updatedNumberScheduled) < desired) return `${num(status.updatedNumberScheduled)} of ${desired} pods updated`;
    if (num(status.numberAvailable) < desired) return `${num(status.numberAvailable)} of ${desired} updated pods available`;
    return undefined;
  }
  const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
  if (num(status.updatedReplicas) < replicas) return `${num(status.updatedReplicas)} of ${replicas} replicas updated`;
  if (o.kind === 'StatefulSet') {
    if (num(status.readyReplicas) < replicas) return `${num(status.readyReplicas)} of ${replicas} updated replicas ready`;
    if (typeof status.updateRevision === 'string' && status.currentRevision !== status.updateRevision) return 'the controller has not finished the update';
    return undefined;
  }
  if (num(status.replicas) > num(status.updatedReplicas)) return `${num(status.replicas) - num(status.updatedReplicas)} old replicas are pending termination`;
  if (num(status.availableReplicas) < num(status.updatedReplicas))
    return `${num(status.availableReplicas)} of ${num(status.updatedReplicas)} updated replicas available`;
  return undefined;
}

/** What the kubelet says about a pod's containers: `sidecar-proxy: running, not ready; web: waiting (CrashLoopBackOff)`. */
function containerSummary(pod: unknown): string {
  const status = obj(obj(pod).status);
  const parts: string[] = [];
  for (const list of ['initContainerStatuses', 'containerStatuses']) {
    const items = Array.isArray(status[list]) ? (status[list] as unknown[]) : [];
    for (const c of items) parts.push(describeContainer(obj(c)));
  }
  return parts.join('; ');
}

function describeContainer(c: Obj): string {
  const state = obj(c.state);
  const restarts = num(c.restartCount) > 0 ? `, ${num(c.restartCount)} restarts` : '';
  const last = obj(obj(c.lastState).terminated);
  const lastText = last.reason !== undefined || last.exitCode !== undefined ? `, last exit ${String(last.exitCode ?? '?')} (${String(last.reason ?? '')})` : '';
  let now = 'no state';
  if (isPlainObject(state.running)) now = c.ready === true ? 'running, ready' : 'running, not ready';
  else if (isPlainObject(state.waiting))
    now = `waiting: ${[state.waiting.reason, state.waiting.message].filter((x) => typeof x === 'string' && x !== '').join(': ')}`;
  else if (isPlainObject(state.terminated)) now = `terminated: ${String(state.terminated.reason ?? '')} (exit ${String(state.terminated.exitCode ?? '?')})`;
  return `${String(c.name)}: ${now}${restarts}${lastText}`;
}

/** One new pod of a workload that did not pass, as a user needs to see it. */
interface PodDiagnosis {
  pod: string;
  phase: string;
  problem: string;
  containers: string;
  /** The latest Warning (and Normal) Events on the pod: `Warning Unhealthy: Readiness probe failed: ... (x12)`. */
  events: string[];
}

export interface WorkloadDiagnosis {
  pods: PodDiagnosis[];
  /** Events on the workload and its ReplicaSets since the restart (e.g. FailedCreate: the webhook refused the pods). */
  events: string[];
}

const MAX_EVENTS = 6;

/** The new pods (from the restart stamped `restartedAt`) and the Events around them. */
export async function diagnose(
  api: ClusterApi,
  workload: WorkloadRef,
  restartedAt: string,
  startedAt: string,
  statusKey: string,
  revision: string,
): Promise<WorkloadDiagnosis> {
  const current = await api.find(workloadPath(workload));
  const selector = selectorString(obj(obj(current).spec).selector);
  const ns = encodeURIComponent(workload.namespace);
  const [pods, events] = await Promise.all([
    api.list(`/api/v1/namespaces/${ns}/pods`, selector ? { labelSelector: selector } : {}),
    api.list(`/api/v1/namespaces/${ns}/events`),
  ]);
  const fresh = pods.items.filter((p) => isLive(p) && obj(obj(obj(p).metadata).annotations)[RESTARTED_AT] === restartedAt);
  const since = Date.parse(startedAt) - 1000;
  const eventsOf = (match: (involved: Obj) => boolean) =>
    events.items
      .map(obj)
      .filter((e) => match(obj(e.involvedObject)) && eventTime(e) >= since)
      .sort((a, b) => eventTime(b) - eventTime(a) || (a.type === 'Warning' ? -1 : 1))
      .slice(0, MAX_EVENTS)
      .map((e) => `${String(e.type)} ${String(e.reason)}: ${String(e.message ?? '').trim()}${num(e.count) > 1 ? ` (x${num(e.count)})` : ''}`);
  return {
    pods: fresh.map((p) => {
      const name = String(obj(obj(p).metadata).name);
      return {
        pod: name,
        phase: String(obj(obj(p).status).phase ?? 'unknown'),
        problem: podProblem(p, statusKey, revision) ?? 'ready',
        containers: containerSummary(p),
        events: eventsOf((i) => i.kind === 'Pod' && i.name === name),
      };
    }),
    events: eventsOf(
      (i) =>
        (i.kind === workload.kind && i.name === workload.name) ||
        (i.kind === 'ReplicaSet' && typeof i.name === 'string' && i.name.startsWith(`${workload.name}-`)),
    ),
  };
}

function eventTime(e: Obj): number {
  for (const k of ['lastTimestamp', 'eventTime', 'firstTimestamp']) {
    const t = typeof e[k] === 'string' ? Date.parse(e[k] as string) : NaN;
    if (!Number.isNaN(t)) return t;
  }
  const series = obj(e.series);
  return typeof series.lastObservedTime === 'string' ? Date.parse(series.lastObservedTime) : 0;
}
