/**
 * @module admission/monitoring
 * The optional plain-HTTP listener (`--monitoring-port`) for `/metrics`, `/healthz` and
 * `/readyz`: Prometheus and kubelet probes then need no TLS client configuration. It serves
 * nothing else; admission requests only ever go to the TLS listener.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveOps, type OpsDeps } from './endpoints.js';
import { sendRefusal, sendStatus } from './http.js';
import { closeGracefully } from './server.js';

export interface MonitoringServer {
  readonly server: Server;
  listen(port: number, host?: string): Promise<AddressInfo>;
  drain(): void;
  close(graceMs: number): Promise<void>;
}

export function createMonitoringServer(deps: OpsDeps): MonitoringServer {
  let draining = false;
  const server = createServer(
    { headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 30_000, connectionsCheckingInterval: 1000, maxHeaderSize: 16 * 1024 },
    (req: IncomingMessage, res: ServerResponse) => {
      try {
        const url = req.url ?? '/';
        const q = url.indexOf('?');
        const path = q < 0 ? url : url.slice(0, q);
        if (!serveOps(path, req, res, deps, draining))
          sendRefusal(res, 'SI_ADMISSION_NOT_FOUND', 'the monitoring port serves /metrics, /healthz and /readyz', draining);
      } catch (err) {
        deps.logger.error({ error: String(err), stack: (err as Error).stack }, 'monitoring request failed');
        if (!res.headersSent) sendStatus(res, 500, 'InternalError', 'internal error', true);
      }
    },
  );
  server.maxHeadersCount = 64;
  server.maxConnections = 100;
  return {
    server,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.removeListener('error', reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    drain() {
      draining = true;
    },
    close(graceMs) {
      draining = true;
      return closeGracefully(server, graceMs);
    },
  };
}
