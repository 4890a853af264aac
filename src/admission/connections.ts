/**
 * @module admission/connections
 * Keeps the connection table open for the apiserver. `maxConnections` alone lets anyone who can
 * reach the Service fill it: 1,000 keep-alive connections that each sent one `GET /healthz` and
 * then idle hold every slot for the whole keep-alive timeout, and every new connection, the
 * apiserver's included, is reset. Three rules:
 *
 * - a per-source cap: one address holds at most `maxPerSource` connections (new ones are closed
 *   on accept), so one client cannot take the whole table;
 * - a shorter idle timeout for connections that never carried an admission: probes and scrapers
 *   reconnect cheaply, so they keep an idle connection `probeIdleMs`, while a connection that
 *   carried a `POST /inject` keeps the long keep-alive timeout (longer than the apiserver's own
 *   idle timeout, so the client closes first and no request races a server close);
 * - under pressure (the table `pressure` full), idle keep-alive connections are reclaimed before
 *   a new one could be refused: those that never carried an admission first, then the longest
 *   idle (a connection that never completed a request is cut by the header timeout anyway).
 *
 * A connection refused here is refused before TLS starts (no handshake is paid for it), and an
 * accepted one waits its turn for the handshake (handshake-queue.ts).
 */
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../telemetry/log.js';
import { handshakeQueue } from './handshake-queue.js';

export interface ConnectionPolicy {
  /** Open connections from one remote address at most. */
  maxPerSource: number;
  /** Idle time allowed to a connection that never carried an admission. */
  probeIdleMs: number;
  /** Fraction of maxConnections from which idle connections are reclaimed. */
  pressure: number;
  /** TLS handshakes begun per event-loop turn at most (the rest wait, sources taking turns). */
  handshakesPerTurn: number;
  /** Longest wait for a handshake slot; past it the connection is closed. */
  handshakeWaitMs: number;
}

export const DEFAULT_CONNECTION_POLICY: Readonly<ConnectionPolicy> = Object.freeze({
  maxPerSource: 256,
  probeIdleMs: 5000,
  pressure: 0.9,
  handshakesPerTurn: 4,
  handshakeWaitMs: 10_000,
});

interface Tracked {
  busy: number;
  /** Requests begun: a connection that never finished its first request is the timeouts' job. */
  requests: number;
  admission: boolean;
  idleSince: number;
}

export interface ConnectionManager {
  /** Call when a request starts on `socket`; returns the function to call when it is answered. */
  requestStarted(socket: Socket, admission: boolean): () => void;
  /** Open TCP connections now (for tests and metrics). */
  open(): number;
  stop(): void;
}

export function manageConnections(
  server: HttpsServer,
  maxConnections: number,
  policy: ConnectionPolicy,
  logger: Logger,
  now: () => number = Date.now,
): ConnectionManager {
  const perSource = new Map<string, number>();
  const tracked = new Map<TLSSocket, Tracked>();
  let open = 0;
  const threshold = Math.max(1, Math.floor(maxConnections * policy.pressure));
  const handshakes = pacedHandshakes(server, policy, logger);

  server.on('connection', (socket: Socket) => {
    const source = socket.remoteAddress ?? '';
    const n = perSource.get(source) ?? 0;
    if (n >= policy.maxPerSource) {
      logger.debug({ source, open: n }, 'connection refused: per-source limit');
      socket.destroy();
      return;
    }
    perSource.set(source, n + 1);
    open++;
    socket.once('close', () => {
      open--;
      const left = (perSource.get(source) ?? 1) - 1;
      if (left === 0) perSource.delete(source);
      else perSource.set(source, left);
    });
    if (open >= threshold) reclaim(open - threshold + 1);
    handshakes?.admit(socket, source);
  });

  server.on('secureConnection', (socket: TLSSocket) => {
    tracked.set(socket, { busy: 0, requests: 0, admission: false, idleSince: now() });
    socket.once('close', () => tracked.delete(socket));
  });

  /**
   * Close up to `want` idle keep-alive connections (answered, waiting for their next request):
   * never-admission ones first, then the longest idle. A connection still sending its first
   * request is left to the header and request timeouts, which answer it 408.
   */
  function reclaim(want: number): void {
    const idle = [...tracked].filter(([, t]) => t.busy === 0 && t.requests > 0);
    idle.sort(([, a], [, b]) => Number(a.admission) - Number(b.admission) || a.idleSince - b.idleSince);
    const victims = idle.slice(0, want);
    for (const [socket] of victims) socket.destroy();
    if (victims.length > 0) logger.debug({ reclaimed: victims.length, open }, 'idle connections reclaimed under pressure');
  }

  // One sweep a second closes probe connections idle past their (short) timeout.
  const sweep = setInterval(
    () => {
      const limit = now() - policy.probeIdleMs;
      for (const [socket, t] of tracked) if (!t.admission && t.busy === 0 && t.requests > 0 && t.idleSince <= limit) socket.destroy();
    },
    Math.min(1000, policy.probeIdleMs),
  );
  sweep.unref();

  return {
    requestStarted(socket, admission) {
      const t = tracked.get(socket as TLSSocket);
      if (t === undefined) return () => undefined;
      t.busy++;
      t.requests++;
      if (admission) t.admission = true;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        t.busy--;
        t.idleSince = now();
      };
    },
    open: () => open,
    stop: () => {
      clearInterval(sweep);
      handshakes?.stop();
    },
  };
}

/**
 * Put the handshake queue between accept and TLS: the TLS server's own connection listener
 * (the one that wraps the socket and starts the handshake) is taken off the `connection` event
 * and called by the queue instead. Registered before ours, it must be the only listener; if a
 * future Node adds others, pacing is off (with a warning) rather than guessed at.
 */
function pacedHandshakes(server: HttpsServer, policy: ConnectionPolicy, logger: Logger) {
  const listeners = server.listeners('connection');
  if (listeners.length !== 1) {
    logger.warn({ listeners: listeners.length }, 'TLS handshakes are not paced: unexpected connection listeners');
    return undefined;
  }
  const startTls = listeners[0] as (socket: Socket) => void;
  server.removeListener('connection', startTls);
  return handshakeQueue((socket) => startTls.call(server, socket), { perTurn: policy.handshakesPerTurn, maxWaitMs: policy.handshakeWaitMs });
}
