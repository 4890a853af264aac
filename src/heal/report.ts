/**
 * @module heal/report
 * Pods grouped by owning workload, with counts per state: what `status` prints (a table like
 * `kubectl get`, or JSON/YAML with every pod) and what `restart` plans from. Field names are
 * stable (`status -o json`).
 */
import { POD_STATES, type Classification, type PodState, type WorkloadRef } from './types.js';
import { workloadKey } from './owners.js';

interface PodEntry {
  name: string;
  state: PodState;
  reason: string;
  message: string;
  changes?: Classification['changes'];
  hash?: Classification['hash'];
  /** The revision that injected it (the status annotation's). */
  revision?: string;
}

export interface WorkloadEntry {
  namespace: string;
  kind: string;
  name: string;
  apiVersion?: string;
  uid?: string;
  /** The worst state among its pods: missing, stale, foreign, current, skipped. */
  state: PodState;
  counts: Record<PodState, number>;
  /** The revisions that injected its pods, sorted (two while a rollout moves it). */
  revisions: string[];
  /** What changed (stale) or why (other states): distinct one-liners over the pods. */
  details: string[];
  pods: PodEntry[];
}

export interface StatusReport {
  kind: 'SidecarStatus';
  summary: Record<PodState, number> & { pods: number; workloads: number };
  workloads: WorkloadEntry[];
}

const SEVERITY: readonly PodState[] = ['missing', 'stale', 'foreign', 'current', 'skipped'];

export function zeroCounts(): Record<PodState, number> {
  return Object.fromEntries(POD_STATES.map((s) => [s, 0])) as Record<PodState, number>;
}

export interface ClassifiedPod {
  name: string;
  workload: WorkloadRef;
  classification: Classification;
}

export function buildReport(pods: readonly ClassifiedPod[]): StatusReport {
  const byKey = new Map<string, WorkloadEntry>();
  const summary = { ...zeroCounts(), pods: 0, workloads: 0 };
  for (const p of pods) {
    const key = workloadKey(p.workload);
    let w = byKey.get(key);
    if (w === undefined) {
      w = {
        namespace: p.workload.namespace,
        kind: p.workload.kind,
        name: p.workload.name,
        state: 'skipped',
        counts: zeroCounts(),
        revisions: [],
        details: [],
        pods: [],
      };
      if (p.workload.apiVersion !== undefined) w.apiVersion = p.workload.apiVersion;
      if (p.workload.uid !== undefined) w.uid = p.workload.uid;
      byKey.set(key, w);
    }
    const c = p.classification;
    const entry: PodEntry = { name: p.name, state: c.state, reason: c.reason, message: c.message };
    if (c.changes !== undefined) entry.changes = c.changes;
    if (c.hash !== undefined) entry.hash = c.hash;
    if (c.revision !== undefined) {
      entry.revision = c.revision;
      if (!w.revisions.includes(c.revision)) w.revisions = [...w.revisions, c.revision].sort();
    }
    w.pods.push(entry);
    w.counts[c.state]++;
    summary[c.state]++;
    summary.pods++;
  }
  const workloads = [...byKey.values()].sort((a, b) => a.namespace.localeCompare(b.namespace) || a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
  for (const w of workloads) {
    w.pods.sort((a, b) => a.name.localeCompare(b.name));
    w.state = SEVERITY.find((s) => w.counts[s] > 0) ?? 'skipped';
    const details = new Set<string>();
    for (const p of w.pods) {
      if (p.state !== w.state) continue;
      if (p.state === 'stale' && p.changes !== undefined) for (const ch of p.changes) details.add(ch.detail);
      else details.add(p.state === 'current' ? '' : p.reason);
    }
    w.details = [...details].filter((d) => d !== '');
  }
  summary.workloads = workloads.length;
  return { kind: 'SidecarStatus', summary, workloads };
}

/** True when `status` must exit non-zero: something stale or missing. */
export function needsAttention(report: StatusReport): boolean {
  return report.summary.stale > 0 || report.summary.missing > 0;
}

/** `kubectl get`-style table, one row per workload, then a one-line summary. */
export function formatTable(report: StatusReport, allNamespaces: boolean): string {
  const head = [
    ...(allNamespaces ? ['NAMESPACE'] : []),
    'WORKLOAD',
    'PODS',
    'CURRENT',
    'STALE',
    'MISSING',
    'SKIPPED',
    'FOREIGN',
    'REVISION',
    'STATE',
    'DETAIL',
  ];
  const rows = report.workloads.map((w) => [
    ...(allNamespaces ? [w.namespace] : []),
    `${w.kind.toLowerCase()}/${w.name}`,
    String(w.pods.length),
    ...(['current', 'stale', 'missing', 'skipped', 'foreign'] as const).map((s) => String(w.counts[s])),
    w.revisions.join(',') || '-',
    w.state,
    w.details.join('; ') || '-',
  ]);
  const s = report.summary;
  const tail = `${s.pods} pods in ${s.workloads} workloads: ${s.current} current, ${s.stale} stale, ${s.missing} missing, ${s.skipped} skipped, ${s.foreign} foreign\n`;
  if (rows.length === 0) return `No pods found.\n${tail}`;
  return `${alignColumns([head, ...rows])}${tail}`;
}

/** Columns padded to their widest cell plus three spaces (as kubectl); the last is not padded. */
function alignColumns(rows: readonly string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] + 3))).join('')).join('\n') + '\n';
}
