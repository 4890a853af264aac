/**
 * Scenarios 4, 5 and 10 of the control-plane issue: large pods within the webhook timeout,
 * server-side dry run, and manifests injected by `inject -f` then applied (the webhook leaves
 * an injected pod as it is).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../cluster/paths.js';
import { cli, createNamespace, deleteNamespaces, getJson, kubectl, pods, waitFor, type Obj } from '../lib/kube.js';
import { appPod, dryRunCreate, startWebhook, waitUntilInjecting, type RunningWebhook } from '../lib/webhook.js';
import { ENABLED, STATUS, SIDECAR, assertInjected } from '../lib/injected.js';

const NS = 'e2e-pods';
let hook: RunningWebhook;
before(async () => {
  await createNamespace(NS, ENABLED);
  hook = await startWebhook({ name: 'e2e-pods' });
  await waitUntilInjecting(NS, SIDECAR);
});
after(async () => {
  await hook?.remove();
  await deleteNamespaces(NS);
});

async function createAndGet(pod: Obj): Promise<Obj> {
  await kubectl(['-n', NS, 'create', '-f', '-'], { input: JSON.stringify(pod) });
  return getJson(['-n', NS, 'pod', pod.metadata.name]);
}

test('scenario 4: a 2,000-env-var pod and a 40-container pod are created and injected within the webhook timeout', async () => {
  const env = Array.from({ length: 2000 }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` }));
  const big = appPod('env-2000');
  big.spec.containers[0].env = env;
  const stored = await createAndGet(big);
  assertInjected(stored, 'the 2,000-env-var pod');
  assert.deepEqual(stored.spec.containers.find((c: Obj) => c.name === 'app').env, env, 'the app keeps its 2,000 variables, in order');

  const many = appPod('containers-40');
  many.spec.containers = Array.from({ length: 40 }, (_, i) => ({ name: `c${i}`, image: 'registry.example/app:1', ports: [{ containerPort: 8000 + i }] }));
  const stored40 = await createAndGet(many);
  assertInjected(stored40, 'the 40-container pod');
  assert.equal(stored40.spec.containers.length, 41, '40 app containers and one sidecar');
  // The webhook's timeoutSeconds is 3 (from manifests): the apiserver enforces it, so an answer
  // that came too late would have failed the create above (failurePolicy Fail).
  const mwc = await getJson(['mutatingwebhookconfiguration', 'e2e-pods']);
  assert.equal(mwc.webhooks[0].timeoutSeconds, 3);
});

test('scenario 5: a server-side dry run returns the injected pod and stores nothing', async () => {
  const pod = await dryRunCreate(NS, appPod('dry-run'));
  assertInjected(pod, 'the dry-run pod');
  const get = await kubectl(['-n', NS, 'get', 'pod', 'dry-run'], { allowFail: true });
  assert.notEqual(get.code, 0);
  assert.match(get.stderr, /NotFound/);
});

test('scenario 10: inject -f output applied with kubectl apply: the webhook leaves the injected pods as they are', async () => {
  const injected = await cli(['inject', '-f', join(repoRoot, 'examples/istio-proxy/app.yaml'), '-n', NS]);
  const objects = parseAllDocuments(injected.stdout).map((d) => d.toJS() as Obj);
  const deploy = objects.find((o) => o.kind === 'Deployment')!;
  deploy.metadata.namespace = NS;
  const status = deploy.spec.template.metadata.annotations[STATUS];
  assert.ok(status, 'inject wrote the status annotation');
  await kubectl(['apply', '-f', '-'], { input: JSON.stringify(deploy) });
  const stored = await getJson(['-n', NS, 'deployment', deploy.metadata.name]);
  const want = deploy.spec.replicas ?? 1;
  const list = await waitFor(
    `${want} pods of ${deploy.metadata.name}`,
    async () => {
      const p = await pods(NS, `app=${deploy.spec.template.metadata.labels.app}`);
      return p.length >= want ? p : undefined;
    },
    60_000,
  );
  const wrote = JSON.parse(status) as Obj;
  for (const pod of list) {
    assertInjected(pod);
    // The webhook re-derives the status from the pod it saw (which now also holds the
    // ServiceAccount plugin's token volume), so its undo record may differ; what was injected may not.
    const seen = JSON.parse(pod.metadata.annotations[STATUS]) as Obj;
    for (const k of ['containers', 'initContainers', 'volumes', 'templates', 'templateHash']) assert.deepEqual(seen[k], wrote[k], `status ${k} unchanged`);
    // Against the template as the apiserver stored it (same serialisation and defaults).
    // Every container also gets the ServiceAccount plugin's token mount: the webhook replaced
    // the unsigned injection once, the plugin ran again, and the webhook, reinvoked, left its own
    // current injection as it was (inject/current.ts).
    const expect = (c: Obj): Obj => withTokenMount(pod, c);
    for (const c of stored.spec.template.spec.containers as Obj[])
      assert.deepEqual(
        pod.spec.containers.find((x: Obj) => x.name === c.name),
        expect(c),
        `container ${c.name}`,
      );
    for (const c of stored.spec.template.spec.initContainers as Obj[])
      assert.deepEqual(
        pod.spec.initContainers.find((x: Obj) => x.name === c.name),
        expect(c),
        `init container ${c.name}`,
      );
    assert.deepEqual(
      pod.spec.containers.map((c: Obj) => c.name),
      deploy.spec.template.spec.containers.map((c: Obj) => c.name),
    );
    assert.deepEqual(
      pod.spec.initContainers.map((c: Obj) => c.name),
      deploy.spec.template.spec.initContainers.map((c: Obj) => c.name),
    );
  }
});

/** The container as the template has it, plus the token mount the ServiceAccount plugin adds to every container. */
function withTokenMount(pod: Obj, c: Obj): Obj {
  const token = (pod.spec.volumes as Obj[]).find((v) => String(v.name).startsWith('kube-api-access-'));
  // The plugin leaves containers that already mount something at that path alone.
  if (!token || (c.volumeMounts ?? []).some((m: Obj) => m.mountPath === '/var/run/secrets/kubernetes.io/serviceaccount')) return c;
  const mount = { name: token.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
  return { ...c, volumeMounts: [...(c.volumeMounts ?? []), mount] };
}
