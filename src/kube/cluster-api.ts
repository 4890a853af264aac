/**
 * @module kube/cluster-api
 * What `status`, `restart`, `rollout`, `version` and `serve --reconcile` need from the cluster,
 * as an interface (tests pass a fake), with the few object shapes the product writes itself
 * (Events, Leases). KubeClient (kube/client.ts) is the one implementation over the transport.
 * Objects are raw JSON: a pod must be judged exactly as the webhook receives it.
 */
import { ClusterError } from '../errors.js';

export interface ReadOptions {
  /**
   * Ask for metadata only (`PartialObjectMetadata`): what owner references and labels need,
   * without the objects' specs (a ReplicaSet carries its whole pod template).
   */
  metadataOnly?: boolean;
  signal?: AbortSignal;
}

export type PatchType = 'json' | 'merge' | 'strategic';

/** A core/v1 Event as the product records it. */
export interface KubeEvent {
  metadata: { name: string; namespace: string };
  involvedObject: { kind: string; name: string; namespace: string; uid?: string; apiVersion?: string };
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
  count: number;
  /** RFC 3339, seconds. */
  firstTimestamp: string;
  lastTimestamp: string;
  source: { component: string };
  reportingComponent: string;
  reportingInstance: string;
}

/** A coordination.k8s.io/v1 Lease; times are MicroTime strings (six fractional digits). */
export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; [key: string]: unknown };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
    [key: string]: unknown;
  };
}

export interface LeaseApi {
  get(namespace: string, name: string): Promise<Lease | undefined>;
  create(namespace: string, lease: Lease): Promise<Lease>;
  /** Replace with optimistic concurrency (`metadata.resourceVersion`); a conflict is a KubeApiError with status 409. */
  replace(namespace: string, lease: Lease): Promise<Lease>;
}

export interface ClusterApi {
  /** The current context's namespace (kubectl's default), else `default`. */
  readonly defaultNamespace: string;
  /** Every item of a collection (paginated), as raw JSON. */
  list(path: string, query?: Record<string, string>): Promise<{ items: unknown[]; resourceVersion: string }>;
  /**
   * Every item of a collection, one page (`limit`/`continue`) at a time: each page goes to
   * `onPage` (awaited) and is not kept, so memory holds one page, not the collection.
   */
  listPages(
    path: string,
    query: Record<string, string>,
    onPage: (items: unknown[]) => void | Promise<void>,
    options?: ReadOptions,
  ): Promise<{ resourceVersion: string; count: number }>;
  /** One object as raw JSON; undefined when it does not exist (404). */
  find(path: string): Promise<unknown>;
  /** Strategic-merge patch of a workload; returns the patched object. */
  patchWorkload(ref: { kind: string; namespace: string; name: string }, body: unknown): Promise<unknown>;
  /** JSON merge patch (RFC 7386) of any object, e.g. a namespace's labels (`null` removes a key); returns the patched object. */
  patchMerge(path: string, body: unknown): Promise<unknown>;
  createEvent(namespace: string, event: KubeEvent): Promise<void>;
  /**
   * Watch a collection from a resourceVersion. Resolves once the apiserver accepted the watch;
   * rejects (a KubeApiError, with `status` when the apiserver answered, e.g. 410) when it did
   * not. `done` is called once when an accepted watch ends: null when the apiserver closed it,
   * an error when the connection failed. `abort` ends it without calling `done`.
   */
  watch(
    path: string,
    query: Record<string, string>,
    onEvent: (type: string, obj: unknown) => void,
    done: (err: unknown) => void,
    options?: ReadOptions,
  ): Promise<{ abort(): void }>;
  leases: LeaseApi;
}

/** Where the workload kinds live in the API. */
export function workloadPath(ref: { kind: string; namespace: string; name: string }): string {
  const group: Record<string, string> = {
    Deployment: 'apis/apps/v1/namespaces/%s/deployments',
    StatefulSet: 'apis/apps/v1/namespaces/%s/statefulsets',
    DaemonSet: 'apis/apps/v1/namespaces/%s/daemonsets',
  };
  const base = group[ref.kind];
  if (base === undefined)
    throw new ClusterError('SI_CLUSTER_REQUEST', `cannot address a ${ref.kind}: only Deployments, StatefulSets and DaemonSets are restarted`);
  return `/${base.replace('%s', encodeURIComponent(ref.namespace))}/${encodeURIComponent(ref.name)}`;
}

/** A MicroTime, as the apiserver wants it: RFC 3339 with exactly six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
