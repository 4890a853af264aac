/**
 * @module heal/restart-workloads
 * Restart workloads as `kubectl rollout restart` does (the pod template annotation
 * `kubectl.kubernetes.io/restartedAt` set to the time, RFC 3339), at most `maxInFlight` rolling
 * at once, `interval` apart, each waited for until it progresses; stops starting new ones after
 * the first that does not progress within `timeout`, and reports every outcome.
 *
 * "Progress" is the same for Deployments, StatefulSets and DaemonSets: the controller has
 * observed the new generation, and pods from the new template exist (recognised by the
 * restartedAt value we wrote, among the pods the workload's selector selects) and every one of
 * them is injected with the current sidecar (classified `current`, by the same function as
 * `status`). It needs no kubelet: pods that stay Pending still count. It does not wait for the
 * whole rollout to finish (with a kubelet that is `kubectl rollout status`'s job); it proves the
 * new pods come out right before the next workload is touched.
 */
import { ClusterError } from '../errors.js';
import { isPlainObject } from '../util/json.js';
import { workloadPath, type ClusterApi } from '../kube/cluster-api.js';
import type { PlannedWorkload } from './restart-plan.js';
import { isLive } from './pod-record.js';
import type { Classification, WorkloadRef } from './types.js';

export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

export interface RolloutDeps {
  api: ClusterApi;
  /** Judge one pod as `status` does: a new pod is good when `current` (unless `accept` is given). */
  classify?(pod: unknown): Classification;
  /**
   * Judge a pod from the new template another way (`rollout`: ready, with the new revision's
   * sidecar): undefined when it is what the restart must produce, else why not.
   */
  accept?(pod: unknown, workload: WorkloadRef): string | undefined;
  /**
   * Also wait for the workload itself (`rollout`: every replica new and available, as
   * `kubectl rollout status`): undefined when done, else what it waits for.
   */
  settled?(workload: unknown): string | undefined;
  now(): Date;
  sleep(ms: number): Promise<void>;
  log(line: string): void;
}

export interface RolloutOptions {
  maxInFlight: number;
  intervalMs: number;
  timeoutMs: number;
  /** How often a rolling workload is looked at. Default 1 s. */
  pollMs?: number;
}

export interface RolloutOutcome {
  workload: WorkloadRef;
  /**
   * progressed; timeout (no progress in time); failed (a request failed); not-started (stopped
   * before); other-config (a new pod was injected by a webhook serving another config than
   * ours: a replica that has not reloaded yet, so waiting cannot make the rollout current).
   */
  result: 'progressed' | 'timeout' | 'failed' | 'not-started' | 'other-config';
  detail: string;
  restartedAt?: string;
  startedAt?: string;
  finishedAt?: string;
  /** Pods from the new template seen last, and how many of them had the current sidecar. */
  newPods: number;
  injected: number;
}

/** kubectl's value: RFC 3339 in UTC, whole seconds. */
export function restartedAtValue(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A LabelSelector as a `labelSelector=` query string. */
export function selectorString(selector: unknown): string {
  if (!isPlainObject(selector)) return '';
  const parts: string[] = [];
  if (isPlainObject(selector.matchLabels)) for (const [k, v] of Object.entries(selector.matchLabels)) parts.push(`${k}=${String(v)}`);
  if (Array.isArray(selector.matchExpressions)) {
    for (const e of selector.matchExpressions) {
      if (!isPlainObject(e) || typeof e.key !== 'string') continue;
      const values = Array.isArray(e.values) ? e.values.join(',') : '';
      if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
      else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
      else if (e.operator === 'Exists') parts.push(e.key);
      else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
    }
  }
  return parts.join(',');
}

export async function rollOut(targets: readonly PlannedWorkload[], deps: RolloutDeps, options: RolloutOptions): Promise<RolloutOutcome[]> {
  const outcomes: RolloutOutcome[] = targets.map((t) => ({
    workload: t.workload,
    result: 'not-started',
    detail: 'not started: an earlier rollout did not progress',
    newPods: 0,
    injected: 0,
  }));
  const inFlight = new Set<Promise<void>>();
  let stop = false;
  let lastStart = -Infinity;
  for (let i = 0; i < targets.length && !stop; i++) {
    while (inFlight.size >= options.maxInFlight) await Promise.race(inFlight);
    if (stop) break;
    const wait = lastStart + options.intervalMs - deps.now().getTime();
    if (wait > 0) await deps.sleep(wait);
    lastStart = deps.now().getTime();
    const index = i;
    const p: Promise<void> = restartOne(targets[index].workload, deps, options).then((o) => {
      outcomes[index] = o;
      if (o.result !== 'progressed') stop = true;
      inFlight.delete(p);
    });
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  return outcomes;
}

async function restartOne(workload: WorkloadRef, deps: RolloutDeps, options: RolloutOptions): Promise<RolloutOutcome> {
  const name = `${workload.kind.toLowerCase()}/${workload.name} -n ${workload.namespace}`;
  const startedAt = deps.now();
  const restartedAt = restartedAtValue(startedAt);
  const base = { workload, restartedAt, startedAt: startedAt.toISOString() };
  const done = (result: RolloutOutcome['result'], detail: string, newPods = 0, injected = 0): RolloutOutcome => {
    deps.log(`${result} ${name}: ${detail}`);
    return { ...base, result, detail, finishedAt: deps.now().toISOString(), newPods, injected };
  };
  let patched: unknown;
  try {
    deps.log(`restarting ${name} (${RESTARTED_AT}=${restartedAt})`);
    patched = await deps.api.patchWorkload(workload, { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: restartedAt } } } } });
  } catch (err) {
    return done('failed', `the restart patch failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  const meta = isPlainObject(patched) && isPlainObject(patched.metadata) ? patched.metadata : {};
  const generation = typeof meta.generation === 'number' ? meta.generation : 0;
  const spec = isPlainObject(patched) && isPlainObject(patched.spec) ? patched.spec : {};
  const labelSelector = selectorString(spec.selector);
  const deadline = startedAt.getTime() + options.timeoutMs;
  const poll = options.pollMs ?? 1000;
  let seen: Seen = { observed: false, newPods: 0, injected: 0, notInjected: '', otherConfig: '' };
  for (let round = 0; round < 1_000_000; round++) {
    try {
      const looked = await look(workload, generation, labelSelector, restartedAt, deps);
      // Deleted meanwhile (its namespace too, maybe): no pod will come; do not wait out the timeout.
      if (looked === 'deleted') return done('failed', 'the workload was deleted while it rolled out', seen.newPods, seen.injected);
      seen = looked;
    } catch (err) {
      if (!(err instanceof ClusterError)) throw err;
      deps.log(`warning: ${name}: ${err.message}`);
    }
    if (seen.observed && seen.newPods > 0 && seen.injected === seen.newPods && seen.pending === undefined) {
      return done(
        'progressed',
        deps.accept === undefined
          ? `${seen.newPods} new pods created, all with the current sidecar`
          : `${seen.newPods} new pods, all ready with the new sidecar`,
        seen.newPods,
        seen.injected,
      );
    }
    if (seen.otherConfig !== '') {
      return done(
        'other-config',
        `a new pod was injected by a webhook serving another config (${seen.otherConfig}); ` +
          'a replica has not reloaded it yet, or the webhook in the cluster serves another config than this one',
        seen.newPods,
        seen.injected,
      );
    }
    if (deps.now().getTime() >= deadline) break;
    await deps.sleep(Math.min(poll, Math.max(0, deadline - deps.now().getTime())));
  }
  const why = !seen.observed
    ? 'the controller has not observed the new generation'
    : seen.newPods === 0
      ? 'no pod from the new template was created'
      : seen.injected < seen.newPods
        ? `${seen.newPods - seen.injected} of ${seen.newPods} new pods are not ${deps.accept === undefined ? 'current' : 'ready with the new sidecar'} (${seen.notInjected})`
        : `the rollout did not finish: ${seen.pending ?? ''}`;
  return done('timeout', `no progress within ${Math.round(options.timeoutMs / 1000)}s: ${why}`, seen.newPods, seen.injected);
}

interface Seen {
  observed: boolean;
  newPods: number;
  /** New pods that are what the restart must produce (current, or accepted). */
  injected: number;
  /** Why the first other one is not. */
  notInjected: string;
  /** What another config injected differently into a new pod (classify only), or ''. */
  otherConfig: string;
  /** What the workload itself still waits for (with `settled`). */
  pending?: string;
}

async function look(workload: WorkloadRef, generation: number, labelSelector: string, restartedAt: string, deps: RolloutDeps): Promise<Seen | 'deleted'> {
  const current = await deps.api.find(workloadPath(workload));
  if (current === undefined || beingDeleted(current)) return 'deleted' as const;
  const status = isPlainObject(current) && isPlainObject(current.status) ? current.status : {};
  const observed = typeof status.observedGeneration === 'number' && status.observedGeneration >= generation;
  const { items } = await deps.api.list(`/api/v1/namespaces/${encodeURIComponent(workload.namespace)}/pods`, labelSelector ? { labelSelector } : {});
  const fresh = items.filter((p) => isLive(p) && annotation(p, RESTARTED_AT) === restartedAt);
  let injected = 0;
  let notInjected = '';
  let otherConfig = '';
  for (const p of fresh) {
    const judged = judge(p, workload, deps);
    if (judged === undefined) injected++;
    else notInjected ||= judged.why;
    otherConfig ||= judged?.otherConfig ?? '';
  }
  const pending = deps.settled?.(current);
  return { observed, newPods: fresh.length, injected, notInjected, otherConfig, ...(pending === undefined ? {} : { pending }) };
}

function judge(pod: unknown, workload: WorkloadRef, deps: RolloutDeps): { why: string; otherConfig?: string } | undefined {
  if (deps.accept !== undefined) {
    const why = deps.accept(pod, workload);
    return why === undefined ? undefined : { why };
  }
  if (deps.classify === undefined) throw new TypeError('rollOut needs classify or accept');
  const c = deps.classify(pod);
  if (c.state === 'current') return undefined;
  // Injected after our restart began, yet not as our config injects: another config did it.
  const otherConfig = c.state === 'stale' ? (c.changes ?? []).map((x) => x.detail).join('; ') || c.message : undefined;
  return { why: `${c.state}: ${c.reason}`, ...(otherConfig === undefined ? {} : { otherConfig }) };
}

function annotation(obj: unknown, key: string): unknown {
  const meta = isPlainObject(obj) && isPlainObject(obj.metadata) ? obj.metadata : {};
  return isPlainObject(meta.annotations) ? meta.annotations[key] : undefined;
}

/**
 * Whether a workload is still rolling out its current template: restarting it again would only
 * restart the rollout (without a kubelet, or with pods that never get ready, it never ends).
 */
export function rolloutInProgress(obj: unknown): boolean {
  if (!isPlainObject(obj) || !isPlainObject(obj.metadata)) return false;
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  const status = isPlainObject(obj.status) ? obj.status : {};
  const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
  if (typeof obj.metadata.generation === 'number' && num(status.observedGeneration) < obj.metadata.generation) return true;
  if (obj.kind === 'DaemonSet') return num(status.updatedNumberScheduled) < num(status.desiredNumberScheduled);
  if (obj.kind === 'StatefulSet' && typeof status.updateRevision === 'string' && status.currentRevision !== status.updateRevision) return true;
  const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
  // Old pods still there (kubectl rollout status: "old replicas are pending termination"): the
  // new ReplicaSet exists but the rollout has not finished, e.g. its pods are not ready yet.
  // In the steady state every pod is from the current template, even when none is ready.
  if (obj.kind === 'Deployment' && num(status.replicas) > num(status.updatedReplicas)) return true;
  return num(status.updatedReplicas) < replicas;
}

/** More targets than this are looked up with lists (one per kind, one of namespaces) rather than GETs each. */
const GET_EACH = 20;

/** Is this object (a workload or a namespace) being deleted? */
function beingDeleted(obj: unknown): boolean {
  if (!isPlainObject(obj) || !isPlainObject(obj.metadata)) return false;
  return obj.metadata.deletionTimestamp !== undefined || (isPlainObject(obj.status) && obj.status.phase === 'Terminating');
}

type Settled = 'ready' | 'rolling' | 'deleting';

/** One target's state from its workload and namespace objects (undefined: not found). */
function settledState(obj: unknown, ns: unknown): Settled {
  if (obj === undefined || beingDeleted(obj) || beingDeleted(ns)) return 'deleting';
  return rolloutInProgress(obj) ? 'rolling' : 'ready';
}

/**
 * Split targets into those to restart now, those whose rollout is still in progress, and those
 * being deleted: gone, marked for deletion, or in a namespace being deleted. No pod can be
 * created there, so a restart would only wait out the whole timeout and hold up the others.
 */
export async function settledTargets(
  api: ClusterApi,
  targets: readonly PlannedWorkload[],
): Promise<{ ready: PlannedWorkload[]; rolling: PlannedWorkload[]; deleting: PlannedWorkload[] }> {
  const out: Record<Settled, PlannedWorkload[]> = { ready: [], rolling: [], deleting: [] };
  const listed = targets.length > GET_EACH ? await settledByList(api, targets) : undefined;
  for (const t of targets) {
    const path = workloadPath(t.workload);
    if (listed !== undefined) {
      out[listed.states.get(path) === undefined || listed.terminating.has(t.workload.namespace) ? 'deleting' : listed.states.get(path)!].push(t);
      continue;
    }
    const [obj, ns] = await Promise.all([api.find(path), api.find(`/api/v1/namespaces/${encodeURIComponent(t.workload.namespace)}`)]);
    out[settledState(obj, ns)].push(t);
  }
  return out;
}

/**
 * The targets' kinds from one paginated list per kind (and namespace, when all are in one), and
 * the namespaces being deleted from one list: only each workload's state is kept, not the object.
 */
async function settledByList(api: ClusterApi, targets: readonly PlannedWorkload[]): Promise<{ states: Map<string, Settled>; terminating: Set<string> }> {
  const states = new Map<string, Settled>();
  const terminating = new Set<string>();
  const namespaces = new Set(targets.map((t) => t.workload.namespace));
  const metaOf = (obj: unknown): Record<string, unknown> => (isPlainObject(obj) && isPlainObject(obj.metadata) ? obj.metadata : {});
  for (const kind of new Set(targets.map((t) => t.workload.kind))) {
    const one = workloadPath({ kind, namespace: [...namespaces][0], name: '' }).replace(/\/$/, '');
    const path = namespaces.size === 1 ? one : one.replace(/\/namespaces\/[^/]+/, '');
    await api.listPages(path, {}, (items) => {
      for (const obj of items) {
        const meta = metaOf(obj);
        if (typeof meta.name !== 'string' || typeof meta.namespace !== 'string') continue;
        // Lists leave out each item's kind; rolloutInProgress reads it.
        states.set(workloadPath({ kind, namespace: meta.namespace, name: meta.name }), settledState({ ...(obj as object), kind }, undefined));
      }
    });
  }
  await api.listPages('/api/v1/namespaces', {}, (items) => {
    for (const ns of items) {
      const name = metaOf(ns).name;
      if (typeof name === 'string' && namespaces.has(name) && beingDeleted(ns)) terminating.add(name);
    }
  });
  return { states, terminating };
}
