/**
 * @module rollout/rollout-plan
 * What a rollout will do, decided before anything changes (and all a dry run prints): for each
 * namespace, the labels it gets, the injector that serves it now and the one that will, and the
 * workloads to restart (those with pods injected by another revision than the target's).
 *
 * Refused up front, with the reason, so a rollout never starts what it cannot finish or undo: a
 * namespace not on the source revision, a target no installed webhook takes (or two would:
 * every pod injected twice), and a namespace that no single injector serves now (a failed move
 * would have nothing to go back to).
 */
import type { InjectionKeys } from '../config/types.js';
import { InjectorError } from '../errors.js';
import type { ClusterApi } from '../kube/cluster-api.js';
import { indexControllers, workloadKey, workloadOf, type OwnerIndex } from '../heal/owners.js';
import { restartAdvice } from '../heal/restart-plan.js';
import { isLive } from '../heal/pod-record.js';
import { labelsOfObject, nameOf } from '../heal/scan.js';
import { isRestartable, type WorkloadRef } from '../heal/types.js';
import { parseStatus } from '../inject/status-annotation.js';
import { isPlainObject } from '../util/json.js';
import {
  applyLabels,
  currentMoveLabels,
  describeInjector,
  describeLabels,
  formatRecord,
  labelledFor,
  labelsFor,
  MOVE_ANNOTATION,
  readInjectors,
  readRecord,
  servingInjectors,
  type Injector,
  type MoveLabels,
} from './targets.js';

export interface RolloutRequest {
  keys: InjectionKeys;
  /** The status annotation's key (the config's). */
  statusKey: string;
  /** Forward: the revision (or tag) namespaces are on now, and the one they move to. */
  from?: string;
  to?: string;
  /** Back to what the last move replaced (the namespaces' move records). */
  undo: boolean;
  /** The namespaces, in order; or every namespace on `from` (every one with a record, for undo). */
  namespaces?: string[];
  all: boolean;
  now: Date;
}

export interface WorkloadPlan {
  workload: WorkloadRef;
  /** Live pods injected by another revision than the target's, and those revisions. */
  pods: number;
  revisions: string[];
}

export interface NamespaceMove {
  namespace: string;
  labels: { before: MoveLabels; after: MoveLabels };
  /** The move record before and after (null: none). */
  record: { before: string | null; after: string | null };
  from: { revision: string; via: string };
  to: { name: string; revision: string; via: string };
  restart: WorkloadPlan[];
  /** Bare pods, Jobs...: they keep their sidecar until recreated. */
  notRestarted: (WorkloadPlan & { advice: string })[];
}

function refused(message: string): InjectorError {
  return new InjectorError('SI_ROLLOUT_REFUSED', message);
}

export async function planRollout(api: ClusterApi, req: RolloutRequest): Promise<NamespaceMove[]> {
  if (!req.undo && (req.from === undefined || req.to === undefined)) throw refused('say which revisions: --from A --to B (or --undo)');
  if (!req.undo && req.from === req.to) throw refused(`--from and --to are both ${req.from}: nothing to move`);
  const injectors = await readInjectors(api);
  if (injectors.length === 0)
    throw refused(
      'no sidecar-injector webhook configuration in the cluster (none labelled app.kubernetes.io/name=sidecar-injector): install the revisions first (manifests --revision NAME)',
    );
  const namespaces = await candidates(api, req);
  const moves: NamespaceMove[] = [];
  for (const ns of namespaces) moves.push(await planNamespace(api, req, injectors, ns));
  return moves;
}

async function candidates(api: ClusterApi, req: RolloutRequest): Promise<unknown[]> {
  if (req.all) {
    const { items } = await api.list('/api/v1/namespaces');
    const on = items
      .filter((n) => (req.undo ? recordOf(n) !== undefined : labelledFor(req.keys, labelsOfObject(n), req.from!)))
      .sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
    if (on.length === 0)
      throw refused(
        req.undo
          ? `no namespace carries a move record (${MOVE_ANNOTATION}): nothing to undo`
          : `no namespace is on ${req.from} (${describeLabels(labelsFor(req.keys, req.from!))})`,
      );
    return on;
  }
  if (req.namespaces === undefined || req.namespaces.length === 0)
    throw refused('say which namespaces: -n NS[,NS...] (moved in that order), or -A for every one on the source revision');
  const out: unknown[] = [];
  for (const name of new Set(req.namespaces)) {
    const ns = await api.find(`/api/v1/namespaces/${encodeURIComponent(name)}`);
    if (ns === undefined) throw refused(`namespace ${name} not found`);
    if (req.undo && recordOf(ns) === undefined)
      throw refused(`namespace ${name} has no move record (${MOVE_ANNOTATION}): no rollout moved it, nothing to undo`);
    if (!req.undo && !labelledFor(req.keys, labelsOfObject(ns), req.from!)) {
      throw refused(
        `namespace ${name} is not on ${req.from}: it has ${describeLabels(currentMoveLabels(req.keys, labelsOfObject(ns)))}, and ${req.from} means ${describeLabels(labelsFor(req.keys, req.from!))}`,
      );
    }
    out.push(ns);
  }
  return out;
}

function recordOf(ns: unknown) {
  const meta = isPlainObject(ns) && isPlainObject(ns.metadata) ? ns.metadata : {};
  return readRecord(nameOf(ns), isPlainObject(meta.annotations) ? meta.annotations : {});
}

function onlyInjector(serving: Injector[], what: () => string, none: string): Injector {
  if (serving.length === 1) return serving[0]!;
  if (serving.length === 0) throw refused(`${what()}: ${none}`);
  throw refused(`${what()}: ${serving.map(describeInjector).join(' and ')} would all inject its pods (every pod injected twice); remove one`);
}

async function planNamespace(api: ClusterApi, req: RolloutRequest, injectors: Injector[], ns: unknown): Promise<NamespaceMove> {
  const name = nameOf(ns);
  const labels = labelsOfObject(ns);
  const record = recordOf(ns);
  const before = currentMoveLabels(req.keys, labels);
  const now = onlyInjector(
    servingInjectors(injectors, name, labels),
    () => `namespace ${name} (${describeLabels(before)})`,
    'no installed injector serves it now, so a failed move would have nothing to go back to',
  );
  const change = req.undo ? record!.labels : labelsFor(req.keys, req.to!);
  const target = onlyInjector(
    servingInjectors(injectors, name, applyLabels(labels, change)),
    () => `namespace ${name} labelled ${describeLabels(change)}`,
    req.undo
      ? 'no installed injector would serve it (the revision it came from is gone)'
      : `no installed injector would serve it: install ${req.to} first (manifests --revision ${req.to}, or --tag ${req.to})`,
  );
  const meta = isPlainObject(ns) && isPlainObject(ns.metadata) ? ns.metadata : {};
  const annotations = isPlainObject(meta.annotations) ? meta.annotations : {};
  const recordBefore = typeof annotations[MOVE_ANNOTATION] === 'string' ? annotations[MOVE_ANNOTATION] : null;
  const recordAfter = req.undo ? null : formatRecord({ labels: before, revision: now.revision, to: req.to!, at: req.now.toISOString() });
  const { restart, notRestarted } = await workloadsOff(api, name, req.statusKey, target.revision);
  return {
    namespace: name,
    labels: { before, after: change },
    record: { before: recordBefore, after: recordAfter },
    from: { revision: now.revision, via: describeInjector(now) },
    to: { name: req.undo ? labelName(req.keys, record!.labels) : req.to!, revision: target.revision, via: describeInjector(target) },
    restart,
    notRestarted,
  };
}

/** The revision (or tag) name two move labels mean: `<namespaceLabel>=enabled` is the default revision, and wins. */
function labelName(keys: InjectionKeys, labels: MoveLabels): string {
  return labels[keys.namespaceLabel] === 'enabled' ? 'default' : (labels[keys.revisionLabel] ?? 'default');
}

/** The workloads of a namespace with live pods injected by another revision than `revision`. */
export async function workloadsOff(
  api: ClusterApi,
  namespace: string,
  statusKey: string,
  revision: string,
): Promise<{ restart: WorkloadPlan[]; notRestarted: (WorkloadPlan & { advice: string })[] }> {
  const ns = encodeURIComponent(namespace);
  const [pods, replicaSets, jobs] = await Promise.all([
    api.list(`/api/v1/namespaces/${ns}/pods`),
    api.list(`/apis/apps/v1/namespaces/${ns}/replicasets`),
    api.list(`/apis/batch/v1/namespaces/${ns}/jobs`),
  ]);
  const index: OwnerIndex = { replicaSets: indexControllers(replicaSets.items), jobs: indexControllers(jobs.items) };
  const byWorkload = new Map<string, WorkloadPlan>();
  for (const pod of pods.items) {
    if (!isLive(pod)) continue;
    const injectedBy = revisionOf(pod, statusKey);
    if (injectedBy === undefined || injectedBy === revision) continue;
    const workload = workloadOf(pod, index);
    const key = workloadKey(workload);
    const entry = byWorkload.get(key) ?? { workload, pods: 0, revisions: [] };
    entry.pods++;
    if (!entry.revisions.includes(injectedBy)) entry.revisions = [...entry.revisions, injectedBy].sort();
    byWorkload.set(key, entry);
  }
  const all = [...byWorkload.values()].sort((a, b) => a.workload.kind.localeCompare(b.workload.kind) || a.workload.name.localeCompare(b.workload.name));
  return {
    restart: all.filter((w) => isRestartable(w.workload.kind)),
    notRestarted: all.filter((w) => !isRestartable(w.workload.kind)).map((w) => ({ ...w, advice: restartAdvice(w.workload.kind) })),
  };
}

/** The revision a pod's status annotation names (`default` when it names none), undefined when not injected. */
function revisionOf(pod: unknown, statusKey: string): string | undefined {
  const meta = isPlainObject(pod) && isPlainObject(pod.metadata) ? pod.metadata : {};
  const text = isPlainObject(meta.annotations) ? meta.annotations[statusKey] : undefined;
  if (typeof text !== 'string') return undefined;
  try {
    return parseStatus(text, statusKey).status.revision || 'default';
  } catch {
    // Unreadable: a restart gives it a status the target wrote.
    return '(unreadable status)';
  }
}
