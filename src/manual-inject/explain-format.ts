/**
 * @module manual-inject/explain-format
 * How `explain` prints: plain text for people (one block per pod template, both layers' steps
 * in order, then warnings), or JSON for scripts (an array of entries with stable field names).
 */
import type { ExplainEntry, ExplainStep } from './explain-manifest.js';

export function formatExplainJson(entries: readonly ExplainEntry[]): string {
  return `${JSON.stringify(entries, null, 2)}\n`;
}

export function formatExplainText(entries: readonly ExplainEntry[]): string {
  if (entries.length === 0)
    return 'no pods or pod templates found (kinds: Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob, DeploymentConfig, List)\n';
  return entries.map(formatEntry).join('\n');
}

function formatEntry(e: ExplainEntry): string {
  const lines: string[] = [];
  const where = `document ${e.document}${e.item === undefined ? '' : `, ${e.item}`}`;
  const verdict = e.outcome === 'rejected' ? 'REJECTED' : e.injected ? 'INJECTED' : 'NOT INJECTED';
  lines.push(`${e.kind} "${e.namespace}/${e.name}" (${where}): ${verdict} (${e.outcome === 'rejected' ? e.error?.code : e.reason})`);
  lines.push(`  ${e.message}`);
  const labels =
    Object.entries(e.namespaceLabels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',') || 'none';
  const via = e.reached ? `reached via ${e.via ?? '?'}` : 'not reached';
  lines.push(`  webhook configuration (namespace ${e.namespace}, labels ${labels}${e.namespaceLabelsAssumed ? ' (assumed)' : ''}): ${via}`);
  for (const s of e.steps.filter((x) => x.layer === 'webhook')) lines.push(step(s));
  lines.push(e.reached ? '  injector rules:' : '  injector rules (what it would decide if called):');
  for (const s of e.steps.filter((x) => x.layer === 'injector')) lines.push(step(s));
  for (const w of e.warnings) lines.push(`  warning: ${w}`);
  return `${lines.join('\n')}\n`;
}

function step(s: ExplainStep): string {
  return `    - ${s.check}: ${s.found} -> ${s.effect}`;
}
