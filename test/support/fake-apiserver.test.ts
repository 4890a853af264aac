// The fake must refuse what a real apiserver refuses, or the client tests prove nothing.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { FakeApiServer } from './fake-apiserver.js';

const PATH = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/demo';

const fake = await FakeApiServer.start({ tokens: ['good'] });
after(() => fake.stop());
fake.addWebhookConfiguration({
  metadata: { name: 'demo' },
  webhooks: [{ name: 'a.example.com', clientConfig: { service: { name: 's', namespace: 'n' } } }],
});

function call(method: string, path: string, options: { token?: string; contentType?: string; body?: string; accept?: string } = {}) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
    if (options.contentType) headers['Content-Type'] = options.contentType;
    if (options.accept) headers.Accept = options.accept;
    if (options.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(options.body));
    const req = request({ host: '127.0.0.1', port: fake.port, method, path, headers, ca: fake.caPem, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

test('requests without a valid bearer token get 401 Status', async () => {
  for (const token of [undefined, 'bad']) {
    const res = await call('GET', PATH, { token });
    assert.equal(res.status, 401);
    assert.equal(res.body.kind, 'Status');
    assert.equal(res.body.reason, 'Unauthorized');
  }
});

test('unknown paths and objects are 404; other methods 405; GET with a body 400', async () => {
  assert.equal((await call('GET', '/api/v1/pods', { token: 'good' })).status, 404);
  const missing = await call('GET', PATH.replace('demo', 'nope'), { token: 'good' });
  assert.equal(missing.status, 404);
  assert.match(String(missing.body.message), /"nope" not found/);
  assert.equal((await call('DELETE', PATH, { token: 'good' })).status, 405);
  assert.equal((await call('GET', PATH, { token: 'good', body: '{}', contentType: 'application/json' })).status, 400);
  assert.equal((await call('GET', PATH, { token: 'good', accept: 'application/yaml' })).status, 406);
});

test('PATCH: 415 for other content types, 400 for non-JSON, 422 for a failed test or missing path, 409 for a stale resourceVersion', async () => {
  const ok = await call('GET', PATH, { token: 'good' });
  const rv = (ok.body.metadata as { resourceVersion: string }).resourceVersion;
  const patch = (body: unknown, contentType = 'application/json-patch+json') => call('PATCH', PATH, { token: 'good', contentType, body: JSON.stringify(body) });
  assert.equal((await patch([], 'application/strategic-merge-patch+json')).status, 415);
  assert.equal((await patch([], 'application/json')).status, 415);
  assert.equal((await call('PATCH', PATH, { token: 'good', contentType: 'application/json-patch+json', body: '[{' })).status, 400);
  assert.equal((await patch({ op: 'add' })).status, 400, 'a JSON patch must be an array');
  const failedTest = await patch([{ op: 'test', path: '/webhooks/0/name', value: 'other' }]);
  assert.equal(failedTest.status, 422);
  assert.match(String(failedTest.body.message), /testing value \/webhooks\/0\/name failed/);
  assert.equal((await patch([{ op: 'add', path: '/webhooks/5/clientConfig/caBundle', value: 'AAAA' }])).status, 422);
  assert.equal((await patch([{ op: 'add', path: '/webhooks/0/clientConfig/caBundle', value: 'not base64!' }])).status, 422);
  const stale = await patch([
    { op: 'replace', path: '/metadata/resourceVersion', value: '1' },
    { op: 'add', path: '/webhooks/0/clientConfig/caBundle', value: 'AAAA' },
  ]);
  assert.equal(stale.status, 409);
  assert.equal(stale.body.reason, 'Conflict');
  const good = await patch([
    { op: 'replace', path: '/metadata/resourceVersion', value: rv },
    { op: 'add', path: '/webhooks/0/clientConfig/caBundle', value: 'AAAA' },
  ]);
  assert.equal(good.status, 200);
  assert.notEqual((good.body.metadata as { resourceVersion: string }).resourceVersion, rv, 'every write bumps the resourceVersion');
  const merged = await patch({ metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
  assert.equal(merged.status, 200);
  assert.deepEqual(fake.getWebhookConfiguration('demo')?.metadata, { ...(merged.body.metadata as object) });
  assert.equal((fake.getWebhookConfiguration('demo')?.webhooks as Array<{ clientConfig: { caBundle: string } }>)[0].clientConfig.caBundle, 'AAAA');
});

test('every request is recorded with its headers, body and answer', async () => {
  const before = fake.requests.length;
  await call('PATCH', PATH, { token: 'good', contentType: 'application/merge-patch+json', body: '{"metadata":{"annotations":{"x":"y"}}}' });
  const [recorded] = fake.requests.slice(before);
  assert.equal(recorded.method, 'PATCH');
  assert.equal(recorded.authorization, 'Bearer good');
  assert.equal(recorded.contentType, 'application/merge-patch+json');
  assert.deepEqual(recorded.body, { metadata: { annotations: { x: 'y' } } });
  assert.equal(recorded.status, 200);
});
