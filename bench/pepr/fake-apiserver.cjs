/**
 * @module bench/pepr/fake-apiserver
 * Just enough of a Kubernetes API server for Pepr's StoreController to finish starting (it binds
 * /mutate/:path only after it has read or created its PeprStore and received a watch event):
 * GET, PATCH (server-side apply or JSON patch) and list/watch of
 * /apis/pepr.dev/v1/namespaces/pepr-system/peprstores[/NAME]. Everything else is a 404 Status.
 * Plain HTTP on 127.0.0.1 (the kubeconfig sets insecure-skip-tls-verify so the client accepts it).
 *
 *   node fake-apiserver.cjs PORT [LOG_FILE]
 */
'use strict';
const http = require('node:http');
const fs = require('node:fs');

const port = Number(process.argv[2] || 16443);
const logFile = process.argv[3];
const stores = new Map();
let version = 1;
const PREFIX = '/apis/pepr.dev/v1/namespaces/pepr-system/peprstores';

function log(line) {
  if (logFile) fs.appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`);
}

function store(name, data) {
  version++;
  const existing = stores.get(name);
  const obj = {
    apiVersion: 'pepr.dev/v1',
    kind: 'PeprStore',
    metadata: {
      name,
      namespace: 'pepr-system',
      uid: existing ? existing.metadata.uid : `00000000-0000-4000-8000-${String(stores.size + 1).padStart(12, '0')}`,
      resourceVersion: String(version),
      generation: 1,
    },
    data: { ...(existing ? existing.data : {}), ...(data || {}) },
  };
  stores.set(name, obj);
  return obj;
}

function json(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function notFound(res, what) {
  json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `${what} not found` });
}

http
  .createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url, 'http://x');
      const body = Buffer.concat(chunks).toString('utf8');
      log(`${req.method} ${req.url} ${req.headers['content-type'] || ''}`);
      if (!url.pathname.startsWith(PREFIX)) return notFound(res, url.pathname);
      const name = decodeURIComponent(url.pathname.slice(PREFIX.length + 1));
      if (name === '') {
        // List or watch, possibly with fieldSelector=metadata.name=NAME.
        const selector = url.searchParams.get('fieldSelector') || '';
        const wanted = selector.startsWith('metadata.name=') ? selector.slice('metadata.name='.length) : undefined;
        const items = [...stores.values()].filter((s) => wanted === undefined || s.metadata.name === wanted);
        if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
          res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
          for (const item of items) res.write(`${JSON.stringify({ type: 'ADDED', object: item })}\n`);
          return; // stays open, as a watch does
        }
        return json(res, 200, { apiVersion: 'pepr.dev/v1', kind: 'PeprStoreList', metadata: { resourceVersion: String(version) }, items });
      }
      if (req.method === 'GET') {
        const s = stores.get(name);
        return s ? json(res, 200, s) : notFound(res, `peprstores ${name}`);
      }
      if (req.method === 'PATCH' || req.method === 'PUT' || req.method === 'POST') {
        let data = {};
        try {
          const parsed = body ? JSON.parse(body) : {};
          if (Array.isArray(parsed)) {
            // JSON patch: apply add/replace ops under /data, ignore the rest.
            for (const op of parsed) {
              if ((op.op === 'add' || op.op === 'replace') && typeof op.path === 'string' && op.path.startsWith('/data/'))
                data[op.path.slice(6).replace(/~1/g, '/').replace(/~0/g, '~')] = op.value;
            }
          } else if (parsed && typeof parsed === 'object') {
            data = parsed.data || {};
          }
        } catch {
          return json(res, 400, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 400, message: 'bad body' });
        }
        return json(res, 200, store(name, data));
      }
      if (req.method === 'DELETE') {
        stores.delete(name);
        return json(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success', code: 200 });
      }
      return notFound(res, req.method);
    });
  })
  .listen(port, '127.0.0.1', () => process.stdout.write(`fake apiserver on http://127.0.0.1:${port}\n`));
