/**
 * @module rollout/rollout-format
 * What `rollout` prints for people: the plan (a dry run, and the head of a real run) and the
 * outcome per namespace, with, for a failure, each failing pod's container states and Events.
 * `-o wide` adds what a record of the run needs (the labels replaced, when each restart began
 * and how long it took); `-o json|yaml` prints the same data as objects instead.
 */
import type { NamespaceMove } from './rollout-plan.js';
import type { NamespaceResult, WorkloadResult } from './run.js';
import { batchesOf } from './run.js';
import { describeLabels } from './targets.js';

const ref = (w: { kind: string; name: string }) => `${w.kind.toLowerCase()}/${w.name}`;

export function formatPlan(moves: readonly NamespaceMove[], batchSize: number, dryRun: boolean, wide = false): string {
  const lines: string[] = [];
  for (const [b, batch] of batchesOf(moves, batchSize).entries()) {
    lines.push(`batch ${b + 1}: ${batch.map((m) => m.namespace).join(', ')}`);
    for (const m of batch) {
      lines.push(`  namespace ${m.namespace}: ${describeLabels(m.labels.after)}`);
      if (wide) lines.push(`    labels now: ${labelsNow(m)}`);
      lines.push(`    served by ${m.from.via}`);
      lines.push(`           -> ${m.to.via}`);
      if (m.restart.length === 0) lines.push("    restart: nothing (no pod has another revision's sidecar)");
      for (const w of m.restart) lines.push(`    ${dryRun ? 'would restart' : 'restart'} ${ref(w.workload)}: ${w.pods} pods on ${w.revisions.join(', ')}`);
      for (const w of m.notRestarted) lines.push(`    not restarted ${ref(w.workload)}: ${w.pods} pods on ${w.revisions.join(', ')}; ${w.advice}`);
    }
  }
  if (lines.length === 0) lines.push('nothing to move');
  return `${lines.join('\n')}\n`;
}

export function formatResults(results: readonly NamespaceResult[], wide = false): string {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`${r.result} ${r.namespace}${wide ? ` (batch ${r.batch})` : ''}: ${r.detail}`);
    for (const w of r.workloads) workloadLines(w, '  ', lines, wide);
    if (r.rollback !== undefined && r.rollback.length > 0) {
      lines.push('  rollback:');
      for (const w of r.rollback) workloadLines(w, '    ', lines, wide);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The labels the move replaces, as the namespace has them now (the keys it removes included only when set). */
function labelsNow(m: NamespaceMove): string {
  const set = Object.entries(m.labels.before)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k}=${v}`);
  return set.length === 0 ? 'none of the injection labels' : set.join(', ');
}

/** `[restarted 2026-11-28T10:00:00Z, 12.3s, 2/2 new pods ready]`: when the restart began, how long until judged. */
function timing(w: WorkloadResult): string {
  const took = w.startedAt !== undefined && w.finishedAt !== undefined ? `, ${((Date.parse(w.finishedAt) - Date.parse(w.startedAt)) / 1000).toFixed(1)}s` : '';
  return w.startedAt === undefined ? '' : ` [restarted ${w.startedAt}${took}, ${w.ready}/${w.newPods} new pods ready]`;
}

function workloadLines(w: WorkloadResult, indent: string, lines: string[], wide: boolean): void {
  lines.push(`${indent}${w.result} ${ref(w.workload)}: ${w.detail}${wide ? timing(w) : ''}`);
  const d = w.diagnosis;
  if (d === undefined) return;
  for (const p of d.pods) {
    lines.push(`${indent}  pod ${p.pod} (${p.phase}): ${p.problem}`);
    if (p.containers !== '') lines.push(`${indent}    containers: ${p.containers}`);
    for (const e of p.events) lines.push(`${indent}    event: ${e}`);
  }
  for (const e of d.events) lines.push(`${indent}  event on ${ref(w.workload)}: ${e}`);
}
