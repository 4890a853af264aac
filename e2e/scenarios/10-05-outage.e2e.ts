/**
 * Scenario 7 of the control-plane issue: the webhook is down.
 * - failurePolicy Fail: an opted-in pod is refused with a message naming the webhook; pods
 *   that did not opt in are created; once the webhook is back, the controller's retries create
 *   injected pods.
 * - failurePolicy Ignore: pods start without the sidecar (the self-healing work finds them).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createNamespace, deleteNamespaces, getJson, kubectl, pods, waitFor, type Obj } from '../lib/kube.js';
import { appPod, startWebhook, waitUntilInjecting, type RunningWebhook } from '../lib/webhook.js';
import { ENABLED, SIDECAR, assertInjected, assertNotInjected } from '../lib/injected.js';

const ON = 'e2e-outage-on';
const OFF = 'e2e-outage-off';
const hooks: RunningWebhook[] = [];

before(async () => {
  await createNamespace(ON, ENABLED);
  await createNamespace(OFF);
});
after(async () => {
  for (const h of hooks) await h.remove();
  await deleteNamespaces(ON, OFF);
});

const deployment = (name: string, replicas: number): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } },
  },
});

test('scenario 7a: failurePolicy Fail with the webhook down refuses opted-in pods naming the webhook; others are created; retries inject once it is back', async () => {
  const hook = await startWebhook({ name: 'e2e-outage-fail', failurePolicy: 'Fail' });
  hooks.push(hook);
  await waitUntilInjecting(ON, SIDECAR);
  const names = (await getJson(['mutatingwebhookconfiguration', hook.name])).webhooks.map((w: Obj) => w.name as string);
  await hook.stop();

  const refused = await kubectl(['-n', ON, 'create', '-f', '-'], { input: JSON.stringify(appPod('refused')), allowFail: true });
  assert.notEqual(refused.code, 0, 'an opted-in pod is not created while the webhook is down');
  assert.ok(
    names.some((n: string) => refused.stderr.includes(`"${n}"`)),
    `the error names the webhook (${names.join(', ')}): ${refused.stderr}`,
  );
  assert.match(refused.stderr, /failed calling webhook/);

  await kubectl(['-n', OFF, 'create', '-f', '-'], { input: JSON.stringify(appPod('unaffected')) });
  assertNotInjected(await getJson(['-n', OFF, 'pod', 'unaffected']), 'a pod that did not opt in');

  await kubectl(['-n', ON, 'create', '-f', '-'], { input: JSON.stringify(deployment('retried', 2)) });
  await waitFor(
    'the ReplicaSet to fail creating pods',
    async () => {
      const ev = await getJson(['events', '-n', ON, '--field-selector', 'reason=FailedCreate']);
      return ev.items.length > 0;
    },
    30_000,
  );
  assert.equal((await pods(ON, 'app=retried')).length, 0, 'no pod without its sidecar');

  await hook.start();
  const created = await waitFor(
    "the controller's retries to create the pods",
    async () => {
      const list = await pods(ON, 'app=retried');
      return list.length >= 2 ? list : undefined;
    },
    120_000,
    500,
  );
  for (const pod of created) assertInjected(pod, 'a pod created by a retry');
  await hook.remove();
});

test('scenario 7b: failurePolicy Ignore with the webhook down: pods start without the sidecar', async () => {
  const hook = await startWebhook({ name: 'e2e-outage-ignore', failurePolicy: 'Ignore' });
  hooks.push(hook);
  await waitUntilInjecting(ON, SIDECAR);
  await hook.stop();
  await kubectl(['-n', ON, 'create', '-f', '-'], { input: JSON.stringify(deployment('uninjected', 2)) });
  const list = await waitFor(
    'the pods of a Deployment created during the outage',
    async () => {
      const p = await pods(ON, 'app=uninjected');
      return p.length >= 2 ? p : undefined;
    },
    60_000,
  );
  for (const pod of list) assertNotInjected(pod, 'a pod admitted while the webhook was down (Ignore)');
  await hook.remove();
});
