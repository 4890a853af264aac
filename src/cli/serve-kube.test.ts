/**
 * @module cli/serve-kube.test
 * `serve --webhook-config --kubeconfig --context`: outside a pod, the caBundle reconciler uses
 * the kubeconfig's context (server, CA, token) instead of a service account, and keeps the
 * webhook configuration's caBundle on the serving CA. Against the strict fake apiserver, which
 * checks the bearer token on every request.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FakeApiServer } from '../../test/support/fake-apiserver.js';
import { memoryIO, type MemoryIO } from '../../test/support/memory-io.js';
import { caBundleFor } from '../certs/ca-bundle.js';
import { runCli } from './command-tree.js';

/** A kubeconfig with the fake as context "fake" (token t1) and a second, wrong context. */
function kubeconfig(server: string, caPem: string): string {
  const ca = Buffer.from(caPem).toString('base64');
  return `apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster: {server: "${server}", certificate-authority-data: ${ca}}
- name: elsewhere
  cluster: {server: "https://127.0.0.1:1", certificate-authority-data: ${ca}}
users:
- name: u
  user: {token: t1}
contexts:
- name: other
  context: {cluster: elsewhere, user: u}
- name: fake
  context: {cluster: fake, user: u}
current-context: other
`;
}

test('serve --kubeconfig --context: the caBundle reconciler patches through the kubeconfig context', async () => {
  const fake = await FakeApiServer.start({ tokens: ['t1'] });
  const dir = await mkdtemp(join(tmpdir(), 'si-serve-kube-'));
  try {
    const certs = join(dir, 'certs');
    assert.equal(await runCli(['certs', '--service', 'injector', '-n', 'injector-system', '--out', certs], memoryIO()), 0);
    fake.addWebhookConfiguration({
      metadata: { name: 'inj' },
      webhooks: [
        {
          name: 'pods.injector.example.com',
          clientConfig: { service: { name: 'injector', namespace: 'injector-system', path: '/inject' } },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    });
    const kc = join(dir, 'kubeconfig');
    await writeFile(kc, kubeconfig(`https://127.0.0.1:${fake.env().KUBERNETES_SERVICE_PORT}`, fake.caPem));
    const controller = new AbortController();
    const io: MemoryIO = Object.assign(memoryIO(), { signal: controller.signal });
    const done = runCli(
      ['serve', '--port', '0', '--address', '127.0.0.1', '--tls-dir', certs, '--webhook-config', 'inj', '--kubeconfig', kc, '--context', 'fake'],
      io,
    );
    const want = caBundleFor(readFileSync(join(certs, 'ca.crt'), 'utf8'));
    const deadline = Date.now() + 30_000;
    const bundle = () => (fake.getWebhookConfiguration('inj')?.webhooks as { clientConfig: { caBundle?: string } }[])[0].clientConfig.caBundle;
    while (bundle() !== want && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    assert.equal(await done, 0, io.err);
    assert.equal(bundle(), want, io.err);
  } finally {
    await fake.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('serve --context that the kubeconfig lacks: SI_CLUSTER_CONFIG naming the contexts, no stack trace', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'si-serve-kube-'));
  try {
    const kc = join(dir, 'kubeconfig');
    await writeFile(kc, kubeconfig('https://127.0.0.1:1', 'x'));
    const io = memoryIO();
    const certs = join(dir, 'certs');
    assert.equal(await runCli(['certs', '--service', 'injector', '-n', 'injector-system', '--out', certs], memoryIO()), 0);
    assert.equal(await runCli(['serve', '--port', '0', '--tls-dir', certs, '--webhook-config', 'inj', '--kubeconfig', kc, '--context', 'prod'], io), 8);
    assert.match(
      io.err,
      /^Error \[SI_CLUSTER_CONFIG\]: context "prod" is not in the kubeconfig .*; its contexts: other, fake \(kubectl config get-contexts\)\n$/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
