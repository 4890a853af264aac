/**
 * Scenarios 2 and 3 of the control-plane issue: real controllers create pods through the real
 * apiserver, which calls our webhook (URL mode); we assert on what the apiserver stored.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cli, createNamespace, deleteNamespaces, ensureNode, getJson, kubectl, pods, waitFor, type Obj } from '../lib/kube.js';
import { appPod, startWebhook, waitUntilInjecting, type RunningWebhook } from '../lib/webhook.js';
import { ENABLED, assertInjected, assertNotInjected, SIDECAR } from '../lib/injected.js';

const ON = 'e2e-wl-on';
const OFF = 'e2e-wl-off';
let hook: RunningWebhook;

before(async () => {
  await createNamespace(ON, ENABLED);
  await createNamespace(OFF);
  await ensureNode();
  hook = await startWebhook({ name: 'e2e-workloads' });
  await waitUntilInjecting(ON, SIDECAR);
});
after(async () => {
  await hook?.remove();
  await deleteNamespaces(ON, OFF, 'sidecar-injector');
  await kubectl(['-n', 'kube-system', 'delete', 'pod', 'e2e-kube-system', '--ignore-not-found'], { allowFail: true });
});

const template = (app: string, extra: Obj = {}): Obj => ({
  metadata: { labels: { app } },
  spec: {
    containers: [{ name: 'app', image: 'registry.example/app:1', ports: [{ containerPort: 8080, name: 'http' }], env: [{ name: 'MODE', value: '0' }] }],
    ...extra,
  },
});
const meta = (name: string) => ({ name, labels: { app: name } });
const sel = (app: string) => ({ matchLabels: { app } });

/** Every workload kind whose controller creates pods; expected pod count per kind. */
function workloads(): Array<{ obj: Obj; app: string; count: number }> {
  return [
    {
      app: 'deploy',
      count: 3,
      obj: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: meta('deploy'),
        spec: { replicas: 3, selector: sel('deploy'), template: template('deploy') },
      },
    },
    {
      app: 'sts',
      count: 1,
      obj: {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: meta('sts'),
        spec: { replicas: 1, serviceName: 'sts', selector: sel('sts'), template: template('sts') },
      },
    },
    { app: 'ds', count: 1, obj: { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: meta('ds'), spec: { selector: sel('ds'), template: template('ds') } } },
    {
      app: 'job',
      count: 1,
      obj: { apiVersion: 'batch/v1', kind: 'Job', metadata: meta('job'), spec: { template: template('job', { restartPolicy: 'Never' }) } },
    },
    {
      app: 'rs',
      count: 2,
      obj: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: meta('rs'), spec: { replicas: 2, selector: sel('rs'), template: template('rs') } },
    },
    { app: 'bare', count: 1, obj: appPod('bare') },
  ];
}

/** The pod without what the injection added, via our own `uninject` (exact, from the status annotation). */
async function uninjected(pod: Obj): Promise<Obj> {
  const r = await cli(['uninject', '-f', '-'], { input: JSON.stringify(pod) });
  return JSON.parse(r.stdout) as Obj;
}

/** Fields the apiserver or the controller generate per pod; everything else must match. */
function comparable(pod: Obj): Obj {
  // The ServiceAccount admission plugin names the token volume with a random suffix.
  const { spec, metadata } = JSON.parse(JSON.stringify(pod).replace(/kube-api-access-[a-z0-9]{5}/g, 'kube-api-access-*')) as Obj;
  const labels = { ...metadata.labels };
  for (const k of [
    'pod-template-hash',
    'controller-revision-hash',
    'statefulset.kubernetes.io/pod-name',
    'apps.kubernetes.io/pod-index',
    'batch.kubernetes.io/controller-uid',
    'controller-uid',
    'batch.kubernetes.io/job-name',
    'job-name',
  ])
    delete labels[k];
  delete spec.hostname;
  return { labels, spec };
}

test('scenario 2: Deployment, StatefulSet, DaemonSet, Job, ReplicaSet and bare Pod in a labelled namespace: every pod is injected, and otherwise the pod the controller asked for', async () => {
  const objs = workloads();
  for (const ns of [ON, OFF])
    await kubectl(['-n', ns, 'create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs.map((w) => w.obj) }) });
  for (const w of objs) {
    const [on, off] = await Promise.all(
      [ON, OFF].map((ns) =>
        waitFor(
          `${w.count} ${w.obj.kind} pods in ${ns}`,
          async () => {
            const list = await pods(ns, `app=${w.app}`);
            return list.length >= w.count ? list : undefined;
          },
          60_000,
        ),
      ),
    );
    assert.equal(on.length, w.count, `${w.obj.kind}: exactly ${w.count} pods`);
    for (const pod of on) {
      assertInjected(pod, `${w.obj.kind} pod ${pod.metadata.name}`);
      // The ServiceAccount plugin mounts its token into the sidecar too (re-run after our patch);
      // our reinvocation leaves it there (a secrets agent or any API client sidecar needs it).
      const sidecar = (pod.spec.containers as Obj[]).find((c) => c.name === SIDECAR)!;
      assert.ok(
        (sidecar.volumeMounts as Obj[]).some((m) => String(m.name).startsWith('kube-api-access-')),
        `${w.obj.kind}: the sidecar keeps the ServiceAccount token mount`,
      );
    }
    for (const pod of off) assertNotInjected(pod, `${w.obj.kind} pod in the unlabelled namespace`);
    // The same controller in an unlabelled namespace asked for `off[0]`; ours is that pod plus the sidecar.
    const back = await uninjected(on[0]);
    assert.deepEqual(comparable(back), comparable(off[0]), `${w.obj.kind}: uninjected, the stored pod is the one the controller asked for`);
    const app = (comparable(on[0]).spec.containers as Obj[]).find((c) => c.name === 'app');
    assert.deepEqual(app, comparable(off[0]).spec.containers[0], `${w.obj.kind}: the app container is untouched`);
  }
});

test("scenario 3: opt-out label, unlabelled namespace, opt-in label, kube-system and the injector's own namespace", async () => {
  const create = async (ns: string, pod: Obj): Promise<Obj> => {
    await kubectl(['-n', ns, 'create', '-f', '-'], { input: JSON.stringify(pod) });
    return getJson(['-n', ns, 'pod', pod.metadata.name]);
  };
  assertNotInjected(await create(ON, appPod('opt-out', { labels: { 'sidecar.istio.io/inject': 'false' } })), 'opt-out label in a labelled namespace');
  assertInjected(await create(ON, appPod('plain')), 'plain pod in a labelled namespace');
  assertNotInjected(await create(OFF, appPod('plain')), 'plain pod in an unlabelled namespace');
  assertInjected(await create(OFF, appPod('opt-in', { labels: { 'sidecar.istio.io/inject': 'true' } })), 'opt-in label in an unlabelled namespace');
  // System and injector namespaces are excluded even when labelled (the webhook never sees them).
  await kubectl(['label', 'namespace', 'kube-system', 'istio-injection=enabled', '--overwrite']);
  try {
    assertNotInjected(await create('kube-system', appPod('e2e-kube-system', { labels: { 'sidecar.istio.io/inject': 'true' } })), 'kube-system');
  } finally {
    await kubectl(['label', 'namespace', 'kube-system', 'istio-injection-']);
  }
  await createNamespace('sidecar-injector', ENABLED);
  assertNotInjected(await create('sidecar-injector', appPod('own', { labels: { 'sidecar.istio.io/inject': 'true' } })), "the injector's own namespace");
});
