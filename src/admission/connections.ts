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
 */
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from '../telemetry/log.js';

export interface ConnectionPolicy {
  /** Open connections from one remote address at most. */
  maxPerSource: number;
  /** Idle time allowed to a connection that never carried an admission. */
  probeIdleMs: number;
  /** Fraction of maxConnections from which idle connections are reclaimed. */
  pressure: number;
}

export const DEFAULT_CONNECTION_POLICY: Readonly<ConnectionPolicy> = Object.freeze({ maxPerSource: 256, probeIdleMs: 5000, pressure: 0.9 });

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

export function manageConnections(server: HttpsServer, maxConnections: number, policy: ConnectionPolicy, logger: Logger, now: () => number = Date.now): ConnectionManager {
  const perSource = new Map<string, number>();
  const tracked = new Map<TLSSocket, Tracked>();
  let open = 0;
  const threshold = Math.max(1, Math.floor(maxConnections * policy.pressure));

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
  const sweep = setInterval(() => {
    const limit = now() - policy.probeIdleMs;
    for (const [socket, t] of tracked) if (!t.admission && t.busy === 0 && t.requests > 0 && t.idleSince <= limit) socket.destroy();
  }, Math.min(1000, policy.probeIdleMs));
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
    stop: () => clearInterval(sweep),
  };
}
