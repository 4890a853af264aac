/**
 * The transport's guarantees, against a loopback HTTP server: an answer over the size cap is
 * refused (and the connection dropped), a total deadline holds even when the server trickles
 * bytes, an AbortSignal ends a call and a watch, a Status error keeps its reason, and a watch
 * event over the line cap ends the stream with an error instead of growing memory.
 */
import assert from 'node:assert/strict';
import { Agent, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { KubeApiError } from './api-error.js';
import type { Endpoint } from './endpoint.js';
import { Transport } from './transport.js';

let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end('{}');
const server = createServer((req, res) => handler(req, res));
let transport: Transport;
let refusedCalls = 0;

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new Agent({ keepAlive: false });
  const endpoint: Endpoint = {
    server: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix/`),
    namespace: undefined,
    description: 'test',
    connection: async () => ({ agent, headers: {} }),
    refused: () => void refusedCalls++,
    close: () => agent.destroy(),
  };
  transport = new Transport(endpoint, { userAgent: 'test', timeoutMs: 5_000, maxResponseBytes: 1024 });
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const rejectsWith = (re: RegExp, status?: number) => (e: unknown) => e instanceof KubeApiError && re.test(e.message) && e.status === status;

test('the server URL path prefix is kept, and a 2xx JSON answer is parsed', async () => {
  let url = '';
  handler = (req, res) => {
    url = req.url ?? '';
    res.end('{"kind":"Pod"}');
  };
  assert.deepEqual(await transport.call('GET', '/api/v1/pods?limit=1'), { kind: 'Pod' });
  assert.equal(url, '/prefix/api/v1/pods?limit=1');
});

test('an answer larger than the cap is refused; the cap can be raised per call', async () => {
  handler = (_req, res) => res.end(JSON.stringify({ data: 'x'.repeat(4096) }));
  await assert.rejects(transport.call('GET', '/big'), rejectsWith(/the answer is larger than 1024 bytes/));
  const big = (await transport.call('GET', '/big', undefined, undefined, { maxResponseBytes: 8192 })) as { data: string };
  assert.equal(big.data.length, 4096);
});

test('the deadline is total: a server that trickles bytes does not keep the call open', async () => {
  handler = (_req, res) => {
    res.writeHead(200);
    const timer = setInterval(() => res.write(' '), 20);
    res.on('close', () => clearInterval(timer));
  };
  await assert.rejects(
    transport.call('GET', '/slow', undefined, undefined, { timeoutMs: 200 }),
    rejectsWith(/no answer from the Kubernetes API within 200 ms/),
  );
});

test('an AbortSignal ends a call; a Status answer keeps its code, reason and message; a 401 tells the endpoint', async () => {
  handler = () => undefined;
  const controller = new AbortController();
  const pending = transport.call('GET', '/hang', undefined, undefined, { signal: controller.signal });
  controller.abort();
  await assert.rejects(pending, rejectsWith(/aborted/));
  handler = (_req, res) => {
    res.writeHead(409, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', reason: 'Conflict', message: 'the object has been modified' }));
  };
  const conflict = (await transport.call('PUT', '/x', '{}').catch((e: unknown) => e)) as KubeApiError;
  assert.deepEqual([conflict.status, conflict.reason, conflict.apiMessage], [409, 'Conflict', 'the object has been modified']);
  handler = (_req, res) => {
    res.writeHead(401);
    res.end('Unauthorized');
  };
  const before = refusedCalls;
  await assert.rejects(transport.call('GET', '/x'), rejectsWith(/401: Unauthorized/, 401));
  assert.equal(refusedCalls, before + 1);
  handler = (_req, res) => res.end('<html>');
  await assert.rejects(transport.call('GET', '/x'), rejectsWith(/the answer \(HTTP 200\) is not JSON/, 200));
});

test('a watch line over the cap ends the stream with an error; abort ends it with null', async () => {
  handler = (_req, res) => {
    res.writeHead(200);
    res.write('{"type":"ADDED"}\n');
    res.write('y'.repeat(3000));
  };
  const lines: string[] = [];
  const stream = await transport.stream('/watch', (l) => lines.push(l), { idleMs: 5_000, maxLineBytes: 2048 });
  const err = await stream.ended;
  assert.deepEqual(lines, ['{"type":"ADDED"}']);
  assert.match(String(err?.message), /larger than 2048 bytes/);
  handler = (_req, res) => {
    res.writeHead(200);
    res.write('\n');
  };
  const controller = new AbortController();
  const open = await transport.stream('/watch', () => undefined, { idleMs: 5_000, maxLineBytes: 2048, signal: controller.signal });
  controller.abort();
  assert.equal(await open.ended, null);
});
