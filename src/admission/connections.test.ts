/**
 * Idle connections cannot lock the apiserver out: one address holds a bounded share of the
 * table, connections that only ever probed (`GET /healthz`) are closed after a short idle time,
 * and when the table fills up, idle connections are reclaimed, probe ones first, so a new
 * connection (the apiserver's next admission) is still accepted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TLSSocket } from 'node:tls';
import { parseReview, postReview } from '../../test/support/https-client.js';
import { exchange, tlsConnect } from '../../test/support/raw-tls.js';
import { podReview, samplePod } from '../../test/support/review-fixtures.js';
import { startHarness } from '../../test/support/webhook-harness.js';

const HEALTHZ = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n';

function admissionRequest(): string {
  const body = JSON.stringify(podReview(samplePod()));
  return `POST /inject HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** A kept-alive connection that has made one request and got its answer. */
async function used(port: number, request: string): Promise<{ socket: TLSSocket; closed: () => boolean }> {
  const socket = await tlsConnect(port);
  let closed = false;
  socket.once('close', () => (closed = true));
  const answer = await new Promise<string>((resolve) => {
    let data = '';
    const onData = (d: Buffer) => {
      data += d.toString('latin1');
      if (/\r\n\r\n/.test(data) && /Content-Length: (\d+)/i.test(data)) {
        const len = Number(/Content-Length: (\d+)/i.exec(data)![1]);
        if (Buffer.byteLength(data.slice(data.indexOf('\r\n\r\n') + 4), 'latin1') >= len) {
          socket.removeListener('data', onData);
          resolve(data);
        }
      }
    };
    socket.on('data', onData);
    socket.write(request);
  });
  assert.match(answer, /^HTTP\/1\.1 200 /);
  return { socket, closed: () => closed };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a probe connection is closed after the short idle time; an admission connection is kept alive', async (t) => {
  const h = await startHarness({ limits: { probeIdleTimeoutMs: 300 } });
  t.after(() => h.server.shutdown());
  const probe = await used(h.port, HEALTHZ);
  const apiserver = await used(h.port, admissionRequest());
  await sleep(1800);
  assert.equal(probe.closed(), true, 'the idle probe connection was closed');
  assert.equal(apiserver.closed(), false, 'the admission connection is still open');
  apiserver.socket.destroy();
});

test('one address holds at most maxConnectionsPerSource connections; others are still served after', async (t) => {
  const h = await startHarness({ limits: { maxConnectionsPerSource: 5 } });
  t.after(() => h.server.shutdown());
  const held = await Promise.all(Array.from({ length: 5 }, () => tlsConnect(h.port)));
  const sixth = await tlsConnect(h.port).then(
    (s) => exchange(s, HEALTHZ, 1000),
    (err: Error) => ({ data: '', closed: true, error: err.message }),
  );
  assert.equal(sixth.data, '', 'the sixth connection is closed without an answer');
  assert.equal(sixth.closed, true);
  for (const s of held) s.destroy();
  await sleep(100);
  assert.ok(parseReview(await postReview(h.port, podReview(samplePod()))).response.patch);
});

test('a full table of idle connections does not lock out a new admission: idle probe connections are reclaimed first', async (t) => {
  const h = await startHarness({ limits: { maxConnections: 20, maxConnectionsPerSource: 1000, probeIdleTimeoutMs: 60_000 } });
  t.after(() => h.server.shutdown());
  const apiserver = await used(h.port, admissionRequest());
  const probes = [];
  for (let i = 0; i < 30; i++) probes.push(await used(h.port, HEALTHZ));
  for (let i = 0; i < 5; i++) {
    const res = await postReview(h.port, podReview(samplePod()));
    assert.equal(res.status, 200, `admission ${i} on a new connection is served`);
  }
  assert.ok(probes.filter((p) => p.closed()).length >= 10, 'idle probe connections were reclaimed');
  assert.equal(apiserver.closed(), false, 'the idle admission connection was kept: probes go first');
  for (const p of probes) p.socket.destroy();
  apiserver.socket.destroy();
});

test('a burst of new connections is handshaken in paced turns: every one is served, and another source is served meanwhile', async (t) => {
  const h = await startHarness({ limits: { maxConnectionsPerSource: 1000 } });
  t.after(() => h.server.shutdown());
  // 80 at once from one address: far more than the handshakes begun per turn, so most wait.
  const burst = Array.from({ length: 80 }, () => tlsConnect(h.port).then((s) => exchange(s, HEALTHZ, 10_000)));
  const other = tlsConnect(h.port, { localAddress: '127.0.0.2' } as Parameters<typeof tlsConnect>[1]).then((s) => exchange(s, HEALTHZ, 10_000));
  const answers = await Promise.all([...burst, other]);
  for (const a of answers) assert.match(a.data, /^HTTP\/1\.1 200 /);
  assert.ok(parseReview(await postReview(h.port, podReview(samplePod()))).response.patch);
});
