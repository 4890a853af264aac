/**
 * Graceful shutdown: readiness goes false first, requests in flight finish with a normal answer,
 * kept-alive connections are closed without resets, new connections are refused, and a stuck
 * client cannot hold the process beyond the bound.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from '../../test/support/webhook-harness.js';
import { exchange, tlsConnect } from '../../test/support/raw-tls.js';
import { keepAliveAgent, postReview, send } from '../../test/support/https-client.js';
import { podReview, samplePod } from '../../test/support/review-fixtures.js';

/** A request whose headers and first half of body are sent now; `finish()` sends the rest and reads the answer. */
async function halfSent(port: number) {
  const socket = await tlsConnect(port);
  const body = Buffer.from(JSON.stringify(podReview(samplePod())));
  socket.write(`POST /inject?timeout=10s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
  socket.write(body.subarray(0, 100));
  return {
    finish: () => exchange(socket, body.subarray(100), 5000),
  };
}

test('SIGTERM path: in-flight requests finish with 200 and Connection: close; idle keep-alive sockets close cleanly; then nothing is accepted', async () => {
  const h = await startHarness({ shutdown: { graceMs: 5000 } });
  const agent = keepAliveAgent(2);
  const first = await postReview(h.port, podReview(samplePod()), { agent });
  assert.equal(first.status, 200);
  const idle = (agent as unknown as { freeSockets: Record<string, import('node:net').Socket[]> }).freeSockets;
  const idleSocket = Object.values(idle).flat()[0];
  assert.ok(idleSocket, 'a kept-alive socket is idle in the agent');
  let idleError: Error | undefined;
  idleSocket.on('error', (e) => (idleError = e));
  const idleClosed = new Promise<void>((r) => idleSocket.once('close', () => r()));

  const inFlight = await Promise.all(Array.from({ length: 8 }, () => halfSent(h.port)));
  await new Promise((r) => setTimeout(r, 50));
  const stopping = h.server.shutdown();
  assert.equal(h.server.isReady(), false, 'readiness is false at once');
  await new Promise((r) => setTimeout(r, 100));
  const answers = await Promise.all(inFlight.map((r) => r.finish()));
  for (const a of answers) {
    assert.match(a.data, /^HTTP\/1\.1 200 OK/, 'no in-flight request fails');
    assert.match(a.data, /\r\nConnection: close\r\n/i, 'the client is told to reconnect elsewhere');
    assert.match(a.data, /"allowed":true/);
    assert.equal(a.closed, true, 'the connection is then closed');
  }
  await stopping;
  await idleClosed;
  assert.equal(idleError, undefined, 'the idle keep-alive socket was closed without a reset');
  await assert.rejects(send({ port: h.port, path: '/healthz' }), /ECONNREFUSED/);
  agent.destroy();
});

test('with a drain delay the webhook keeps answering (unready, closing each connection) before it stops listening', async () => {
  const h = await startHarness({ shutdown: { drainDelayMs: 400, graceMs: 2000 } });
  const stopping = h.server.shutdown();
  const ready = await send({ port: h.port, path: '/readyz' });
  assert.equal(ready.status, 503);
  assert.equal((JSON.parse(ready.body) as { draining: boolean }).draining, true);
  const res = await postReview(h.port, podReview(samplePod()));
  assert.equal(res.status, 200);
  assert.equal(res.headers.connection, 'close');
  await stopping;
});

test('a client stuck mid-request cannot hold shutdown beyond the bound', async () => {
  const h = await startHarness({ shutdown: { graceMs: 300 } });
  const stuck = await tlsConnect(h.port);
  stuck.write('POST /inject HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
  const closed = exchange(stuck, undefined, 5000);
  await new Promise((r) => setTimeout(r, 50));
  const started = Date.now();
  await h.server.shutdown();
  assert.ok(Date.now() - started < 1500, `shutdown took ${Date.now() - started} ms`);
  assert.equal((await closed).closed, true);
});

test('shutdown is idempotent: concurrent and later calls share the one shutdown, which runs once', async () => {
  const h = await startHarness({ shutdown: { drainDelayMs: 100, graceMs: 2000 } });
  const first = h.server.shutdown();
  const second = h.server.shutdown();
  assert.equal(second, first, 'a concurrent call joins the shutdown in progress');
  // While draining, a second call changed nothing: the webhook still answers (unready).
  assert.equal((await send({ port: h.port, path: '/readyz' })).status, 503);
  await Promise.all([first, second]);
  assert.equal(h.server.shutdown(), first, 'a call after the end returns the finished shutdown');
  await h.server.shutdown();
  const messages = h.logs.map((l) => l.msg);
  assert.equal(messages.filter((m) => typeof m === 'string' && m.startsWith('shutting down')).length, 1, 'draining started once');
  assert.equal(messages.filter((m) => m === 'webhook stopped').length, 1, 'the listener closed once');
  assert.equal(h.server.isReady(), false);
  await assert.rejects(send({ port: h.port, path: '/healthz' }), /ECONNREFUSED/);
});
