/**
 * @module bench/scale/generate
 * Fill the scale control plane with N pods across 1,000 namespaces and about N/10 workloads
 * (bench/scale/plan), created directly with their owner references, as the controllers would,
 * at most the client's `parallel` requests at once. Idempotent and incremental: a second fill
 * with a larger N adds the rest. `clean` deletes what it made.
 */
import { admittedPods, labelledNamespace, namespaceName, plan, SCALE_LABEL, template, type Obj, type Owner, type WorkloadPlan } from './plan.js';
import { HttpError, ScaleClient } from './plane.js';

export const MAX_PODS = 100_000;
const PROGRESS = { namespace: namespaceName(0), name: 'scale-progress' };

export interface FillResult {
  pods: number;
  created: number;
  seconds: number;
  requests: number;
  retries: number;
}

/** Make the plane hold the first `pods` pods of the plan (what exists is kept). */
export async function fill(client: ScaleClient, pods: number, log: (line: string) => void): Promise<FillResult> {
  if (!Number.isInteger(pods) || pods < 1 || pods > MAX_PODS) throw new Error(`--pods must be a whole number from 1 to ${MAX_PODS}`);
  const t0 = performance.now();
  const done = await progress(client);
  if (done >= pods) return { pods: done, created: 0, seconds: 0, requests: 0, retries: 0 };
  const work = [...plan(pods)].filter((e) => e.first + e.count > done);
  const namespaces = new Set(work.map((e) => e.workload.namespace));
  log(`scale: ${pods} pods (${done} there already): ${work.length} workloads to write in ${namespaces.size} namespaces`);
  await pool([...namespaces], 32, (ns) => ensureNamespace(client, ns));
  let created = 0;
  const tick = setInterval(() => log(`scale: ${done + created} pods (${Math.round(created / ((performance.now() - t0) / 1000))}/s)`), 10_000);
  try {
    await pool(work, 48, async (e) => {
      const skip = Math.max(0, done - e.first);
      const owner = await ensureWorkload(client, e.workload);
      const podPath = `/api/v1/namespaces/${e.workload.namespace}/pods`;
      for (const pod of admittedPods(e.workload, skip, e.count - skip, owner?.podOwner)) {
        Object.assign(pod.metadata.labels, owner?.podLabels ?? {});
        await client.create(podPath, pod);
        created++;
      }
    });
  } finally {
    clearInterval(tick);
  }
  await setProgress(client, pods);
  const seconds = (performance.now() - t0) / 1000;
  log(`scale: ${pods} pods; ${created} created in ${seconds.toFixed(0)} s (${(created / seconds).toFixed(0)}/s, ${client.retries} retries)`);
  return { pods, created, seconds, requests: client.requests, retries: client.retries };
}

/** Delete every namespace the generator made and wait until they are gone. */
export async function clean(client: ScaleClient, log: (line: string) => void, timeoutMs = 15 * 60_000): Promise<void> {
  const list = await client.json('GET', `/api/v1/namespaces?labelSelector=${encodeURIComponent(`${SCALE_LABEL}=true`)}`);
  const names = (list.items as Obj[]).map((n) => n.metadata.name as string);
  log(`scale: deleting ${names.length} namespaces`);
  await pool(names, 32, (n) =>
    client.json('DELETE', `/api/v1/namespaces/${n}`).catch((err: unknown) => (err instanceof HttpError && err.status === 404 ? {} : Promise.reject(err))),
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = ((await client.json('GET', `/api/v1/namespaces?labelSelector=${encodeURIComponent(`${SCALE_LABEL}=true`)}`)).items as Obj[]).length;
    if (left === 0) return;
    if (Date.now() > deadline) throw new Error(`scale: ${left} namespaces still terminating after ${timeoutMs / 60_000} min`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

async function progress(client: ScaleClient): Promise<number> {
  try {
    const cm = await client.json('GET', `/api/v1/namespaces/${PROGRESS.namespace}/configmaps/${PROGRESS.name}`);
    return Number(cm.data?.pods ?? 0);
  } catch (err) {
    if (err instanceof HttpError && err.status === 404) return 0;
    throw err;
  }
}

async function setProgress(client: ScaleClient, pods: number): Promise<void> {
  const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: PROGRESS.name, namespace: PROGRESS.namespace }, data: { pods: String(pods) } };
  await client.json('PUT', `/api/v1/namespaces/${PROGRESS.namespace}/configmaps/${PROGRESS.name}`, body).catch((err: unknown) => {
    if (err instanceof HttpError && err.status === 404) return client.json('POST', `/api/v1/namespaces/${PROGRESS.namespace}/configmaps`, body);
    throw err;
  });
}

async function ensureNamespace(client: ScaleClient, name: string): Promise<void> {
  const n = Number(name.slice('scale-'.length));
  await client.create('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { [SCALE_LABEL]: 'true', ...(labelledNamespace(n) ? { 'istio-injection': 'enabled' } : {}) } },
  });
  // The service-account controller makes it too; pods are refused until it exists.
  await client.create(`/api/v1/namespaces/${name}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'default', namespace: name },
  });
}

interface Written {
  podOwner?: Owner;
  podLabels: Record<string, string>;
}

/** The workload's objects (and their status, as the controllers would write it). */
async function ensureWorkload(client: ScaleClient, w: WorkloadPlan): Promise<Written | undefined> {
  if (w.kind === 'Pod') return undefined;
  const t = template(w);
  const app = { app: w.name };
  const ns = w.namespace;
  const apps = `/apis/apps/v1/namespaces/${ns}`;
  const owner = (o: Obj, apiVersion: string, kind: string): Owner => ({ apiVersion, kind, name: o.metadata.name, uid: o.metadata.uid });
  const status = (path: string, s: Obj) => client.json('PATCH', `${path}/status`, { status: s }, 'application/merge-patch+json');
  const meta = { name: w.name, namespace: ns, labels: { ...t.metadata.labels } };
  switch (w.kind) {
    case 'Deployment': {
      const hash = `${((w.index * 2654435761) >>> 0).toString(36)}`.slice(0, 9);
      const d = await client.create(`${apps}/deployments`, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: meta,
        spec: { replicas: w.pods, selector: { matchLabels: app }, template: t },
      });
      await status(`${apps}/deployments/${w.name}`, {
        observedGeneration: d.metadata.generation,
        replicas: w.pods,
        updatedReplicas: w.pods,
        unavailableReplicas: w.pods,
      });
      const labels = { ...t.metadata.labels, 'pod-template-hash': hash };
      const rs = await client.create(`${apps}/replicasets`, {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: `${w.name}-${hash}`,
          namespace: ns,
          labels,
          ownerReferences: [{ ...owner(d, 'apps/v1', 'Deployment'), controller: true, blockOwnerDeletion: true }],
        },
        spec: { replicas: w.pods, selector: { matchLabels: { ...app, 'pod-template-hash': hash } }, template: { ...t, metadata: { labels } } },
      });
      return { podOwner: owner(rs, 'apps/v1', 'ReplicaSet'), podLabels: { 'pod-template-hash': hash } };
    }
    case 'StatefulSet': {
      const s = await client.create(`${apps}/statefulsets`, {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: meta,
        spec: { serviceName: w.name, replicas: w.pods, selector: { matchLabels: app }, template: t },
      });
      const revision = `${w.name}-1`;
      await status(`${apps}/statefulsets/${w.name}`, {
        observedGeneration: s.metadata.generation,
        replicas: w.pods,
        currentReplicas: w.pods,
        updatedReplicas: w.pods,
        currentRevision: revision,
        updateRevision: revision,
        availableReplicas: 0,
        readyReplicas: 0,
      });
      return { podOwner: owner(s, 'apps/v1', 'StatefulSet'), podLabels: { 'controller-revision-hash': revision } };
    }
    case 'DaemonSet': {
      const d = await client.create(`${apps}/daemonsets`, {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: meta,
        spec: { selector: { matchLabels: app }, template: t },
      });
      await status(`${apps}/daemonsets/${w.name}`, {
        observedGeneration: d.metadata.generation,
        desiredNumberScheduled: w.pods,
        currentNumberScheduled: w.pods,
        updatedNumberScheduled: w.pods,
        numberMisscheduled: 0,
        numberReady: 0,
      });
      return { podOwner: owner(d, 'apps/v1', 'DaemonSet'), podLabels: {} };
    }
    case 'Job': {
      const j = await client.create(`/apis/batch/v1/namespaces/${ns}/jobs`, {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: meta,
        spec: { parallelism: w.pods, completions: w.pods, template: t },
      });
      const uid = j.metadata.uid as string;
      return {
        podOwner: owner(j, 'batch/v1', 'Job'),
        podLabels: { 'batch.kubernetes.io/controller-uid': uid, 'controller-uid': uid, 'batch.kubernetes.io/job-name': w.name, 'job-name': w.name },
      };
    }
  }
}

/** Run `fn` over items with at most `width` at once. */
export async function pool<T>(items: readonly T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (i < items.length) await fn(items[i++]);
    }),
  );
}
