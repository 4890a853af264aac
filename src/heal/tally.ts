/**
 * @module heal/tally
 * The reconciler's running totals, kept up to date one pod at a time: counts per state (the
 * gauge), pods grouped by owning workload, and which workloads changed since the last look.
 * A watch event costs a few map operations, never a pass over every pod, so 50,000 pods and
 * 100 changes a second stay cheap. Workload entries are built with `buildReport`, the same
 * code as `status`, from the workload's own pods only.
 */
import { resolveWorkload, workloadKey, type OwnerIndex } from './owners.js';
import type { PodRecord } from './pod-record.js';
import { buildReport, zeroCounts, type StatusReport, type WorkloadEntry } from './report.js';
import type { PodState, WorkloadRef } from './types.js';

interface Workload {
  ref: WorkloadRef;
  pods: Map<string, PodRecord>;
  counts: Record<PodState, number>;
}

/** Owners whose own controller decides the workload (ReplicaSet -> Deployment, Job -> CronJob). */
const INDIRECT = new Set(['ReplicaSet', 'Job']);

export class PodTally {
  readonly counts: Record<PodState, number> = zeroCounts();
  readonly #index: OwnerIndex;
  readonly #pods = new Map<string, { record: PodRecord; workload: string }>();
  readonly #workloads = new Map<string, Workload>();
  readonly #byOwner = new Map<string, Set<string>>();
  readonly #dirty = new Set<string>();

  constructor(index: OwnerIndex) {
    this.#index = index;
  }

  get size(): number {
    return this.#pods.size;
  }

  /** Add, replace (record) or remove (undefined) one pod. */
  set(key: string, record: PodRecord | undefined): void {
    const old = this.#pods.get(key);
    if (old !== undefined) {
      this.#pods.delete(key);
      this.counts[old.record.classification.state]--;
      const w = this.#workloads.get(old.workload);
      if (w !== undefined) {
        w.pods.delete(key);
        w.counts[old.record.classification.state]--;
        if (w.pods.size === 0) this.#workloads.delete(old.workload);
      }
      this.#dirty.add(old.workload);
      const owner = ownerKey(old.record);
      if (owner !== undefined) {
        const set = this.#byOwner.get(owner);
        set?.delete(key);
        if (set?.size === 0) this.#byOwner.delete(owner);
      }
    }
    if (record === undefined) return;
    const ref = resolveWorkload(record.namespace, record.name, record.uid, record.owner, this.#index);
    const wk = workloadKey(ref);
    let w = this.#workloads.get(wk);
    if (w === undefined) this.#workloads.set(wk, (w = { ref, pods: new Map(), counts: zeroCounts() }));
    w.pods.set(key, record);
    w.counts[record.classification.state]++;
    this.#pods.set(key, { record, workload: wk });
    this.counts[record.classification.state]++;
    this.#dirty.add(wk);
    const owner = ownerKey(record);
    if (owner !== undefined) {
      let set = this.#byOwner.get(owner);
      if (set === undefined) this.#byOwner.set(owner, (set = new Set()));
      set.add(key);
    }
  }

  /** Start over from these pods (after a list); every workload, old and new, is marked changed. */
  replaceAll(pods: Iterable<[string, PodRecord]>): void {
    for (const wk of this.#workloads.keys()) this.#dirty.add(wk);
    this.#pods.clear();
    this.#workloads.clear();
    this.#byOwner.clear();
    for (const s of Object.keys(this.counts) as PodState[]) this.counts[s] = 0;
    for (const [k, r] of pods) this.set(k, r);
  }

  clear(): void {
    this.replaceAll([]);
    this.#dirty.clear();
  }

  /** A ReplicaSet's or Job's controller may have changed: its pods are resolved again. */
  ownerChanged(namespace: string, kind: string, name: string): void {
    const keys = this.#byOwner.get(`${namespace}/${kind}/${name}`);
    if (keys === undefined) return;
    for (const k of [...keys]) this.set(k, this.#pods.get(k)!.record);
  }

  /** Every pod's workload resolved again (the ReplicaSets or Jobs were relisted). */
  resolveAll(): void {
    this.replaceAll([...this.#pods].map(([k, p]) => [k, p.record] as [string, PodRecord]));
  }

  /** The workloads changed since the last call (gone ones included), and forget them. */
  takeDirty(): string[] {
    const out = [...this.#dirty];
    this.#dirty.clear();
    return out;
  }

  markDirty(workload: string): void {
    this.#dirty.add(workload);
  }

  /** A workload's counts per state, kept per event; undefined when it has no pods (left). */
  countsOf(workload: string): Readonly<Record<PodState, number>> | undefined {
    return this.#workloads.get(workload)?.counts;
  }

  /** A workload as `status` reports it; undefined when it has no pods (left). */
  entry(workload: string): WorkloadEntry | undefined {
    const w = this.#workloads.get(workload);
    if (w === undefined) return undefined;
    return buildReport([...w.pods.values()].map((r) => ({ name: r.name, workload: w.ref, classification: r.classification }))).workloads[0];
  }

  /** The whole report (a pass over every pod: for tests and rare use, not per event). */
  report(): StatusReport {
    return buildReport(
      [...this.#workloads.values()].flatMap((w) => [...w.pods.values()].map((r) => ({ name: r.name, workload: w.ref, classification: r.classification }))),
    );
  }
}

function ownerKey(r: PodRecord): string | undefined {
  return r.owner !== undefined && INDIRECT.has(r.owner.kind) ? `${r.namespace}/${r.owner.kind}/${r.owner.name}` : undefined;
}
