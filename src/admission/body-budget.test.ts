/**
 * A global budget for request bodies held in memory: slow or greedy clients that announce (or
 * stream) large bodies and never finish them hold at most the budget, a request past it is
 * answered 503 at once (unbuffered, Retry-After), and the reservation comes back when the
 * connection closes, so normal admissions go on being served.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BodyBudget } from './http.js';
import { postReview, parseReview } from '../../test/support/https-client.js';
import { tlsConnect, exchange } from '../../test/support/raw-tls.js';
import { podReview, samplePod } from '../../test/support/review-fixtures.js';
import { startHarness } from '../../test/support/webhook-harness.js';

const BUDGET = 1024 * 1024;

function head(length: number | 'chunked'): string {
  const framing = length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
  return `POST /inject HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;
}

test('the budget reserves and gives back exactly', () => {
  const b = new BodyBudget(100);
  assert.equal(b.take(60), true);
  assert.equal(b.take(41), false);
  assert.equal(b.take(40), true);
  b.give(60);
  b.give(40);
  assert.equal(b.used, 0);
});

test('past the body budget a request gets 503 at once; closing the greedy connections gives the memory back', async (t) => {
  const h = await startHarness({ limits: { bodyBudgetBytes: BUDGET } });
  t.after(() => h.server.shutdown());
  // A slow client: announces 700 kB and sends 1 kB of it.
  const greedy = await tlsConnect(h.port);
  greedy.write(head(700_000) + ' '.repeat(1000));
  await new Promise((r) => setTimeout(r, 100));

  // A normal admission still fits.
  assert.ok(parseReview(await postReview(h.port, podReview(samplePod()))).response.patch, 'a normal admission is served');

  // Announcing 400 kB more does not fit: 503 at once, before the body is sent.
  const late = await tlsConnect(h.port);
  const refused = await exchange(late, head(400_000), 1000);
  assert.match(refused.data, /^HTTP\/1\.1 503 /);
  assert.match(refused.data, /Retry-After: 1/i);
  assert.match(refused.data, /holding 1048576 bytes of request bodies already/);
  late.destroy();

  // A chunked body that grows past the budget is cut off the same way.
  const streaming = await tlsConnect(h.port);
  const chunk = 'x'.repeat(100_000);
  const streamed = exchange(streaming, head('chunked'), 2000);
  for (let i = 0; i < 5; i++) streaming.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
  assert.match((await streamed).data, /^HTTP\/1\.1 503 /);
  streaming.destroy();

  // The greedy client goes away: its reservation comes back, and a 900 kB review is served.
  greedy.destroy();
  await new Promise((r) => setTimeout(r, 100));
  const big = samplePod('', { annotations: { padding: 'p'.repeat(900_000) } });
  const res = await postReview(h.port, podReview(big));
  assert.equal(res.status, 200, res.body.slice(0, 200));
});

test('a large declared body is read whole and exactly (gathered in one buffer), as is a large chunked one', async (t) => {
  const h = await startHarness({});
  t.after(() => h.server.shutdown());
  // 600 kB in an env value: past the size from which a declared body is gathered contiguously
  // (not in an annotation: the real core refuses more than Kubernetes' 256 KiB of those).
  const pod = samplePod('big');
  (pod.spec as { containers: Array<Record<string, unknown>> }).containers[0].env = [{ name: 'BLOB', value: 'é'.repeat(300_000) }];
  const declared = parseReview(await postReview(h.port, podReview(pod, { uid: 'u-declared' })));
  assert.equal(declared.response.uid, 'u-declared');
  assert.ok(declared.response.patch, 'the pod was read and injected');
  const chunked = await tlsConnect(h.port);
  const body = JSON.stringify(podReview(pod, { uid: 'u-chunked' }));
  const size = Buffer.byteLength(body).toString(16);
  const answer = await exchange(chunked, `${head('chunked')}${size}\r\n${body}\r\n0\r\n\r\n`, 10_000);
  assert.match(answer.data, /^HTTP\/1\.1 200 /);
  assert.match(answer.data, /"uid":"u-chunked"/);
});
