/**
 * @module heal/scan
 * Read what classification needs from the cluster (the webhook configuration's entries, the
 * namespaces' labels, pods, ReplicaSets and Jobs) and classify every pod. One pass of lists,
 * no per-pod requests, so thousands of pods cost a few paginated lists; pods are classified
 * page by page and kept as records (pod-record), ReplicaSets and Jobs are read as metadata.
 *
 * Terminating pods and pods that have finished (Succeeded, Failed) are left out: they will
 * never run again, so their sidecar does not matter.
 */
import type { LoadedConfig } from '../config/types.js';
import { webhookScopes, type WebhookScope } from '../install/webhook-rules.js';
import { InjectorError } from '../errors.js';
import { isPlainObject } from '../util/json.js';
import { ClassifyMemo } from './classify-memo.js';
import { findWebhookConfiguration } from './webhook-find.js';
import type { ClusterApi } from '../kube/cluster-api.js';
import { indexControllers, resolveWorkload, type OwnerIndex, type OwnerRef } from './owners.js';
import { toPodRecord, type PodRecord } from './pod-record.js';
import { buildReport, type ClassifiedPod, type StatusReport } from './report.js';

export interface ScanOptions {
  /** One namespace, or undefined for all. */
  namespace?: string;
  /** The MutatingWebhookConfiguration whose entries decide which pods reach the webhook; undefined: found as heal/webhook-find says. */
  webhookConfig?: string;
  /** Used when that configuration cannot be read: the scopes `manifests` writes. */
  injectorNamespace: string;
}

export interface ScanResult {
  report: StatusReport;
  /** What classified the pods: reused to judge the pods a restart creates. */
  env: { config: LoadedConfig; scopes: WebhookScope[]; namespaceLabels: Map<string, Record<string, string>>; index: OwnerIndex };
  pods: ClassifiedPod[];
  /** What was assumed (e.g. no webhook configuration found): printed to stderr. */
  notes: string[];
}

/** The webhook entries from the cluster, or (with a note why) the ones `manifests` writes. */
export async function readScopes(api: ClusterApi, config: LoadedConfig, options: ScanOptions, notes: string[]): Promise<WebhookScope[]> {
  let mwc: unknown;
  try {
    mwc = (await findWebhookConfiguration(api, options.webhookConfig, notes))?.object;
  } catch (err) {
    if (err instanceof InjectorError && err.code === 'SI_USAGE') throw err;
    notes.push(`cannot read MutatingWebhookConfiguration ${options.webhookConfig ?? ''} (${err instanceof Error ? err.message : String(err)})`);
  }
  if (isPlainObject(mwc) && Array.isArray(mwc.webhooks)) {
    const scopes = scopesFromWebhooks(mwc.webhooks);
    if (scopes.length > 0) return scopes;
  }
  notes.push(`assuming the webhook configuration manifests writes (injector namespace ${options.injectorNamespace})`);
  return webhookScopes(config.injectionKeys, { injectorNamespace: options.injectorNamespace, excludedNamespaces: config.ignoredNamespaces });
}

/** A webhook configuration's entries are WebhookScopes as they stand (selectors and conditions). */
export function scopesFromWebhooks(webhooks: unknown[]): WebhookScope[] {
  const out: WebhookScope[] = [];
  for (const w of webhooks) {
    if (!isPlainObject(w) || typeof w.name !== 'string') continue;
    const scope: WebhookScope = {
      name: w.name,
      namespaceSelector: isPlainObject(w.namespaceSelector) ? (w.namespaceSelector as WebhookScope['namespaceSelector']) : {},
      objectSelector: isPlainObject(w.objectSelector) ? (w.objectSelector as WebhookScope['objectSelector']) : {},
    };
    if (Array.isArray(w.matchConditions)) scope.matchConditions = w.matchConditions as WebhookScope['matchConditions'];
    out.push(scope);
  }
  return out;
}

export function labelsOfObject(obj: unknown): Record<string, string> {
  const meta = isPlainObject(obj) && isPlainObject(obj.metadata) ? obj.metadata : {};
  const out: Record<string, string> = {};
  if (isPlainObject(meta.labels)) for (const [k, v] of Object.entries(meta.labels)) if (typeof v === 'string') out[k] = v;
  return out;
}

export function nameOf(obj: unknown): string {
  const meta = isPlainObject(obj) && isPlainObject(obj.metadata) ? obj.metadata : {};
  return typeof meta.name === 'string' ? meta.name : '';
}

const collection = (namespace: string | undefined, group: string, resource: string) =>
  namespace === undefined ? `/${group}/${resource}` : `/${group}/namespaces/${encodeURIComponent(namespace)}/${resource}`;

export async function scanCluster(api: ClusterApi, config: LoadedConfig, options: ScanOptions): Promise<ScanResult> {
  const notes: string[] = [];
  const ns = options.namespace;
  // The scopes and the namespaces' labels first: then every pod is classified as its page
  // arrives and only its record is kept, so memory holds one page of pods, not all of them.
  const [scopes, namespaces] = await Promise.all([
    readScopes(api, config, options, notes),
    ns === undefined
      ? api.list('/api/v1/namespaces').then((l) => l.items)
      : api.find(`/api/v1/namespaces/${encodeURIComponent(ns)}`).then((n) => (n === undefined ? [] : [n])),
  ]);
  if (ns !== undefined && namespaces.length === 0) notes.push(`namespace ${ns} not found`);
  const labels = new Map(namespaces.map((n) => [nameOf(n), labelsOfObject(n)]));
  const memo = new ClassifyMemo({ config, scopes });
  const classify = (pod: Record<string, unknown>, namespace: string) => memo.classify(pod, labels.get(namespace) ?? {});
  const records: PodRecord[] = [];
  const replicaSets = new Map<string, OwnerRef | undefined>();
  const jobs = new Map<string, OwnerRef | undefined>();
  await Promise.all([
    api.listPages(collection(ns, 'api/v1', 'pods'), {}, (items) => {
      for (const pod of items) {
        const r = toPodRecord(pod, classify);
        if (r !== undefined) records.push(r);
      }
    }),
    api.listPages(collection(ns, 'apis/apps/v1', 'replicasets'), {}, (items) => addControllers(replicaSets, items), { metadataOnly: true }),
    api.listPages(collection(ns, 'apis/batch/v1', 'jobs'), {}, (items) => addControllers(jobs, items), { metadataOnly: true }),
  ]);
  const index: OwnerIndex = { replicaSets, jobs };
  const classified = records.map((r) => ({
    name: r.name,
    workload: resolveWorkload(r.namespace, r.name, r.uid, r.owner, index),
    classification: r.classification,
  }));
  return { report: buildReport(classified), pods: classified, notes, env: { config, scopes, namespaceLabels: labels, index } };
}

function addControllers(into: Map<string, OwnerRef | undefined>, items: readonly unknown[]): void {
  for (const [k, v] of indexControllers(items)) into.set(k, v);
}
