/**
 * @module admission/handshake-queue
 * Fair, paced TLS handshakes. A TLS handshake is the most expensive thing an unauthenticated
 * client can make the webhook do (an ECDHE key share and a signature, about a millisecond of
 * the one event loop), and slow clients come back in bursts: hundreds of slow sockets are cut
 * by the same timeout sweep and reconnect at once. Handshaking them all in one loop turn
 * stalls every admission behind them for hundreds of milliseconds (the slowloris p99).
 *
 * New connections therefore wait here before TLS starts: at most `perTurn` handshakes begin
 * per event-loop turn, so requests on established connections are served between batches,
 * and sources take turns (round-robin), so the apiserver's new connection is never queued
 * behind an attacker's hundreds. The ClientHello waits in the socket buffer meanwhile. A
 * connection with nothing queued ahead of it starts at once (no added latency when calm).
 */
import type { Socket } from 'node:net';

export interface HandshakeQueue {
  /** Start TLS on `socket` now, or queue it behind the sources ahead of it. */
  admit(socket: Socket, source: string): void;
  /** Connections waiting to start their handshake. */
  pending(): number;
  /** Drop everything queued (server shutdown). */
  stop(): void;
}

export interface HandshakeQueueOptions {
  /** Handshakes begun per event-loop turn at most. */
  perTurn: number;
  /** A connection queued longer than this is closed instead (it would time out anyway). */
  maxWaitMs: number;
  now?: () => number;
}

interface Waiting {
  socket: Socket;
  since: number;
}

export function handshakeQueue(start: (socket: Socket) => void, options: HandshakeQueueOptions): HandshakeQueue {
  const now = options.now ?? (() => performance.now());
  // Insertion order of the map is the round-robin order; a source is re-appended after its turn.
  const queues = new Map<string, Waiting[]>();
  let waiting = 0;
  let begunThisTurn = 0;
  let turnScheduled = false;
  let stopped = false;

  function nextTurn(): void {
    if (turnScheduled || stopped) return;
    turnScheduled = true;
    setImmediate(turn);
  }

  function turn(): void {
    turnScheduled = false;
    begunThisTurn = 0;
    while (begunThisTurn < options.perTurn && queues.size > 0) {
      const [source, queue] = queues.entries().next().value as [string, Waiting[]];
      queues.delete(source);
      const w = queue.shift()!;
      waiting--;
      if (queue.length > 0) queues.set(source, queue);
      begin(w);
    }
    if (queues.size > 0) nextTurn();
  }

  function begin(w: Waiting): void {
    // A client that gave up while queued costs nothing more; one queued too long is cut.
    if (w.socket.destroyed) return;
    if (now() - w.since > options.maxWaitMs) {
      w.socket.destroy();
      return;
    }
    begunThisTurn++;
    start(w.socket);
  }

  return {
    admit(socket, source) {
      if (stopped) {
        socket.destroy();
        return;
      }
      if (queues.size === 0 && begunThisTurn < options.perTurn) {
        begunThisTurn++;
        // The count is per turn: reset it at the next one even if nothing gets queued.
        nextTurn();
        start(socket);
        return;
      }
      const queue = queues.get(source);
      if (queue === undefined) queues.set(source, [{ socket, since: now() }]);
      else queue.push({ socket, since: now() });
      waiting++;
      nextTurn();
    },
    pending: () => waiting,
    stop() {
      stopped = true;
      for (const queue of queues.values()) for (const w of queue) w.socket.destroy();
      queues.clear();
      waiting = 0;
    },
  };
}
