/**
 * The heal transport against a loopback HTTP server speaking the apiserver's protocol: list
 * pages follow `continue` (and an empty metadata list's `items: null`), metadata-only reads ask
 * for PartialObjectMetadata, the watch splits newline-delimited events across any chunking,
 * a refused watch rejects with its HTTP status (410), a cut stream ends with an error, and
 * abort ends it without one. The real apiserver is the e2e suite's (scenario 30).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apiStatus } from './api-error.js';
import type { ClusterApi } from './cluster-api.js';
import { connect } from './client.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
let handler: Handler = (_req, res) => res.end('{}');
const seen: { url: string; accept?: string; agent?: string }[] = [];
const server = createServer((req, res) => {
  seen.push({ url: req.url ?? '', accept: req.headers.accept, agent: req.headers['user-agent'] });
  handler(req, res);
});
const dir = mkdtempSync(join(tmpdir(), 'heal-kube-'));
let api: ClusterApi;

before(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const kubeconfig = join(dir, 'config');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: shop}}]
current-context: x
`,
  );
  api = connect({ kubeconfig });
});

after(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

describe('KubeClusterApi', () => {
  it('lists page by page (limit, continue), each page to the consumer; metadata-only asks for PartialObjectMetadataList and takes items: null', async () => {
    seen.length = 0;
    handler = (req, res) => {
      const q = new URL(req.url ?? '', 'http://x').searchParams;
      if (req.url?.startsWith('/apis/apps/v1/replicasets'))
        return json(res, 200, { kind: 'PartialObjectMetadataList', metadata: { resourceVersion: '7' }, items: null });
      const page = q.get('continue') === null ? 0 : Number(q.get('continue'));
      json(res, 200, {
        kind: 'PodList',
        metadata: { resourceVersion: '42', ...(page < 2 ? { continue: String(page + 1) } : {}) },
        items: [{ metadata: { name: `p${page}` } }],
      });
    };
    const pages: unknown[][] = [];
    const listed = await api.listPages('/api/v1/pods', {}, (items) => void pages.push(items));
    assert.deepEqual(listed, { resourceVersion: '42', count: 3 });
    assert.deepEqual(
      pages.map((p) => (p[0] as { metadata: { name: string } }).metadata.name),
      ['p0', 'p1', 'p2'],
    );
    assert.deepEqual(
      seen.map((s) => s.url),
      ['/api/v1/pods?limit=500', '/api/v1/pods?limit=500&continue=1', '/api/v1/pods?limit=500&continue=2'],
    );
    assert.equal(seen[0].agent, 'sidecar-injector/heal');
    const rs = await api.listPages('/apis/apps/v1/replicasets', {}, () => undefined, { metadataOnly: true });
    assert.deepEqual(rs, { resourceVersion: '7', count: 0 });
    assert.match(seen.at(-1)?.accept ?? '', /^application\/json;as=PartialObjectMetadataList;g=meta\.k8s\.io;v=v1$/);
  });

  it('watches: events split across chunks arrive whole and in order; the end of the stream is done(null)', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const text = [
        { type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '1' } } },
        { type: 'BOOKMARK', object: { metadata: { resourceVersion: '2' } } },
        { type: 'DELETED', object: { metadata: { name: 'a', resourceVersion: '3' } } },
      ]
        .map((e) => `${JSON.stringify(e)}\n`)
        .join('');
      let i = 0;
      const step = (): void => {
        if (i >= text.length) return void res.end();
        res.write(text.slice(i, i + 7));
        i += 7;
        setTimeout(step, 1);
      };
      step();
    };
    const events: string[] = [];
    const ended = new Promise(
      (resolve) =>
        void api.watch(
          '/api/v1/pods',
          { resourceVersion: '0' },
          (type, obj) => events.push(`${type} ${(obj as { metadata: { resourceVersion: string } }).metadata.resourceVersion}`),
          resolve,
        ),
    );
    assert.equal(await ended, null);
    assert.deepEqual(events, ['ADDED 1', 'BOOKMARK 2', 'DELETED 3']);
    assert.match(seen.at(-1)?.url ?? '', /[?&]watch=true/);
  });

  it('a refused watch rejects with the HTTP status; a cut stream ends with an error; abort ends it silently', async () => {
    handler = (_req, res) => json(res, 410, { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (9)' });
    await assert.rejects(
      api.watch(
        '/api/v1/pods',
        {},
        () => undefined,
        () => undefined,
      ),
      (err) => apiStatus(err) === 410 && /too old resource version/.test(String(err)),
    );

    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } })}\n`);
      setTimeout(() => res.destroy(), 20);
    };
    const cut = await new Promise((resolve) => void api.watch('/api/v1/pods', {}, () => undefined, resolve));
    assert.ok(cut instanceof Error, `an error, not ${String(cut)}`);

    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('\n');
    };
    let done: unknown = 'not called';
    const w = await api.watch(
      '/api/v1/pods',
      {},
      () => undefined,
      (err) => (done = err),
    );
    w.abort();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(done, 'not called');
  });
});
