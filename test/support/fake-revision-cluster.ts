/**
 * @module test/support/fake-revision-cluster
 * A small simulated cluster for `rollout`'s unit tests (the proof is the e2e scenario on a node
 * whose pods run): namespaces, our MutatingWebhookConfigurations as `manifests` writes them, and
 * Deployments whose controller, on a restart, creates pods from the new template. Which revision
 * injects a new pod is decided by the webhook configurations' selectors against the namespace's
 * labels at that moment (`evaluateScopes`, the apiserver's rule), and a pod is Ready when that
 * revision is healthy (else its sidecar reports a failing readiness probe, with an Event).
 * Old pods go once the new ones are ready, as with maxUnavailable 0. Time is the number of
 * times `rollout` looks at a Deployment.
 */
import type { ClusterApi } from '../../src/kube/cluster-api.js';
import { RESTARTED_AT } from '../../src/heal/restart-workloads.js';
import type { WorkloadRef } from '../../src/heal/types.js';
import { evaluateScopes } from '../../src/install/webhook-rules.js';
import { scopesFromWebhooks } from '../../src/heal/scan.js';
import { isPlainObject } from '../../src/util/json.js';
import { MWC_PATH } from '../../src/kube/live-webhook-config.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- loose JSON objects

const STATUS = 'sidecar.istio.io/status';

interface Deployment {
  namespace: string;
  name: string;
  replicas: number;
  generation: number;
  observed: number;
  restartedAt?: string;
  /** Polls since the last restart. */
  polls: number;
  pods: Obj[];
}

export interface FakeRevisionCluster {
  api: ClusterApi;
  namespaces: Map<string, { labels: Record<string, string>; annotations: Record<string, string> }>;
  /** Revision -> are its sidecars ready. */
  healthy: Record<string, boolean>;
  deployments: Map<string, Deployment>;
  /** Every pod created, with the revision that injected it (none: no webhook took it). */
  creates: { namespace: string; pod: string; revision?: string }[];
  /** The workloads restarted, in order. */
  restarts: string[];
  events: Obj[];
  podsOf(namespace: string, name: string): Obj[];
}

export function fakeRevisionCluster(mwcs: Obj[], namespaces: Record<string, Record<string, string>>, apps: string[]): FakeRevisionCluster {
  const c: FakeRevisionCluster = {
    api: undefined as unknown as ClusterApi,
    namespaces: new Map(Object.entries(namespaces).map(([n, labels]) => [n, { labels: { ...labels }, annotations: {} }])),
    healthy: {},
    deployments: new Map(),
    creates: [],
    restarts: [],
    events: [],
    podsOf: (ns, name) => c.deployments.get(`${ns}/${name}`)!.pods,
  };
  let serial = 0;
  const newPod = (d: Deployment): Obj => {
    const name = `${d.name}-${d.generation}-${serial++}`;
    const ns = c.namespaces.get(d.namespace)!;
    const labels = { app: d.name };
    const revision = mwcs
      .filter((m) => evaluateScopes(scopesFromWebhooks(m.webhooks), { name: d.namespace, labels: ns.labels }, labels).reached)
      .map((m) => m.metadata.labels['sidecar-injector.io/revision'] ?? 'default')[0];
    c.creates.push({ namespace: d.namespace, pod: name, ...(revision !== undefined ? { revision } : {}) });
    const ready = revision === undefined || c.healthy[revision] !== false;
    if (!ready)
      c.events.push({
        involvedObject: { kind: 'Pod', name },
        type: 'Warning',
        reason: 'Unhealthy',
        message: 'Readiness probe failed: HTTP probe failed with statuscode: 503',
        count: 3,
        lastTimestamp: new Date().toISOString(),
      });
    return {
      metadata: {
        name,
        namespace: d.namespace,
        labels,
        annotations: {
          ...(d.restartedAt !== undefined ? { [RESTARTED_AT]: d.restartedAt } : {}),
          ...(revision !== undefined ? { [STATUS]: JSON.stringify({ containers: ['sidecar-proxy'], revision, templates: ['sidecar'] }) } : {}),
        },
        ownerReferences: [{ kind: 'ReplicaSet', name: `${d.name}-rs${d.generation}`, controller: true }],
      },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
        containerStatuses: [
          { name: 'app', ready: true, restartCount: 0, state: { running: {} } },
          ...(revision !== undefined ? [{ name: 'sidecar-proxy', ready, restartCount: 0, state: { running: {} } }] : []),
        ],
      },
    };
  };
  const isReady = (p: Obj) => p.status.conditions[0].status === 'True';
  const fresh = (d: Deployment) => d.pods.filter((p) => p.metadata.annotations[RESTARTED_AT] === d.restartedAt);
  const tick = (d: Deployment) => {
    d.polls++;
    if (d.polls < 2) return;
    d.observed = d.generation;
    if (fresh(d).length === 0 && d.restartedAt !== undefined) {
      // One surge pod first; the rest once it is ready (maxUnavailable 0, maxSurge 1).
      d.pods.push(newPod(d));
    }
    const made = fresh(d);
    if (made.length > 0 && made.every(isReady)) {
      while (made.length < d.replicas) {
        const p = newPod(d);
        d.pods.push(p);
        made.push(p);
      }
      d.pods = made;
    }
  };
  const status = (d: Deployment) => {
    const made = d.restartedAt === undefined ? d.pods : fresh(d);
    return {
      observedGeneration: d.observed,
      replicas: d.pods.length,
      updatedReplicas: made.length,
      availableReplicas: made.filter(isReady).length,
      readyReplicas: made.filter(isReady).length,
    };
  };
  for (const ns of Object.keys(namespaces)) {
    for (const app of apps) {
      const d: Deployment = { namespace: ns, name: app, replicas: 2, generation: 1, observed: 1, polls: 0, pods: [] };
      d.pods = [newPod(d), newPod(d)];
      c.deployments.set(`${ns}/${app}`, d);
    }
  }
  const deploymentAt = (path: string) => {
    const m = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments\/([^/]+)$/.exec(path);
    return m === null ? undefined : c.deployments.get(`${m[1]}/${m[2]}`);
  };
  const nsObject = (name: string) => {
    const ns = c.namespaces.get(name)!;
    return { metadata: { name, labels: { ...ns.labels, 'kubernetes.io/metadata.name': name }, annotations: { ...ns.annotations } } };
  };
  const deploymentObject = (d: Deployment) => ({
    kind: 'Deployment',
    metadata: { name: d.name, namespace: d.namespace, generation: d.generation },
    spec: {
      replicas: d.replicas,
      selector: { matchLabels: { app: d.name } },
      template: { metadata: { annotations: d.restartedAt === undefined ? {} : { [RESTARTED_AT]: d.restartedAt } } },
    },
    status: status(d),
  });
  c.api = {
    defaultNamespace: 'default',
    // One page: the revision tests do not exercise paging (heal-cluster.ts does).
    async listPages(path, query, onPage) {
      const { items, resourceVersion } = await c.api.list(path, query);
      await onPage(items);
      return { resourceVersion, count: items.length };
    },
    async list(path, query = {}) {
      const items = ((): unknown[] => {
        // As the apiserver returns them: every object has a resourceVersion.
        if (path === MWC_PATH) return mwcs.map((o, i) => ({ ...o, metadata: { resourceVersion: String(10 + i), ...(o.metadata as Obj) } }));
        if (path === '/api/v1/namespaces') return [...c.namespaces.keys()].map(nsObject);
        const m = /^\/(?:api|apis\/[^/]+)\/v1\/namespaces\/([^/]+)\/(\w+)$/.exec(path);
        if (m === null) throw new Error(`fake: cannot list ${path}`);
        const [, ns, resource] = m;
        const ds = [...c.deployments.values()].filter((d) => d.namespace === ns);
        if (resource === 'pods') {
          const app = /app=([\w-]+)/.exec(query.labelSelector ?? '')?.[1];
          return ds.filter((d) => app === undefined || d.name === app).flatMap((d) => d.pods);
        }
        if (resource === 'replicasets')
          return ds.flatMap((d) =>
            Array.from({ length: d.generation }, (_, g) => ({
              metadata: {
                name: `${d.name}-rs${g + 1}`,
                namespace: ns,
                ownerReferences: [{ kind: 'Deployment', name: d.name, apiVersion: 'apps/v1', controller: true }],
              },
            })),
          );
        if (resource === 'events') return c.events;
        return [];
      })();
      return { items: structuredClone(items), resourceVersion: '1' };
    },
    async find(path) {
      const d = deploymentAt(path);
      if (d !== undefined) {
        tick(d);
        return deploymentObject(d);
      }
      const ns = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(path)?.[1];
      return ns !== undefined && c.namespaces.has(ns) ? nsObject(ns) : undefined;
    },
    async patchWorkload(ref: WorkloadRef, body: unknown) {
      const d = c.deployments.get(`${ref.namespace}/${ref.name}`)!;
      const value = (body as Obj).spec.template.metadata.annotations[RESTARTED_AT];
      // The same template again is no change (the apiserver keeps the generation; no new pods).
      if (value === d.restartedAt) return deploymentObject(d);
      d.generation++;
      d.polls = 0;
      d.restartedAt = (body as Obj).spec.template.metadata.annotations[RESTARTED_AT];
      c.restarts.push(`${ref.namespace}/${ref.name}`);
      return deploymentObject(d);
    },
    async patchMerge(path: string, body: unknown) {
      const name = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(path)?.[1];
      const ns = name === undefined ? undefined : c.namespaces.get(name);
      if (ns === undefined) throw new Error(`fake: cannot patch ${path}`);
      const meta = (body as Obj).metadata as Obj;
      for (const [field, into] of [
        ['labels', ns.labels],
        ['annotations', ns.annotations],
      ] as const) {
        for (const [k, v] of Object.entries(isPlainObject(meta[field]) ? meta[field] : {})) {
          if (v === null) delete into[k];
          else into[k] = String(v);
        }
      }
      return nsObject(name!);
    },
    async createEvent() {},
    async watch() {
      return { abort() {} };
    },
    leases: { get: async () => undefined, create: async (_n, l) => l, replace: async (_n, l) => l },
  };
  return c;
}
