/**
 * @module rollout/run
 * Carry out a planned rollout, one batch of namespaces at a time: relabel them (one merge patch
 * each, labels and move record together, so every pod created sees either the old labels or the
 * new ones), restart their workloads with the bounded restart of `restart` (heal/rollout), and
 * wait until every new pod is Ready with the target revision's sidecar and every workload has
 * finished rolling. The first workload that does not get there within the timeout stops the
 * run: its pods' container states and Events are collected, the batch's namespaces get their
 * labels back, and their workloads are restarted onto the revision they came from (waited for
 * the same way). Batches already moved stay moved; later ones are never touched.
 */
import type { ClusterApi } from '../kube/cluster-api.js';
import type { PlannedWorkload } from '../heal/restart-plan.js';
import { workloadPath } from '../kube/cluster-api.js';
import { RESTARTED_AT, restartedAtValue, rollOut, type RolloutOutcome } from '../heal/restart-workloads.js';
import type { WorkloadRef } from '../heal/types.js';
import { isPlainObject } from '../util/json.js';
import { diagnose, podProblem, rolloutPending, type WorkloadDiagnosis } from './health.js';
import { workloadsOff, type NamespaceMove } from './rollout-plan.js';
import { describeLabels, MOVE_ANNOTATION, type MoveLabels } from './targets.js';

export interface RolloutOptions {
  /** Namespaces moved together. */
  batchSize: number;
  maxInFlight: number;
  intervalMs: number;
  /** Per workload: from its restart until all its new pods are ready. */
  timeoutMs: number;
  pollMs?: number;
}

export interface RolloutRunDeps {
  api: ClusterApi;
  statusKey: string;
  now(): Date;
  sleep(ms: number): Promise<void>;
  log(line: string): void;
}

export interface WorkloadResult {
  workload: WorkloadRef;
  result: RolloutOutcome['result'];
  detail: string;
  newPods: number;
  /** New pods ready with the expected sidecar. */
  ready: number;
  /** The restart's stamp (kubectl.kubernetes.io/restartedAt), when it began and when it was judged (RFC 3339). */
  restartedAt?: string;
  startedAt?: string;
  finishedAt?: string;
  /** Why it failed: its new pods' container states and Events. */
  diagnosis?: WorkloadDiagnosis;
}

export interface NamespaceResult {
  namespace: string;
  batch: number;
  /** moved; rolled-back (the gate failed, it is back where it was); rollback-failed; not-started. */
  result: 'moved' | 'rolled-back' | 'rollback-failed' | 'not-started';
  detail: string;
  plan: NamespaceMove;
  workloads: WorkloadResult[];
  rollback?: WorkloadResult[];
}

export interface RolloutReport {
  kind: 'SidecarRollout';
  dryRun: boolean;
  undo: boolean;
  from?: string;
  to?: string;
  namespaces: NamespaceResult[];
}

export function batchesOf<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export async function executeRollout(moves: readonly NamespaceMove[], options: RolloutOptions, deps: RolloutRunDeps): Promise<NamespaceResult[]> {
  const batches = batchesOf(moves, options.batchSize);
  const results: NamespaceResult[] = [];
  batches.forEach((batch, b) => {
    for (const plan of batch)
      results.push({
        namespace: plan.namespace,
        batch: b + 1,
        result: 'not-started',
        detail: 'not started: an earlier batch was rolled back',
        plan,
        workloads: [],
      });
  });
  for (const [b, batch] of batches.entries()) {
    const mine = results.filter((r) => r.batch === b + 1);
    deps.log(`batch ${b + 1} of ${batches.length}: ${batch.map((m) => m.namespace).join(', ')}`);
    for (const m of batch) {
      deps.log(`namespace ${m.namespace}: ${describeLabels(m.labels.after)} (${m.from.via} -> ${m.to.via})`);
      await relabel(deps.api, m.namespace, m.labels.after, m.record.after);
    }
    const revisionOf = new Map(batch.map((m) => [m.namespace, m.to.revision]));
    const targets = batch.flatMap((m) => m.restart.map((w) => planned(w.workload, w.pods)));
    const outcomes = await restartOnto(targets, revisionOf, options, deps);
    for (const r of mine) r.workloads = outcomes.filter((o) => o.workload.namespace === r.namespace);
    const failed = outcomes.filter((o) => o.result === 'timeout' || o.result === 'failed');
    if (failed.length === 0) {
      for (const r of mine) {
        r.result = 'moved';
        r.detail = `on ${r.plan.to.name}: ${r.workloads.length} workloads restarted, every new pod ready with revision ${r.plan.to.revision}'s sidecar`;
      }
      continue;
    }
    for (const f of failed) f.diagnosis = await diagnoseQuietly(deps, f, revisionOf.get(f.workload.namespace)!);
    const first = failed[0]!;
    const why = `${first.workload.kind.toLowerCase()}/${first.workload.name} -n ${first.workload.namespace}: ${first.detail}`;
    await rollBack(batch, mine, why, options, deps);
    break;
  }
  return results;
}

/** Put the batch back: labels and records as they were, then restart onto the revision each came from. */
async function rollBack(batch: readonly NamespaceMove[], mine: NamespaceResult[], why: string, options: RolloutOptions, deps: RolloutRunDeps): Promise<void> {
  deps.log(`rolling back ${batch.map((m) => m.namespace).join(', ')}: ${why}`);
  const targets: PlannedWorkload[] = [];
  for (const m of batch) {
    await relabel(deps.api, m.namespace, m.labels.before, m.record.before);
    const { restart } = await workloadsOff(deps.api, m.namespace, deps.statusKey, m.from.revision);
    targets.push(...restart.map((w) => planned(w.workload, w.pods)));
  }
  const revisionOf = new Map(batch.map((m) => [m.namespace, m.from.revision]));
  // All at once, back to the revision that worked (each workload's own maxUnavailable still
  // holds), and every one even after one that does not progress: a stop here would leave the
  // rest on the failing revision.
  const outcomes = await restartOnto(targets, revisionOf, { ...options, maxInFlight: Math.max(1, targets.length), intervalMs: 0 }, deps);
  for (const o of outcomes.filter((x) => x.result !== 'progressed')) o.diagnosis = await diagnoseQuietly(deps, o, revisionOf.get(o.workload.namespace)!);
  for (const r of mine) {
    r.rollback = outcomes.filter((o) => o.workload.namespace === r.namespace);
    const bad = r.rollback.filter((o) => o.result !== 'progressed');
    r.result = bad.length === 0 ? 'rolled-back' : 'rollback-failed';
    r.detail =
      bad.length === 0
        ? `back on ${r.plan.from.revision} (${describeLabels(r.plan.labels.before)}) because ${why}`
        : `labels restored (${describeLabels(r.plan.labels.before)}), but ${bad.map((o) => `${o.workload.kind.toLowerCase()}/${o.workload.name}: ${o.detail}`).join('; ')}; the move failed because ${why}`;
  }
}

async function restartOnto(
  targets: PlannedWorkload[],
  revisionOf: ReadonlyMap<string, string>,
  options: RolloutOptions,
  deps: RolloutRunDeps,
): Promise<WorkloadResult[]> {
  await pastLastRestart(targets, deps);
  const outcomes = await rollOut(
    targets,
    {
      api: deps.api,
      accept: (pod, workload) => podProblem(pod, deps.statusKey, revisionOf.get(workload.namespace)!),
      settled: rolloutPending,
      now: deps.now,
      sleep: deps.sleep,
      log: deps.log,
    },
    {
      maxInFlight: options.maxInFlight,
      intervalMs: options.intervalMs,
      timeoutMs: options.timeoutMs,
      ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
    },
  );
  return outcomes.map((o) => ({
    workload: o.workload,
    result: o.result,
    detail: o.detail,
    newPods: o.newPods,
    ready: o.injected,
    ...(o.restartedAt !== undefined ? { restartedAt: o.restartedAt } : {}),
    ...(o.startedAt !== undefined ? { startedAt: o.startedAt } : {}),
    ...(o.finishedAt !== undefined ? { finishedAt: o.finishedAt } : {}),
  }));
}

/**
 * restartedAt has whole seconds (kubectl's format): a second restart within the second of the
 * last one (a fast rollback, an undo right after a move) would write the same value, which is no
 * change, so no new pods. Wait for the next second then.
 */
async function pastLastRestart(targets: readonly PlannedWorkload[], deps: RolloutRunDeps): Promise<void> {
  for (const t of targets) {
    const current = await deps.api.find(workloadPath(t.workload));
    const template = isPlainObject(current) && isPlainObject(current.spec) && isPlainObject(current.spec.template) ? current.spec.template : {};
    const annotations = isPlainObject(template.metadata) && isPlainObject(template.metadata.annotations) ? template.metadata.annotations : {};
    const last = Date.parse(String(annotations[RESTARTED_AT] ?? ''));
    const now = deps.now().getTime();
    if (!Number.isNaN(last) && restartedAtValue(new Date(last)) === restartedAtValue(new Date(now))) await deps.sleep(1000 - (now % 1000) + 10);
  }
}

async function diagnoseQuietly(deps: RolloutRunDeps, o: WorkloadResult, revision: string): Promise<WorkloadDiagnosis | undefined> {
  if (o.restartedAt === undefined || o.startedAt === undefined) return undefined;
  try {
    return await diagnose(deps.api, o.workload, o.restartedAt, o.startedAt, deps.statusKey, revision);
  } catch (err) {
    deps.log(`warning: cannot read why ${o.workload.kind.toLowerCase()}/${o.workload.name} failed: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

function planned(workload: WorkloadRef, pods: number): PlannedWorkload {
  return { workload, stale: pods, missing: 0, why: [] };
}

/** One merge patch: the two labels and the move record (null removes either). */
async function relabel(api: ClusterApi, namespace: string, labels: MoveLabels, record: string | null): Promise<unknown> {
  const patched = await api.patchMerge(`/api/v1/namespaces/${encodeURIComponent(namespace)}`, {
    metadata: { labels, annotations: { [MOVE_ANNOTATION]: record } },
  });
  if (!isPlainObject(patched)) throw new TypeError(`patching namespace ${namespace} returned no object`);
  return patched;
}
