/**
 * The handshake queue paces TLS starts per event-loop turn and lets sources take turns, so a
 * burst of reconnecting slow sockets from one address cannot hold the apiserver's new
 * connection (or the requests on open ones) behind hundreds of handshakes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { handshakeQueue } from './handshake-queue.js';

interface FakeSocket {
  id: string;
  destroyed: boolean;
  destroy(): void;
}

function fake(id: string): FakeSocket {
  return {
    id,
    destroyed: false,
    destroy() {
      this.destroyed = true;
    },
  };
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

function recorder() {
  const started: string[] = [];
  return { started, start: (s: Socket) => void started.push((s as unknown as FakeSocket).id) };
}

test('when calm, a connection starts its handshake at once', () => {
  const r = recorder();
  const q = handshakeQueue(r.start, { perTurn: 4, maxWaitMs: 10_000 });
  q.admit(fake('a1') as unknown as Socket, 'a');
  assert.deepEqual(r.started, ['a1']);
  assert.equal(q.pending(), 0);
  q.stop();
});

test('at most perTurn handshakes begin per turn; the rest wait for the next turns', async () => {
  const r = recorder();
  const q = handshakeQueue(r.start, { perTurn: 3, maxWaitMs: 10_000 });
  for (let i = 0; i < 8; i++) q.admit(fake(`x${i}`) as unknown as Socket, 'attacker');
  assert.deepEqual(r.started, ['x0', 'x1', 'x2']);
  assert.equal(q.pending(), 5);
  await turn();
  assert.deepEqual(r.started, ['x0', 'x1', 'x2', 'x3', 'x4', 'x5']);
  await turn();
  assert.equal(r.started.length, 8);
  assert.equal(q.pending(), 0);
  q.stop();
});

test('sources take turns: a newcomer is not queued behind another source backlog', async () => {
  const r = recorder();
  const q = handshakeQueue(r.start, { perTurn: 2, maxWaitMs: 10_000 });
  for (let i = 0; i < 20; i++) q.admit(fake(`evil${i}`) as unknown as Socket, '10.0.0.66');
  q.admit(fake('apiserver') as unknown as Socket, '10.0.0.1');
  assert.deepEqual(r.started, ['evil0', 'evil1']);
  await turn();
  // One from each source in the next turn, not two more of the backlog first.
  assert.deepEqual(r.started.slice(2), ['evil2', 'apiserver']);
  for (let i = 0; i < 20 && q.pending() > 0; i++) await turn();
  assert.equal(r.started.length, 21);
  q.stop();
});

test('a connection closed while queued is skipped, one queued past maxWaitMs is closed', async () => {
  let clock = 0;
  const r = recorder();
  const q = handshakeQueue(r.start, { perTurn: 1, maxWaitMs: 1000, now: () => clock });
  const first = fake('first');
  const gone = fake('gone');
  const late = fake('late');
  q.admit(first as unknown as Socket, 's');
  q.admit(gone as unknown as Socket, 's');
  q.admit(late as unknown as Socket, 's');
  gone.destroyed = true;
  clock = 1500;
  await turn();
  await turn();
  assert.deepEqual(r.started, ['first']);
  assert.equal(late.destroyed, true);
  assert.equal(q.pending(), 0);
  q.stop();
});

test('stop closes everything still queued and refuses newcomers', () => {
  const r = recorder();
  const q = handshakeQueue(r.start, { perTurn: 1, maxWaitMs: 10_000 });
  const a = fake('a');
  const b = fake('b');
  q.admit(a as unknown as Socket, 's');
  q.admit(b as unknown as Socket, 's');
  q.stop();
  assert.equal(b.destroyed, true);
  const c = fake('c');
  q.admit(c as unknown as Socket, 's');
  assert.equal(c.destroyed, true);
  assert.deepEqual(r.started, ['a']);
});
