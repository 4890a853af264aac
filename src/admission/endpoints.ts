/**
 * @module admission/endpoints
 * The operational endpoints, shared by the TLS listener and the optional plain monitoring
 * listener: `/healthz` (the process answers), `/readyz` (config and certificate loaded, not
 * draining; JSON detail either way, including the last reload errors), `/metrics`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../telemetry/log.js';
import type { WebhookMetrics } from '../telemetry/metrics.js';
import { send, sendRefusal, sendStatus } from './http.js';

export interface Readiness {
  ready: boolean;
  /** Shown as JSON by `/readyz`: what is loaded, what failed last, whether the server drains. */
  detail: Record<string, unknown>;
}

export interface OpsDeps {
  readiness: () => Readiness;
  metrics: WebhookMetrics;
  logger: Logger;
}

/** Answer an operational path; false when `path` is not one. */
export function serveOps(path: string, req: IncomingMessage, res: ServerResponse, deps: OpsDeps, close: boolean): boolean {
  if (path !== '/healthz' && path !== '/readyz' && path !== '/metrics') return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendRefusal(res, 'SI_ADMISSION_METHOD', `${path} only answers GET`, close, { Allow: 'GET, HEAD' });
    return true;
  }
  if (path === '/healthz') {
    send(res, 200, 'text/plain; charset=utf-8', 'ok\n', close);
  } else if (path === '/readyz') {
    const { ready, detail } = deps.readiness();
    send(res, ready ? 200 : 503, 'application/json', `${JSON.stringify({ ready, ...detail })}\n`, close);
  } else {
    deps.metrics.render().then(
      ({ contentType, body }) => send(res, 200, contentType, body, close),
      (err: unknown) => {
        deps.logger.error({ error: String(err) }, 'metrics rendering failed');
        sendStatus(res, 500, 'InternalError', 'metrics could not be rendered', close);
      },
    );
  }
  return true;
}
