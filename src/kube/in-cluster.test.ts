import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeApiServer } from '../../test/support/fake-apiserver.js';
import { devCertificate } from '../certs/create-certs.js';
import { KubeApiError, isConflict } from './api-error.js';
import { KubeClient } from './client.js';
import { inClusterEndpoint } from './endpoint.js';
import { loadInClusterConfig } from './in-cluster.js';
import { ClusterError } from '../errors.js';

const PATH = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/demo';
const fake = await FakeApiServer.start({ tokens: ['token-1'] });
const dir = await mkdtemp(join(tmpdir(), 'si-client-'));
await fake.writeServiceAccount(join(dir, 'sa'), 'token-1', 'mesh');
fake.addWebhookConfiguration({ metadata: { name: 'demo' }, webhooks: [{ name: 'a.example.com', clientConfig: { url: 'https://x.example' } }] });
const config = await loadInClusterConfig({ dir: join(dir, 'sa'), env: fake.env() });
const client = new KubeClient(inClusterEndpoint(config), { timeoutMs: 2000, userAgent: 'sidecar-injector/test' });
after(async () => {
  client.close();
  await fake.stop();
  await rm(dir, { recursive: true, force: true });
});

test('in-cluster config: address from the environment, namespace from the service account volume', () => {
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, fake.port);
  assert.equal(config.namespace, 'mesh');
});

test('in-cluster config: missing pieces are SI_CLUSTER_CONFIG errors that say what to do', async () => {
  await assert.rejects(
    loadInClusterConfig({ dir: join(dir, 'sa'), env: {} }),
    (e: unknown) => e instanceof ClusterError && e.code === 'SI_CLUSTER_CONFIG' && /not running in a Kubernetes pod/.test(e.message),
  );
  await assert.rejects(
    loadInClusterConfig({ dir: join(dir, 'sa'), env: { KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: 'https' } }),
    /is not a port number/,
  );
  await assert.rejects(
    loadInClusterConfig({ dir: join(dir, 'none'), env: fake.env() }),
    /cannot read the service account token .*ENOENT.*automountServiceAccountToken/,
  );
  const empty = join(dir, 'empty');
  await fake.writeServiceAccount(empty, '  \n');
  await assert.rejects(loadInClusterConfig({ dir: empty, env: fake.env() }), /token .* is empty/);
  const badCa = join(dir, 'bad-ca');
  await fake.writeServiceAccount(badCa, 't');
  await writeFile(join(badCa, 'ca.crt'), 'garbage');
  await assert.rejects(loadInClusterConfig({ dir: badCa, env: fake.env() }), /no "BEGIN CERTIFICATE"/);
});

test('GET sends the bearer token, Accept JSON and a user agent, and returns the object', async () => {
  const before = fake.requests.length;
  const obj = (await client.get(PATH)) as { metadata: { name: string } };
  assert.equal(obj.metadata.name, 'demo');
  const [req] = fake.requests.slice(before);
  assert.equal(req.authorization, 'Bearer token-1');
  assert.equal(req.accept, 'application/json');
  assert.equal(req.userAgent, 'sidecar-injector/test');
  assert.equal(req.rawBody, '');
});

test('PATCH sends the right content type for JSON and merge patches', async () => {
  const before = fake.requests.length;
  await client.patch(PATH, { metadata: { labels: { a: 'b' } } }, 'merge');
  await client.patch(PATH, [{ op: 'add', path: '/metadata/labels/c', value: 'd' }], 'json');
  const [merge, json] = fake.requests.slice(before);
  assert.equal(merge.contentType, 'application/merge-patch+json');
  assert.equal(json.contentType, 'application/json-patch+json');
  assert.deepEqual((fake.getWebhookConfiguration('demo')?.metadata as { labels: object }).labels, { a: 'b', c: 'd' });
});

test('API errors carry the status, reason and Status.message', async () => {
  const err = await client.get(PATH.replace('demo', 'missing')).catch((e: unknown) => e);
  assert.ok(err instanceof KubeApiError);
  assert.equal(err.status, 404);
  assert.equal(err.reason, 'NotFound');
  assert.match(err.apiMessage ?? '', /"missing" not found/);
  assert.match(err.message, /^GET \/apis\/.*: 404 NotFound: .*not found$/);
  const conflict = await client.patch(PATH, [{ op: 'replace', path: '/metadata/resourceVersion', value: '1' }], 'json').catch((e: unknown) => e);
  assert.ok(isConflict(conflict));
  const failedTest = await client.patch(PATH, [{ op: 'test', path: '/metadata/name', value: 'x' }], 'json').catch((e: unknown) => e);
  assert.equal((failedTest as KubeApiError).status, 422);
  assert.ok(isConflict(failedTest), 'a failed JSON-patch test is a lost race too');
  const missingPath = await client.patch(PATH, [{ op: 'replace', path: '/nope/x', value: 1 }], 'json').catch((e: unknown) => e);
  assert.equal((missingPath as KubeApiError).status, 422);
  assert.ok(!isConflict(missingPath));
});

test('the token is re-read on every request, so a rotated token is used at once', async () => {
  fake.tokens.add('token-2');
  await writeFile(config.tokenFile, 'token-2\n');
  const before = fake.requests.length;
  await client.get(PATH);
  assert.equal(fake.requests[before].authorization, 'Bearer token-2');
  fake.tokens.delete('token-2');
  const refused = await client.get(PATH).catch((e: unknown) => e);
  assert.equal((refused as KubeApiError).status, 401);
  assert.match((refused as Error).message, /token was refused/);
  await writeFile(config.tokenFile, 'token-1');
});

test('no server, a TLS server we do not trust, and a server that never answers are clear errors', async () => {
  const down = new KubeClient(inClusterEndpoint({ ...config, port: 1 }), { timeoutMs: 2000 });
  const refused = await down.get(PATH).catch((e: unknown) => e);
  assert.ok(refused instanceof KubeApiError);
  assert.equal(refused.status, undefined);
  assert.match(refused.message, /cannot reach the Kubernetes API at 127\.0\.0\.1:1: ECONNREFUSED/);

  const dev = await devCertificate();
  const silent = createServer({ cert: dev.certPem, key: dev.keyPem }, () => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const port = (silent.address() as AddressInfo).port;
    const untrusted = await new KubeClient(inClusterEndpoint({ ...config, port })).get(PATH).catch((e: unknown) => e);
    assert.match((untrusted as Error).message, /cannot reach .*(SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER)/);
    const caFile = join(dir, 'dev-ca.crt');
    await writeFile(caFile, dev.caPem);
    const slow = new KubeClient(inClusterEndpoint({ ...config, port, caFile }), { timeoutMs: 150 });
    const timedOut = await slow.get(PATH).catch((e: unknown) => e);
    assert.match((timedOut as Error).message, /no answer from the Kubernetes API within 150 ms/);
    const controller = new AbortController();
    const pending = slow.get(PATH, { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort();
    assert.match(((await pending) as Error).message, /aborted/);
    slow.close();
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

test('open watches never starve other calls: a dozen watches held open, and a get still answers at once', { timeout: 20_000 }, async () => {
  const dev = await devCertificate();
  const server = createServer({ cert: dev.certPem, key: dev.keyPem }, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url?.includes('watch=true'))
      res.write('\n'); // held open, as the apiserver holds a watch
    else res.end('{"kind":"Namespace"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const caFile = join(dir, 'watch-ca.crt');
  await writeFile(caFile, dev.caPem);
  const watcher = new KubeClient(inClusterEndpoint({ ...config, port: (server.address() as AddressInfo).port, caFile }), { timeoutMs: 5000 });
  try {
    const watches = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        watcher.watch(
          `/api/v1/namespaces/n${i}/pods`,
          {},
          () => undefined,
          () => undefined,
        ),
      ),
    );
    assert.deepEqual(await watcher.get('/api/v1/namespaces/default'), { kind: 'Namespace' });
    for (const w of watches) w.abort();
  } finally {
    watcher.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
