/**
 * @module cluster/client
 * A minimal Kubernetes API client on `node:https`: JSON GET, PATCH, PUT and POST with the pod's
 * service account, nothing else. @kubernetes/client-node is far too heavy for one caBundle patch (and its
 * current major needs Node 22). Every failure is a `KubeApiError` carrying the HTTP status and
 * the API's `Status.message`, so callers can tell a conflict from an outage.
 */
import { Agent, request } from 'node:https';
import { ClusterError } from '../errors.js';
import { isPlainObject } from '../util/json.js';
import { readCredential, readToken, type InClusterConfig } from './in-cluster.js';
import { caBundleRules, grantText } from '../kube/rbac-rules.js';

export type PatchType = 'json' | 'merge';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
};

export interface RequestOptions {
  /** Aborts the request (e.g. on shutdown). */
  signal?: AbortSignal;
}

/** The two calls the reconciler needs; tests and other callers may supply their own. */
export interface KubeApi {
  get(path: string, options?: RequestOptions): Promise<unknown>;
  patch(path: string, body: unknown, type: PatchType, options?: RequestOptions): Promise<unknown>;
}

/** A failed API call. `status` is undefined when no HTTP answer arrived (network, timeout). */
export class KubeApiError extends ClusterError {
  readonly status: number | undefined;
  /** `Status.reason` from the API, e.g. `Conflict`, `NotFound`, `Forbidden`. */
  readonly reason: string | undefined;
  /** `Status.message` from the API. */
  readonly apiMessage: string | undefined;

  constructor(message: string, info: { status?: number; reason?: string; apiMessage?: string; method: string; path: string; cause?: unknown }) {
    super('SI_CLUSTER_REQUEST', message, { cause: info.cause, details: { status: info.status, reason: info.reason, method: info.method, path: info.path } });
    this.status = info.status;
    this.reason = info.reason;
    this.apiMessage = info.apiMessage;
  }
}

export interface KubeClientOptions {
  /** Whole-request deadline. Default 10 s. */
  timeoutMs?: number;
  userAgent?: string;
  /** Answers larger than this are refused. Default 8 MiB. */
  maxResponseBytes?: number;
}

/**
 * Where requests go and with which credentials. Asked before every request, because kubelet
 * rotates the service account token and CA in place. In-cluster by default; `serve --kubeconfig`
 * supplies one made from a kubeconfig (cli/serve-kube.ts).
 */
export interface KubeEndpoint {
  readonly host: string;
  readonly port: number;
  /** Path prefix of the API server URL (a kubeconfig's server may have one); '' for none. */
  readonly basePath: string;
  connection(): Promise<{ agent: Agent; headers: Record<string, string> }>;
  close?(): void;
}

/** The pod's service account: token re-read per request, one keep-alive agent per CA content. */
function inClusterEndpoint(config: InClusterConfig): KubeEndpoint {
  let agent: Agent | undefined;
  let agentCa: string | undefined;
  return {
    host: config.host,
    port: config.port,
    basePath: '',
    async connection() {
      const token = await readToken(config.tokenFile);
      const ca = await readCredential(config.caFile, 'service account CA');
      if (!agent || ca !== agentCa) {
        agent?.destroy();
        agent = new Agent({ ca, keepAlive: true, maxSockets: 2, minVersion: 'TLSv1.2' });
        agentCa = ca;
      }
      return { agent, headers: { Authorization: `Bearer ${token}` } };
    },
    close() {
      agent?.destroy();
      agent = undefined;
      agentCa = undefined;
    },
  };
}

export class KubeClient implements KubeApi {
  readonly #endpoint: KubeEndpoint;
  readonly #timeoutMs: number;
  readonly #userAgent: string;
  readonly #maxResponseBytes: number;

  constructor(config: InClusterConfig | KubeEndpoint, options: KubeClientOptions = {}) {
    this.#endpoint = 'connection' in config ? config : inClusterEndpoint(config);
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#userAgent = options.userAgent ?? 'sidecar-injector';
    this.#maxResponseBytes = options.maxResponseBytes ?? 8 * 1024 * 1024;
  }

  get(path: string, options: RequestOptions = {}): Promise<unknown> {
    return this.request('GET', path, undefined, undefined, options);
  }

  patch(path: string, body: unknown, type: PatchType, options: RequestOptions = {}): Promise<unknown> {
    return this.request('PATCH', path, JSON.stringify(body), PATCH_CONTENT_TYPES[type], options);
  }

  /** Replace an object; with `metadata.resourceVersion` set, a concurrent change answers 409. */
  put(path: string, body: unknown, options: RequestOptions = {}): Promise<unknown> {
    return this.request('PUT', path, JSON.stringify(body), 'application/json', options);
  }

  /** Create an object in a collection; an existing name answers 409. */
  post(path: string, body: unknown, options: RequestOptions = {}): Promise<unknown> {
    return this.request('POST', path, JSON.stringify(body), 'application/json', options);
  }

  /** Close pooled connections. The client stays usable; it reconnects on the next call. */
  close(): void {
    this.#endpoint.close?.();
  }

  async request(method: string, path: string, body: string | undefined, contentType: string | undefined, options: RequestOptions = {}): Promise<unknown> {
    if (!path.startsWith('/')) throw new ClusterError('SI_CLUSTER_REQUEST', `API path must start with "/": ${path}`);
    const endpoint = this.#endpoint;
    const { agent, headers: auth } = await endpoint.connection();
    const headers: Record<string, string> = {
      ...auth,
      Accept: 'application/json',
      'User-Agent': this.#userAgent,
    };
    if (body !== undefined) {
      headers['Content-Type'] = contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    const where = `${method} ${path}`;
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const fail = (message: string, extra: { status?: number; reason?: string; apiMessage?: string; cause?: unknown } = {}) =>
        finish(() => reject(new KubeApiError(`${where}: ${message}`, { method, path, ...extra })));

      const req = request({ host: endpoint.host, port: endpoint.port, method, path: endpoint.basePath + path, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.#maxResponseBytes) {
            req.destroy();
            fail(`the answer is larger than ${this.#maxResponseBytes} bytes`);
          } else chunks.push(chunk);
        });
        res.on('error', (err) => fail(`the answer was cut off: ${err.message}`, { cause: err }));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch (err) {
            if (status >= 200 && status < 300) return fail(`the answer (HTTP ${status}) is not JSON`, { status, cause: err });
          }
          if (status >= 200 && status < 300) return finish(() => resolve(parsed));
          const apiStatus = isPlainObject(parsed) && parsed.kind === 'Status' ? parsed : undefined;
          const reason = typeof apiStatus?.reason === 'string' ? apiStatus.reason : undefined;
          const apiMessage = typeof apiStatus?.message === 'string' ? apiStatus.message : text.slice(0, 500) || undefined;
          fail(`${status}${reason ? ` ${reason}` : ''}${apiMessage ? `: ${apiMessage}` : ''}${hint(status, path)}`, { status, reason, apiMessage });
        });
      });
      const timer = setTimeout(() => {
        req.destroy();
        fail(`no answer from the Kubernetes API within ${this.#timeoutMs} ms`);
      }, this.#timeoutMs);
      const onAbort = () => {
        req.destroy();
        fail('aborted');
      };
      // Listen for errors before anything can destroy the request.
      req.on('error', (err: NodeJS.ErrnoException) =>
        fail(`cannot reach the Kubernetes API at ${endpoint.host}:${endpoint.port}: ${err.code ?? err.message}`, { cause: err }),
      );
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      req.end(body);
    });
  }
}

function hint(status: number, path: string): string {
  if (status === 401) return ' (the service account token was refused; it may have expired or been rotated)';
  const mwc = /\/mutatingwebhookconfigurations\/([^/?]+)/.exec(path);
  if (status === 403 && mwc !== null) return ` (grant the service account ${grantText(caBundleRules(decodeURIComponent(mwc[1])))})`;
  return '';
}

/** Kubernetes Status for a lost optimistic-concurrency race: 409, or 422 from a failed JSON-patch `test`. */
export function isConflict(err: unknown): boolean {
  if (!(err instanceof KubeApiError)) return false;
  return err.status === 409 || (err.status === 422 && /test(ing value .* failed| failed)/i.test(err.apiMessage ?? ''));
}
