/**
 * @module test/support/https-client
 * A minimal HTTPS client for in-process webhook tests: one call, whole response buffered,
 * errors returned as values so tests can assert on resets and refusals too.
 */
import { Agent, request as httpsRequest } from 'node:https';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RequestOptions {
  port: number;
  method?: string;
  path?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  agent?: Agent | false;
  /** Trust only this CA (PEM); default: do not verify (the tests check TLS separately). */
  ca?: string;
  servername?: string;
  /** Plain HTTP (the monitoring port). */
  plain?: boolean;
  /** A client certificate and key (PEM) to present. */
  clientCert?: { cert: string; key: string };
  timeoutMs?: number;
}

export function send(options: RequestOptions): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const body = options.body;
    const headers: Record<string, string | number> = { ...options.headers };
    if (body !== undefined && headers['Content-Length'] === undefined && headers['Transfer-Encoding'] === undefined) {
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    const common = { host: '127.0.0.1', port: options.port, method: options.method ?? 'GET', path: options.path ?? '/', headers };
    const onResponse = (res: import('node:http').IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    };
    const req = options.plain
      ? httpRequest({ ...common, agent: options.agent === false ? false : undefined }, onResponse)
      : httpsRequest(
          {
            ...common,
            agent: options.agent ?? false,
            ...(options.clientCert !== undefined ? { cert: options.clientCert.cert, key: options.clientCert.key } : {}),
            ...(options.ca !== undefined ? { ca: options.ca, servername: options.servername ?? 'localhost' } : { rejectUnauthorized: false }),
          },
          onResponse,
        );
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error('test client timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

/** POST a review (any value; strings and buffers are sent as they are) to `/inject`. */
export function postReview(port: number, review: unknown, extra: Partial<RequestOptions> = {}): Promise<HttpResult> {
  const body = typeof review === 'string' || Buffer.isBuffer(review) ? review : JSON.stringify(review);
  return send({ port, method: 'POST', path: '/inject?timeout=10s', headers: { 'Content-Type': 'application/json' }, body, ...extra });
}

export interface ReviewResponse {
  apiVersion: string;
  kind: string;
  response: {
    uid: string;
    allowed: boolean;
    patchType?: string;
    patch?: string;
    warnings?: string[];
    status?: { code: number; message: string; reason?: string };
  };
}

export function parseReview(result: HttpResult): ReviewResponse {
  return JSON.parse(result.body) as ReviewResponse;
}

/** The decoded JSON patch of a response (empty when none). */
export function decodePatch(review: ReviewResponse): unknown[] {
  const p = review.response.patch;
  return p === undefined ? [] : (JSON.parse(Buffer.from(p, 'base64').toString('utf8')) as unknown[]);
}

export function keepAliveAgent(maxSockets = 4): Agent {
  return new Agent({ keepAlive: true, maxSockets, rejectUnauthorized: false });
}
