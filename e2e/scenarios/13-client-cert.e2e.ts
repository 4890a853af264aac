/**
 * Issue 13, part 4: only the apiserver may call. The apiserver presents a client certificate to
 * webhooks (an AdmissionConfiguration with a WebhookAdmissionConfiguration kubeconfig, passed
 * with --admission-control-config-file) and `serve --client-ca --client-name` serves only it:
 * - the apiserver's calls succeed (a pod is injected);
 * - a curl without the certificate (or with one from another CA) is refused with a 403;
 * - a rotation of the client CA (old and new in the bundle) keeps admissions working, and a
 *   bundle without the apiserver's CA makes the apiserver's calls fail (so it is enforced).
 *
 * Needs a cluster started for it: SI_E2E_WEBHOOK_CLIENT_DIR names a directory written by
 * `sidecar-injector certs --service x --namespace x --out DIR --client kube-apiserver`
 * (ca.crt, client.crt, client.key), and the apiserver was started with
 * `npm run cluster -- up --admission-config DIR/admission.yaml`, whose kubeconfig gives user "*"
 * DIR/client.crt and DIR/client.key (docs/install.md shows both files). Without it, skipped.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rm, writeFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { cli, createNamespace, deleteNamespaces, kubectl, run, waitFor, type Obj } from '../lib/kube.js';
import { appPod, dryRunCreate, startWebhook, waitUntilInjecting, type RunningWebhook } from '../lib/webhook.js';
import { ENABLED, SIDECAR, assertInjected } from '../lib/injected.js';

const NAME = 'i13-client-cert';
const NS = 'i13-client-cert';
const DIR = process.env.SI_E2E_WEBHOOK_CLIENT_DIR;
const skip = DIR === undefined ? 'SI_E2E_WEBHOOK_CLIENT_DIR is not set (the apiserver needs --admission-control-config-file with a client certificate)' : false;

let hook: RunningWebhook | undefined;
let work: string;
let bundle: string;

/** Replace the webhook's client CA bundle atomically (a rename, as a mounted ConfigMap update). */
async function writeBundle(pem: string): Promise<void> {
  await writeFile(`${bundle}.tmp`, pem);
  await rename(`${bundle}.tmp`, bundle);
}

/** POST a review to the webhook with curl; returns the HTTP status. */
async function curlStatus(extra: string[]): Promise<number> {
  const review = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'i13-curl', kind: { group: '', version: 'v1', kind: 'Pod' }, operation: 'CREATE', namespace: NS, object: appPod('curl') },
  };
  const r = await run(
    'curl',
    [
      '-sS',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      '--cacert',
      join(hook!.certsDir, 'ca.crt'),
      '-H',
      'Content-Type: application/json',
      '--data',
      JSON.stringify(review),
      ...extra,
      `${hook!.url}/inject`,
    ],
    { allowFail: true },
  );
  return Number(r.stdout.trim());
}

before(async () => {
  if (DIR === undefined) return;
  work = await mkdtemp(join(tmpdir(), 'si-e2e-i13-'));
  bundle = join(work, 'client-ca.crt');
  await copyFile(join(DIR, 'ca.crt'), bundle);
  await createNamespace(NS, ENABLED);
  hook = await startWebhook({ name: NAME, serveArgs: ['--client-ca', bundle, '--client-name', 'kube-apiserver'] });
  await waitUntilInjecting(NS, SIDECAR);
});

after(async () => {
  await hook?.remove();
  if (DIR !== undefined) {
    await deleteNamespaces(NS);
    await rm(work, { recursive: true, force: true });
  }
});

test('the apiserver, presenting its client certificate, gets its admissions answered', { skip }, async () => {
  await kubectl(['-n', NS, 'create', '-f', '-'], { input: JSON.stringify(appPod('with-cert')) });
  const pod = JSON.parse((await kubectl(['-n', NS, 'get', 'pod', 'with-cert', '-o', 'json'])).stdout) as Obj;
  assertInjected(pod, 'a pod admitted through the client-certificate webhook');
});

test('a curl without the certificate, or with one from another CA, is refused; with the apiserver certificate it is served', { skip }, async () => {
  assert.equal(await curlStatus([]), 403, 'no client certificate');
  const other = await mkdtemp(join(tmpdir(), 'si-e2e-i13-other-'));
  try {
    await cli(['certs', '--service', 'x', '--namespace', 'x', '--out', other, '--client', 'kube-apiserver']);
    assert.equal(await curlStatus(['--cert', join(other, 'client.crt'), '--key', join(other, 'client.key')]), 403, 'a certificate from another CA');
  } finally {
    await rm(other, { recursive: true, force: true });
  }
  assert.equal(await curlStatus(['--cert', join(DIR!, 'client.crt'), '--key', join(DIR!, 'client.key')]), 200, 'the apiserver certificate');
});

test('rotating the client CA keeps admissions working; a bundle without the apiserver CA is enforced', { skip }, async () => {
  const next = await mkdtemp(join(tmpdir(), 'si-e2e-i13-next-'));
  try {
    await cli(['certs', '--service', 'x', '--namespace', 'x', '--out', next, '--client', 'kube-apiserver']);
    const oldCa = await readFile(join(DIR!, 'ca.crt'), 'utf8');
    const newCa = await readFile(join(next, 'ca.crt'), 'utf8');
    // Step 1 of a rotation: both CAs. Admissions keep working throughout.
    await writeBundle(oldCa + newCa);
    for (let i = 0; i < 5; i++) assert.ok((await dryRunCreate(NS, appPod(`during-${i}`))).spec.containers.some((c: Obj) => c.name === SIDECAR));
    // Without the apiserver's CA the apiserver's calls are refused (failurePolicy Fail: the create fails).
    await writeBundle(newCa);
    await waitFor(
      'the apiserver to be refused',
      async () => {
        const r = await kubectl(['-n', NS, 'create', '--dry-run=server', '-f', '-'], { input: JSON.stringify(appPod('refused')), allowFail: true });
        return r.code !== 0 && /403|client certificate/.test(r.stderr);
      },
      15_000,
      300,
    );
    await writeBundle(oldCa + newCa);
    await waitUntilInjecting(NS, SIDECAR, 15_000);
  } finally {
    await writeBundle(await readFile(join(DIR!, 'ca.crt'), 'utf8')).catch(() => undefined);
    await rm(next, { recursive: true, force: true });
  }
});
