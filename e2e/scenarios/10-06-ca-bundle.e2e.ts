/**
 * Scenario 8 of the control-plane issue: the caBundle reconciler (`serve --webhook-config`)
 * under the real RBAC that `manifests` generates, with a ServiceAccount token, not the admin.
 * serve runs as in a pod: in a private mount namespace with the token, the apiserver CA and the
 * namespace mounted at the service-account path, and the KUBERNETES_SERVICE_* variables. It
 * repairs a caBundle someone overwrote, and keeps the old CA during a rollover.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli, createNamespace, deleteNamespaces, getJson, kubectl, waitFor, type Obj } from '../lib/kube.js';
import { inPod, isRoot, type InPod } from '../lib/in-pod.js';
import { metric, startWebhook, waitUntilInjecting, type RunningWebhook } from '../lib/webhook.js';
import { ENABLED, SIDECAR } from '../lib/injected.js';

const NAME = 'e2e-rec';
const PROBE = 'e2e-rec-probe';
let hook: RunningWebhook | undefined;
let pod: InPod | undefined;

/** The CAs in a webhook's caBundle, as fingerprints. */
function bundleFingerprints(caBundle: string | undefined): string[] {
  const pem = Buffer.from(caBundle ?? '', 'base64').toString('utf8');
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []).map((p) => new X509Certificate(p).fingerprint256);
}
const fingerprint = async (file: string): Promise<string> => new X509Certificate(await readFile(file)).fingerprint256;
const bundles = async (): Promise<string[][]> =>
  ((await getJson(['mutatingwebhookconfiguration', NAME])).webhooks as Obj[]).map((w) => bundleFingerprints(w.clientConfig.caBundle));

before(async () => {
  if (!isRoot) return;
  pod = await inPod(NAME);
  await createNamespace(PROBE, ENABLED);
  hook = await startWebhook({ name: NAME, serveArgs: ['--webhook-config', NAME, '--ca-bundle-resync', '1'], env: pod.env, wrap: pod.wrap });
  await waitUntilInjecting(PROBE, SIDECAR);
});
after(async () => {
  await hook?.remove();
  await pod?.dispose();
  await deleteNamespaces(PROBE);
});

test('scenario 8a: the reconciler works with the ServiceAccount token under the generated RBAC, which is least privilege', {
  skip: isRoot ? false : 'needs root for a private mount namespace (unshare -m)',
}, async () => {
  const as = ['--as', `system:serviceaccount:${NAME}:${NAME}`];
  const can = async (...args: string[]) => (await kubectl(['auth', 'can-i', ...args, ...as], { allowFail: true })).stdout.trim();
  assert.equal(await can('patch', `mutatingwebhookconfigurations/${NAME}`), 'yes');
  assert.equal(await can('get', `mutatingwebhookconfigurations/${NAME}`), 'yes');
  assert.equal(await can('patch', 'mutatingwebhookconfigurations/some-other-webhook'), 'no', 'only its own configuration');
  assert.equal(await can('list', 'pods', '-A'), 'no');
  await waitFor(
    'a successful reconcile',
    async () =>
      (await metric(hook!, 'sidecar_injector_cabundle_reconcile_total', { result: 'unchanged' })) +
        (await metric(hook!, 'sidecar_injector_cabundle_reconcile_total', { result: 'patched' })) >
      0,
    30_000,
  );
  assert.equal(await metric(hook!, 'sidecar_injector_cabundle_reconcile_total', { result: 'failure' }), 0, `no failed reconcile: ${hook!.output()}`);
});

test('scenario 8b: a caBundle someone overwrote is repaired', { skip: isRoot ? false : 'needs root' }, async () => {
  const ours = await fingerprint(join(hook!.certsDir, 'ca.crt'));
  const mwc = await getJson(['mutatingwebhookconfiguration', NAME]);
  // Someone re-applies a configuration with a stranger's CA (here: the apiserver's).
  const stranger = Buffer.from(await readFile(join(pod!.dir, 'ca.crt'))).toString('base64');
  const patch = (mwc.webhooks as Obj[]).map((_, i) => ({ op: 'replace', path: `/webhooks/${i}/clientConfig/caBundle`, value: stranger }));
  // The object as the apiserver stored it: a watching reconciler may repair it before any later
  // read (seen on a node, where the repair came in under 0.7 s).
  const patched = JSON.parse(
    (await kubectl(['patch', 'mutatingwebhookconfiguration', NAME, '--type=json', '-p', JSON.stringify(patch), '-o', 'json'])).stdout,
  ) as Obj;
  assert.ok(
    (patched.webhooks as Obj[]).every((w) => !bundleFingerprints(w.clientConfig.caBundle).includes(ours)),
    'the overwrite took effect',
  );
  await waitFor('the reconciler to put our CA back', async () => (await bundles()).every((b) => b.includes(ours)), 30_000);
  await waitUntilInjecting(PROBE, SIDECAR);
});

test('scenario 8c: during a CA rollover the bundle keeps the old CA next to the new one, and admissions keep working', {
  skip: isRoot ? false : 'needs root',
}, async () => {
  const dir = hook!.certsDir;
  const oldCa = await fingerprint(join(dir, 'ca.crt'));
  // A new CA and certificate for the same address, from manifests itself.
  const fresh = await mkdtemp(join(tmpdir(), 'si-e2e-rollover-'));
  try {
    await cli(['manifests', '--webhook-url', hook!.url, '--certs-dir', fresh, '--name', NAME]);
    const newCa = await fingerprint(join(fresh, 'ca.crt'));
    assert.notEqual(newCa, oldCa);
    // As a Secret update reaches a pod: every file replaced by a rename.
    for (const f of ['tls.key', 'tls.crt', 'ca.crt']) {
      await copyFile(join(fresh, f), join(dir, `.${f}.new`));
      await rename(join(dir, `.${f}.new`), join(dir, f));
    }
    await waitFor(
      'the bundle to hold the new CA and keep the old one',
      async () => (await bundles()).every((b) => b.includes(newCa) && b.includes(oldCa)),
      60_000,
    );
    await waitUntilInjecting(PROBE, SIDECAR);
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
});
