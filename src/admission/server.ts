/**
 * @module admission/server
 * The HTTPS edge: raw `node:https` (no framework: fastest measured, and `setSecureContext`
 * swaps certificates in place), TLS 1.2+ with AEAD suites only, ALPN `http/1.1` only (the
 * apiserver speaks HTTP/1.1 to webhooks; no HTTP/2 means no rapid-reset exposure), bounded
 * headers, bodies, connections and time. Routes: `POST /inject[/...]` to the admission handler,
 * then the operational endpoints. Draining sends `Connection: close` on every response and
 * closes idle keep-alive sockets, so clients move to another replica without EOF surprises.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { SecureContextOptions, TLSSocket } from 'node:tls';
import type { Logger } from '../telemetry/log.js';
import { clip } from '../telemetry/log.js';
import type { Outcome, WebhookMetrics } from '../telemetry/metrics.js';
import { needsClientCertificate, noteHandshake, refusal, type ClientAuth } from './client-auth.js';
import { DEFAULT_CONNECTION_POLICY, manageConnections } from './connections.js';
import { serveOps, type Readiness } from './endpoints.js';
import type { AdmissionHandler } from './handler.js';
import {
  BodyBudget,
  DEFAULT_BODY_BUDGET,
  DEFAULT_BODY_LIMIT,
  DEFAULT_DISCARD_LIMIT,
  discardBody,
  isJsonContentType,
  readBody,
  send,
  sendRefusal,
  sendStatus,
  type RefusalCode,
} from './http.js';

export interface ServerLimits {
  /** Request body cap in bytes (413 above). */
  bodyBytes: number;
  /** Bytes of a refused body read and dropped before the connection is cut. */
  discardBytes: number;
  /** Request bodies buffered at once, all connections together (503 above). */
  bodyBudgetBytes: number;
  /** Time to receive the request headers (slowloris on headers). Node answers 408. */
  headersTimeoutMs: number;
  /** Time to receive the whole request, body included (slowloris on bodies). */
  requestTimeoutMs: number;
  /**
   * How long an idle keep-alive connection is kept. Longer than the apiserver's idle timeout
   * (Go's transport: 90 s), so the client, not the server, closes idle connections: a server
   * close racing a new request is an EOF the apiserver will not retry for a POST.
   */
  keepAliveTimeoutMs: number;
  /** Time for a TLS handshake to complete. */
  handshakeTimeoutMs: number;
  /** Open connections at most; more are closed on accept. */
  maxConnections: number;
  /** Open connections from one address at most (connections.ts). */
  maxConnectionsPerSource: number;
  /** Idle time of a connection that never carried an admission (probes, scrapers). */
  probeIdleTimeoutMs: number;
  maxHeadersCount: number;
  /** Total header bytes. */
  maxHeaderSize: number;
}

const DEFAULT_LIMITS: Readonly<ServerLimits> = Object.freeze({
  bodyBytes: DEFAULT_BODY_LIMIT,
  discardBytes: DEFAULT_DISCARD_LIMIT,
  bodyBudgetBytes: DEFAULT_BODY_BUDGET,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 100_000,
  handshakeTimeoutMs: 10_000,
  maxConnections: 1000,
  maxConnectionsPerSource: DEFAULT_CONNECTION_POLICY.maxPerSource,
  probeIdleTimeoutMs: DEFAULT_CONNECTION_POLICY.probeIdleMs,
  maxHeadersCount: 64,
  maxHeaderSize: 16 * 1024,
});

/** TLS 1.3 suites plus the TLS 1.2 ECDHE AEAD suites: forward secrecy and AEAD only. */
const TLS_CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

const TLS_OPTIONS: SecureContextOptions = { minVersion: 'TLSv1.2', ciphers: TLS_CIPHERS, honorCipherOrder: true };

interface KeyPair {
  cert: string | Buffer;
  key: string | Buffer;
}

export interface WebhookServerOptions {
  handler: AdmissionHandler;
  tls: KeyPair;
  metrics: WebhookMetrics;
  logger: Logger;
  readiness: () => Readiness;
  limits?: Partial<ServerLimits>;
  /** Serve only callers with an accepted client certificate (client-auth.ts). */
  clientAuth?: ClientAuth;
  now?: () => number;
}

export interface WebhookServer {
  readonly server: Server;
  listen(port: number, host?: string): Promise<AddressInfo>;
  /** Serve a new key pair to new connections (validated by the caller). */
  setCertificate(pair: KeyPair): void;
  /** Accept client certificates from a new CA bundle (new connections); only with clientAuth. */
  setClientCa(caPem: string): void;
  /** Requests being answered now. */
  inFlight(): number;
  /** Bytes of request bodies held now (reserved from the body budget). */
  bufferedBodyBytes(): number;
  /**
   * From now on every response closes its connection, so clients reconnect (to another replica
   * once this one is out of the Service). Idle connections are left alone until `close`: closing
   * one just as a client reuses it is the EOF the apiserver does not retry.
   */
  drain(): void;
  readonly draining: boolean;
  /** Stop accepting, let in-flight requests finish, force-close what is left after `graceMs`. */
  close(graceMs: number): Promise<void>;
}

export function createWebhookServer(options: WebhookServerOptions): WebhookServer {
  const limits: ServerLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const { handler, metrics, logger } = options;
  const now = options.now ?? (() => performance.now());
  const ops = { readiness: options.readiness, metrics, logger };
  let draining = false;
  let inFlight = 0;
  const bodies = new BodyBudget(limits.bodyBudgetBytes);
  let served: KeyPair = options.tls;
  const clientAuth = options.clientAuth === undefined ? undefined : { ...options.clientAuth };
  const secureContext = (): SecureContextOptions => ({
    ...TLS_OPTIONS,
    cert: served.cert,
    key: served.key,
    ...(clientAuth !== undefined ? { ca: clientAuth.caPem } : {}),
  });

  const server = createServer(
    {
      ...secureContext(),
      // Ask for a client certificate but finish the handshake either way: a refusal is then a
      // 403 that says why (and is counted), and the probes stay open (client-auth.ts).
      requestCert: clientAuth !== undefined,
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
      handshakeTimeout: limits.handshakeTimeoutMs,
      maxHeaderSize: limits.maxHeaderSize,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Timeouts are enforced by a sweep; the 30 s default would let slow clients overstay.
      connectionsCheckingInterval: 1000,
      noDelay: true,
    },
    onRequest,
  );
  const connections = manageConnections(
    server,
    limits.maxConnections,
    {
      ...DEFAULT_CONNECTION_POLICY,
      maxPerSource: limits.maxConnectionsPerSource,
      probeIdleMs: limits.probeIdleTimeoutMs,
      handshakeWaitMs: limits.handshakeTimeoutMs,
    },
    logger,
  );
  server.maxHeadersCount = limits.maxHeadersCount;
  if (clientAuth !== undefined) server.on('secureConnection', (socket: TLSSocket) => noteHandshake(socket, clientAuth.caPem));
  server.maxConnections = limits.maxConnections;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // `Expect: 100-continue` (curl sends it for large bodies): refuse an announced oversize body
  // before the client sends it, instead of reading and dropping it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers['content-length']);
    if (declared > limits.bodyBytes) {
      metrics.request(
        sendRefusal(res, 'SI_ADMISSION_BODY_TOO_LARGE', `request body is ${declared} bytes; the limit is ${limits.bodyBytes}`, true),
        'invalid',
        0,
      );
      return;
    }
    res.writeContinue();
    onRequest(req, res);
  });
  server.on('tlsClientError', (err: NodeJS.ErrnoException) => {
    // Scanners and plaintext probes land here; not worth more than debug.
    logger.debug({ error: clip(err.message, 200), code: err.code }, 'TLS handshake failed');
  });

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    try {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      const admission = path === '/inject' || path.startsWith('/inject/');
      res.once('close', connections.requestStarted(req.socket, admission));
      if (clientAuth !== undefined && needsClientCertificate(path)) {
        const refused = refusal(req.socket as TLSSocket, clientAuth);
        if (refused !== undefined) {
          metrics.refusedCaller(refused.reason);
          logger.warn({ reason: refused.reason, source: req.socket.remoteAddress, path: clip(path, 64) }, 'caller refused');
          discardBody(req, limits.discardBytes);
          sendStatus(res, 403, 'Forbidden', refused.message, true);
          return;
        }
      }
      if (admission) {
        admit(req, res, path, q < 0 ? '' : url.slice(q + 1));
      } else if (!serveOps(path, req, res, ops, draining)) {
        sendRefusal(res, 'SI_ADMISSION_NOT_FOUND', `no such path: ${JSON.stringify(clip(path, 64))}; the webhook listens on /inject`, draining);
      }
    } catch (err) {
      internalError(res, err);
    }
  }

  function internalError(res: ServerResponse, err: unknown): void {
    logger.error({ error: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined }, 'request handling failed');
    try {
      if (!res.headersSent) sendStatus(res, 500, 'InternalError', 'internal error in the sidecar injector webhook', true);
      else res.destroy();
    } catch {
      res.destroy();
    }
  }

  function admit(req: IncomingMessage, res: ServerResponse, path: string, query: string): void {
    const startedAt = now();
    let status = 0;
    let outcome: Outcome = 'error';
    inFlight++;
    metrics.inFlight(1);
    res.once('close', () => {
      inFlight--;
      metrics.inFlight(-1);
      if (status !== 0) metrics.request(status, outcome, (now() - startedAt) / 1000);
    });

    const refuse = (code: RefusalCode | 'overloaded', message: string, extra?: Record<string, string>): void => {
      outcome = 'invalid';
      // A 413's body is not read to the end (the connection is cut past the discard limit), so
      // the client must not reuse this connection: Connection: close. Same for a 503.
      const close = draining || code === 'SI_ADMISSION_BODY_TOO_LARGE' || code === 'overloaded';
      if (code === 'overloaded') {
        // Not an error of the request: the server sheds load; the client retries (Retry-After).
        status = 503;
        sendStatus(res, 503, 'ServiceUnavailable', message, close, extra);
      } else {
        status = sendRefusal(res, code, message, close, extra);
      }
      logger.warn({ status, reason: code, error: message, path: clip(path, 64) }, 'admission request refused');
    };

    if (req.method !== 'POST') {
      discardBody(req, limits.discardBytes);
      refuse('SI_ADMISSION_METHOD', `${clip(req.method, 16)} is not allowed: the webhook takes POST with an AdmissionReview`, { Allow: 'POST' });
      return;
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      discardBody(req, limits.discardBytes);
      const got = req.headers['content-type'];
      refuse('SI_ADMISSION_CONTENT_TYPE', `Content-Type must be application/json, got ${got === undefined ? 'none' : JSON.stringify(clip(got, 64))}`);
      return;
    }
    readBody(
      req,
      limits.bodyBytes,
      limits.discardBytes,
      (result) => {
        try {
          if (!result.ok) {
            if (result.status === 413) refuse('SI_ADMISSION_BODY_TOO_LARGE', result.message);
            if (result.status === 503) refuse('overloaded', result.message, { 'Retry-After': '1' });
            return;
          }
          let reply;
          try {
            reply = handler({ body: result.body, path, query, startedAt });
          } finally {
            result.release();
          }
          status = reply.status;
          outcome = reply.outcome;
          send(res, reply.status, 'application/json', reply.body, draining);
        } catch (err) {
          status = 500;
          outcome = 'error';
          internalError(res, err);
        }
      },
      bodies,
    );
  }

  return {
    server,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        const onError = (err: Error): void => reject(err);
        server.once('error', onError);
        server.listen(port, host, () => {
          server.removeListener('error', onError);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    setCertificate(pair) {
      served = pair;
      server.setSecureContext(secureContext());
    },
    setClientCa(caPem) {
      if (clientAuth === undefined) return;
      clientAuth.caPem = caPem;
      server.setSecureContext(secureContext());
    },
    inFlight: () => inFlight,
    bufferedBodyBytes: () => bodies.used,
    get draining() {
      return draining;
    },
    drain() {
      draining = true;
    },
    close(graceMs) {
      draining = true;
      connections.stop();
      return closeGracefully(server, graceMs);
    },
  };
}

/** What `closeGracefully` needs: both `http.Server` and `https.Server` have it. */
export interface ClosableServer {
  readonly listening: boolean;
  close(callback?: (err?: Error) => void): unknown;
  closeIdleConnections(): void;
  closeAllConnections(): void;
}

/**
 * Stop listening and wait for open connections to end (responses during a drain carry
 * `Connection: close`, so they end after their response). Whatever is still open after
 * `graceMs` is cut; the promise settles shortly after that whatever happens (a socket still
 * in its TLS handshake is not an HTTP connection yet and only ends at the handshake timeout).
 */
export function closeGracefully(server: ClosableServer, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      server.closeAllConnections();
      resolve();
      return;
    }
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearInterval(sweep);
      clearTimeout(force);
      clearTimeout(giveUp);
      resolve();
    };
    // Keep closing sockets that turn idle (a request that just finished on a kept-alive socket).
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    const giveUp = setTimeout(finish, graceMs + 1000);
    server.close(finish);
    server.closeIdleConnections();
  });
}
