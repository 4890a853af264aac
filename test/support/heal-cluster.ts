/**
 * @module test/support/heal-cluster
 * An in-memory cluster behind the ClusterApi, for the reconciler's and status' tests: pods,
 * namespaces, ReplicaSets and Jobs with resourceVersions from one counter, lists in pages of
 * `pageSize` (limit/continue, as the apiserver), metadata-only reads, and watches that see every
 * later change. Not a stand-in for the real apiserver (the e2e suite is): it makes the
 * reconciler's bookkeeping checkable against a full `status` scan of the same objects.
 */
import type { ClusterApi, ReadOptions } from '../../src/kube/cluster-api.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- loose JSON objects */
type Obj = Record<string, any>;
type Resource = 'pods' | 'namespaces' | 'replicasets' | 'jobs';

interface Watcher {
  resource: Resource;
  namespace?: string;
  metadataOnly: boolean;
  onEvent(type: string, obj: unknown): void;
}

export class FakeHealCluster {
  rv = 100;
  pageSize = 2;
  mwc: Obj | undefined;
  readonly store: Record<Resource, Map<string, Obj>> = { pods: new Map(), namespaces: new Map(), replicasets: new Map(), jobs: new Map() };
  readonly events: Obj[] = [];
  readonly calls: string[] = [];
  readonly #watchers = new Set<Watcher>();
  readonly api: ClusterApi;

  constructor() {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the api object's methods close over the cluster
    const cluster = this;
    this.api = {
      defaultNamespace: 'default',
      async list(path: string) {
        const items: unknown[] = [];
        const { resourceVersion } = await cluster.api.listPages(path, {}, (page) => void items.push(...page));
        return { items, resourceVersion };
      },
      async listPages(path: string, _query: Record<string, string>, onPage: (items: unknown[]) => void | Promise<void>, options?: ReadOptions) {
        const { resource, namespace } = parse(path);
        cluster.calls.push(`list ${path}${options?.metadataOnly ? ' (metadata)' : ''}`);
        const rv = String(cluster.rv);
        const items = [...cluster.store[resource].values()]
          .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
          .map((o) => view(o, options?.metadataOnly === true));
        for (let i = 0; i < items.length; i += cluster.pageSize) await onPage(items.slice(i, i + cluster.pageSize));
        if (items.length === 0) await onPage([]);
        return { resourceVersion: rv, count: items.length };
      },
      async find(path: string) {
        cluster.calls.push(`get ${path}`);
        if (path.includes('mutatingwebhookconfigurations')) return cluster.mwc;
        const m = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(path);
        return m ? cluster.store.namespaces.get(`/${m[1]}`) : undefined;
      },
      async watch(
        path: string,
        query: Record<string, string>,
        onEvent: (type: string, obj: unknown) => void,
        _done: (err: unknown) => void,
        options?: ReadOptions,
      ) {
        cluster.calls.push(`watch ${path} rv=${query.resourceVersion}`);
        const w: Watcher = { ...parse(path), metadataOnly: options?.metadataOnly === true, onEvent };
        cluster.#watchers.add(w);
        return { abort: () => cluster.#watchers.delete(w) };
      },
      async createEvent(_namespace: string, event: Obj) {
        cluster.events.push(event);
      },
      patchWorkload: async () => {
        throw new Error('not in the fake');
      },
      patchMerge: async () => {
        throw new Error('not in the fake');
      },
      leases: {} as ClusterApi['leases'],
    } as ClusterApi;
  }

  put(resource: Resource, obj: Obj): Obj {
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.rv);
    const key = `${stored.metadata.namespace ?? ''}/${stored.metadata.name}`;
    const type = this.store[resource].has(key) ? 'MODIFIED' : 'ADDED';
    this.store[resource].set(key, stored);
    this.#notify(resource, type, stored);
    return stored;
  }

  remove(resource: Resource, namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    const old = this.store[resource].get(key);
    if (old === undefined) return;
    this.store[resource].delete(key);
    this.#notify(resource, 'DELETED', { ...old, metadata: { ...old.metadata, resourceVersion: String(++this.rv) } });
  }

  #notify(resource: Resource, type: string, obj: Obj): void {
    for (const w of this.#watchers) {
      if (w.resource === resource && (w.namespace === undefined || w.namespace === obj.metadata.namespace)) w.onEvent(type, view(obj, w.metadataOnly));
    }
  }
}

function parse(path: string): { resource: Resource; namespace?: string } {
  const parts = path.split('/').filter((p) => p !== '');
  const resource = parts.at(-1) as Resource;
  const i = parts.indexOf('namespaces');
  return i >= 0 && i < parts.length - 2 ? { resource, namespace: parts[i + 1] } : { resource };
}

function view(obj: Obj, metadataOnly: boolean): Obj {
  const copy = structuredClone(obj);
  return metadataOnly ? { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: copy.metadata } : copy;
}
