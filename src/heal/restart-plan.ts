/**
 * @module heal/restart-plan
 * Which workloads `restart` (and `serve --reconcile-restart`) rolls: Deployments, StatefulSets
 * and DaemonSets with a stale or missing pod (as asked). Bare pods, Jobs, CronJobs and
 * anything else are reported, never restarted: deleting a bare pod loses it, and restarting a
 * Job's pod re-runs its work. Pure.
 */
import type { StatusReport, WorkloadEntry } from './report.js';
import { isRestartable, type WorkloadRef } from './types.js';

export interface PlanOptions {
  stale: boolean;
  missing: boolean;
}

export interface PlannedWorkload {
  workload: WorkloadRef;
  stale: number;
  missing: number;
  /** Why: what changed (stale) and the reasons (missing). */
  why: string[];
}

export interface RestartPlan {
  restart: PlannedWorkload[];
  /** Affected, but not restartable by us: the user must act. */
  reportOnly: (PlannedWorkload & { advice: string })[];
}

const ADVICE: Record<string, string> = {
  Pod: 'a bare pod: delete and recreate it yourself',
  Job: "a Job's pod: it gets the sidecar when the Job creates its next pod (restarting would re-run the work)",
  CronJob: "a CronJob's pod: the next scheduled run gets the sidecar",
  ReplicaSet: 'a ReplicaSet without a Deployment: delete its pods to have them recreated',
};

/** Why a workload of this kind is not restarted by us, and what the user can do. */
export function restartAdvice(kind: string): string {
  return ADVICE[kind] ?? `a ${kind}: restart it with its own tooling`;
}

export function planRestart(report: StatusReport, options: PlanOptions): RestartPlan {
  const plan: RestartPlan = { restart: [], reportOnly: [] };
  for (const w of report.workloads) {
    const stale = options.stale ? w.counts.stale : 0;
    const missing = options.missing ? w.counts.missing : 0;
    if (stale + missing === 0) continue;
    const entry: PlannedWorkload = { workload: refOf(w), stale, missing, why: whyOf(w, options) };
    if (isRestartable(w.kind)) plan.restart.push(entry);
    else plan.reportOnly.push({ ...entry, advice: restartAdvice(w.kind) });
  }
  return plan;
}

function refOf(w: WorkloadEntry): WorkloadRef {
  const ref: WorkloadRef = { kind: w.kind, name: w.name, namespace: w.namespace };
  if (w.apiVersion !== undefined) ref.apiVersion = w.apiVersion;
  if (w.uid !== undefined) ref.uid = w.uid;
  return ref;
}

function whyOf(w: WorkloadEntry, options: PlanOptions): string[] {
  const why = new Set<string>();
  for (const p of w.pods) {
    if (p.state === 'stale' && options.stale) for (const c of p.changes ?? [{ detail: p.message }]) why.add(`stale: ${c.detail}`);
    if (p.state === 'missing' && options.missing) why.add(`missing: ${p.reason}`);
  }
  return [...why];
}

/** One line per workload for the dry run and the log. */
export function describePlan(plan: RestartPlan, dryRun: boolean): string {
  const lines: string[] = [];
  const verb = dryRun ? 'would restart' : 'restart';
  for (const p of plan.restart) {
    lines.push(`${verb} ${p.workload.kind.toLowerCase()}/${p.workload.name} -n ${p.workload.namespace}: ${counts(p)} (${p.why.join('; ')})`);
  }
  for (const p of plan.reportOnly) {
    lines.push(`not restarted ${p.workload.kind.toLowerCase()}/${p.workload.name} -n ${p.workload.namespace}: ${counts(p)}; ${p.advice}`);
  }
  if (lines.length === 0) lines.push('nothing to restart');
  return `${lines.join('\n')}\n`;
}

function counts(p: PlannedWorkload): string {
  return [p.stale > 0 ? `${p.stale} stale` : '', p.missing > 0 ? `${p.missing} missing` : ''].filter((s) => s !== '').join(', ');
}
