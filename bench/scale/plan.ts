/**
 * @module bench/scale/plan
 * What the scale generator puts in the cluster, as a pure function of an index: workload i
 * lives in namespace `scale-(i mod 1000)`; by i mod 20 it is a Deployment (15 pods, through
 * its ReplicaSet), a StatefulSet (10), a DaemonSet (10, one per named node that does not
 * exist), a Job (5) or a bare pod: about 10 pods per workload, so N pods are about N/10
 * workloads. Its pods are current, stale or missing in turn (a third each), one workload in
 * 25 is foreign (the sidecar without the status annotation: added by hand), and every 17th
 * namespace is not labelled for injection (its pods are skipped).
 *
 * Pods are built as each controller builds them (owner reference, labels, names) and injected
 * by the real core (`injectPod`, webhook mode) with the built-in config (current) or with the
 * same config and an older proxy tag (stale), exactly what the webhook would have stored.
 * Every pod has a nodeSelector no node matches: it stays Pending on any cluster.
 */
import type { LoadedConfig } from '../../src/config/types.js';
import { injectPod } from '../../src/inject/pipeline.js';
import { defaultConfig } from '../../src/profiles/index.js';
import { defaultConfigWith } from '../../test/support/inject-fixtures.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- Kubernetes objects as loose JSON */
export type Obj = Record<string, any>;

export const NAMESPACES = 1000;
export const SCALE_LABEL = 'sidecar-injector.dev/scale';
export const OLD_TAG = '1.23.0';

export type Kind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'Job' | 'Pod';
export type Intended = 'current' | 'stale' | 'missing' | 'foreign' | 'skipped';

export interface WorkloadPlan {
  index: number;
  kind: Kind;
  name: string;
  namespace: string;
  pods: number;
  state: Intended;
}

const KINDS: readonly [Kind, number][] = [
  ...Array.from({ length: 10 }, (): [Kind, number] => ['Deployment', 15]),
  ['StatefulSet', 10],
  ['StatefulSet', 10],
  ['StatefulSet', 10],
  ['DaemonSet', 10],
  ['Job', 5],
  ['Job', 5],
  ['Pod', 1],
  ['Pod', 1],
  ['Pod', 1],
  ['Pod', 1],
];

export const namespaceName = (n: number): string => `scale-${String(n).padStart(4, '0')}`;
export const labelledNamespace = (n: number): boolean => n % 17 !== 16;

export function workloadAt(index: number): WorkloadPlan {
  const [kind, pods] = KINDS[index % KINDS.length];
  const ns = index % NAMESPACES;
  const rotation = (['current', 'stale', 'missing'] as const)[(index + 2 * Math.floor(index / KINDS.length)) % 3];
  const state: Intended = !labelledNamespace(ns) ? 'skipped' : index % 25 === 7 ? 'foreign' : rotation;
  return { index, kind, name: `${kind.toLowerCase()}-${index}`, namespace: namespaceName(ns), pods, state };
}

/** The workloads (and how many of their pods) that make the first `pods` pods. */
export function* plan(pods: number): Generator<{ workload: WorkloadPlan; first: number; count: number }> {
  let made = 0;
  for (let i = 0; made < pods; i++) {
    const workload = workloadAt(i);
    const count = Math.min(workload.pods, pods - made);
    yield { workload, first: made, count };
    made += count;
  }
}

/** The pod template a user would write for the workload (as in its spec.template). */
export function template(w: WorkloadPlan): Obj {
  const app = w.name;
  return {
    metadata: { labels: { app, tier: w.index % 2 === 0 ? 'web' : 'worker', [SCALE_LABEL]: 'true' } },
    spec: {
      restartPolicy: w.kind === 'Job' ? 'Never' : 'Always',
      nodeSelector: { [SCALE_LABEL]: 'no-such-node' },
      containers: [
        {
          name: 'app',
          image: `registry.example/${app}:1.${w.index % 7}`,
          ports: [{ name: 'http', containerPort: 8080 }],
          env: [
            { name: 'APP_NAME', value: app },
            { name: 'LOG_LEVEL', value: 'info' },
            { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          ],
          resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '128Mi' } },
          readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 10 },
          volumeMounts: [{ name: 'config', mountPath: '/etc/app' }],
        },
      ],
      volumes: [{ name: 'config', configMap: { name: `${app}-config` } }],
    },
  };
}

export interface Owner {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

/** Pod k of the workload, as its controller creates it (before admission). */
export function podOf(w: WorkloadPlan, k: number, owner: Owner | undefined, extraLabels: Record<string, string> = {}): Obj {
  const t = template(w);
  const meta: Obj = { namespace: w.namespace, labels: { ...t.metadata.labels, ...extraLabels } };
  const spec: Obj = structuredClone(t.spec);
  if (owner !== undefined) meta.ownerReferences = [{ ...owner, controller: true, blockOwnerDeletion: true }];
  switch (w.kind) {
    case 'Deployment':
    case 'DaemonSet':
    case 'Job': {
      // The controller's generateName, and a name fixed here (the apiserver would pick one) so a re-run skips what exists.
      const base = owner?.name ?? w.name;
      meta.generateName = `${base}-`;
      meta.name = `${base}-${suffix(k)}`;
      if (w.kind === 'DaemonSet') {
        spec.affinity = {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [`scale-node-${k}`] }] }],
            },
          },
        };
        spec.tolerations = [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }];
      }
      break;
    }
    case 'StatefulSet':
      meta.name = `${w.name}-${k}`;
      Object.assign(meta.labels, { 'statefulset.kubernetes.io/pod-name': meta.name, 'apps.kubernetes.io/pod-index': String(k) });
      spec.hostname = meta.name;
      spec.subdomain = w.name;
      break;
    case 'Pod':
      meta.name = w.name;
  }
  return { apiVersion: 'v1', kind: 'Pod', metadata: meta, spec };
}

let configs: { current: LoadedConfig; old: LoadedConfig } | undefined;

/** The pod as the webhook would have left it for the intended state (undefined config: not injected). */
export function admitted(w: WorkloadPlan, pod: Obj): Obj {
  configs ??= { current: defaultConfig(), old: defaultConfigWith({ global: { tag: OLD_TAG } }) };
  const config = w.state === 'current' || w.state === 'foreign' ? configs.current : w.state === 'stale' ? configs.old : undefined;
  if (config === undefined) return pod;
  // The webhook sees no name when the apiserver generates it.
  const { name, ...rest } = pod.metadata;
  const input = typeof pod.metadata.generateName === 'string' ? { ...pod, metadata: rest } : pod;
  const r = injectPod(input, { namespace: w.namespace, mode: 'webhook' }, config);
  if (r.kind !== 'injected') throw new Error(`${w.namespace}/${name}: the core did not inject it (${r.decision.reason})`);
  const out = r.pod as Obj;
  out.metadata.name = name;
  if (w.state === 'foreign') delete out.metadata.annotations[config.injectionKeys.status];
  return out;
}

/** Pods first..first+count-1 of a workload, admitted; replicas of one template are injected once. */
export function admittedPods(w: WorkloadPlan, first: number, count: number, owner: Owner | undefined): Obj[] {
  if (w.kind === 'Deployment' || w.kind === 'Job') {
    const one = JSON.stringify(admitted(w, podOf(w, first, owner)));
    return Array.from({ length: count }, (_, i) => {
      const pod = JSON.parse(one) as Obj;
      pod.metadata.name = `${pod.metadata.generateName}${suffix(first + i)}`;
      return pod;
    });
  }
  return Array.from({ length: count }, (_, i) => admitted(w, podOf(w, first + i, owner)));
}

function suffix(k: number): string {
  // Like the controllers' random suffixes (5 characters of bcdfghjklmnpqrstvwxz2456789), but fixed.
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let n = k * 7919 + 104729;
  let s = '';
  for (let i = 0; i < 5; i++) {
    s += alphabet[n % alphabet.length];
    n = Math.floor(n / alphabet.length);
  }
  return s;
}
