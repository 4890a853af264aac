/**
 * Scenario 6 of the control-plane issue: a second mutating webhook (a tiny one, here) adds a
 * container after ours. With reinvocationPolicy IfNeeded the apiserver calls ours again; the
 * stored pod has exactly one sidecar, keeps the other webhook's container and is valid. Alone,
 * ours is called once per pod: it mounts the service-account token into its containers as the
 * apiserver's ServiceAccount admission would, so that plugin changes nothing when the apiserver
 * runs it again after our patch, and nothing calls for a reinvocation.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { devCertificate } from '../../src/certs/index.js';
import { createNamespace, deleteNamespaces, getJson, kubectl, waitFor, type Obj } from '../lib/kube.js';
import { appPod, dryRunCreate, metric, startWebhook, waitUntilInjecting, type RunningWebhook } from '../lib/webhook.js';
import { ENABLED, INIT, SIDECAR, assertInjected } from '../lib/injected.js';

const NS = 'e2e-reinvoke';
const OTHER = 'e2e-reinvoke-zz-other'; // sorts after ours: the apiserver calls webhooks in name order
let hook: RunningWebhook;
let other: Server;
let otherCalls = 0;

before(async () => {
  await createNamespace(NS, ENABLED);
  hook = await startWebhook({ name: 'e2e-reinvoke-aa-ours' });
  await waitUntilInjecting(NS, SIDECAR);
  const cert = await devCertificate();
  other = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    let body = '';
    req
      .setEncoding('utf8')
      .on('data', (c: string) => {
        body += c;
      })
      .on('end', () => {
        otherCalls++;
        const review = JSON.parse(body) as Obj;
        const patch = [{ op: 'add', path: '/spec/containers/-', value: { name: 'added-later', image: 'registry.example/other:1' } }];
        res.setHeader('Content-Type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: {
              uid: review.request.uid,
              allowed: true,
              patchType: 'JSONPatch',
              patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
            },
          }),
        );
      });
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  const port = (other.address() as AddressInfo).port;
  await kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: OTHER },
      webhooks: [
        {
          name: 'other.e2e.example',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          reinvocationPolicy: 'Never',
          clientConfig: { url: `https://127.0.0.1:${port}/`, caBundle: Buffer.from(cert.ca.certPem).toString('base64') },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NS } },
          // Only the pods of this test: the label keeps the probe pods of the set-up out.
          objectSelector: { matchLabels: { 'e2e-other-webhook': 'yes' } },
        },
      ],
    }),
  });
});
after(async () => {
  await kubectl(['delete', 'mutatingwebhookconfiguration', OTHER, '--ignore-not-found'], { allowFail: true });
  await hook?.remove();
  other?.close();
  await deleteNamespaces(NS);
});

test('scenario 6: a later webhook adds a container; ours is reinvoked and the pod has exactly one sidecar and is valid', async () => {
  const pod = appPod('reinvoked', { labels: { 'e2e-other-webhook': 'yes' } });
  // The other webhook's configuration is picked up asynchronously: wait until a dry run shows it acting.
  await waitFor(
    'the other webhook to be called',
    async () => (await dryRunCreate(NS, pod)).spec.containers.some((c: Obj) => c.name === 'added-later'),
    30_000,
    300,
  );
  const oursBefore = await metric(hook, 'sidecar_injector_requests_total');
  const otherBefore = otherCalls;
  await kubectl(['-n', NS, 'create', '-f', '-'], { input: JSON.stringify(pod) });
  const stored = await getJson(['-n', NS, 'pod', 'reinvoked']);
  assert.equal(otherCalls - otherBefore, 1, 'the other webhook was called once (reinvocationPolicy Never)');
  assert.equal((await metric(hook, 'sidecar_injector_requests_total')) - oursBefore, 2, 'ours was called again after the other webhook changed the pod');
  assertInjected(stored, 'the reinvoked pod');
  const names = stored.spec.containers.map((c: Obj) => c.name);
  assert.equal(names.filter((n: string) => n === 'added-later').length, 1, `the other webhook's container, once: ${names}`);
  assert.equal(names.filter((n: string) => n === SIDECAR).length, 1, `one sidecar: ${names}`);
  assert.equal(names.filter((n: string) => n === 'app').length, 1);
});

test('alone: ours is called once per pod (IfNeeded), and its containers mount the token exactly as the app container does', async () => {
  const before = await metric(hook, 'sidecar_injector_requests_total');
  await kubectl(['-n', NS, 'create', '-f', '-'], { input: JSON.stringify(appPod('alone')) });
  assert.equal((await metric(hook, 'sidecar_injector_requests_total')) - before, 1, 'one call: no reinvocation');
  const stored = await getJson(['-n', NS, 'pod', 'alone']);
  assertInjected(stored, 'the pod');
  const token = (c: Obj): Obj[] => (c.volumeMounts ?? []).filter((m: Obj) => m.mountPath === '/var/run/secrets/kubernetes.io/serviceaccount');
  const app = stored.spec.containers.find((c: Obj) => c.name === 'app');
  assert.equal(token(app).length, 1, 'the ServiceAccount admission mounted the token into the app');
  for (const c of [...stored.spec.containers, ...(stored.spec.initContainers ?? [])].filter((x: Obj) => x.name === SIDECAR || x.name === INIT)) {
    assert.deepEqual(token(c), token(app), `${c.name}: the same token mount, once`);
  }
});
