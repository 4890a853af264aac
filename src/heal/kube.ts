/**
 * @module heal/kube
 * The cluster access of `status`, `restart`, `rollout` and `serve --reconcile`, on the official client,
 * `@kubernetes/client-node` 1.x (2.x needs Node 22): it loads kubeconfig or in-cluster
 * credentials (exec plugins, tokens, client certificates) and does workload patches, Events
 * and Leases. Lists and watches are read as raw JSON with the same credentials: the typed
 * models turn timestamps into Dates and drop fields the client's models do not know (pod
 * fields newer than the client), and a pod must be judged exactly as the webhook receives it.
 * Lists go page by page to their consumer; watches are our own newline-delimited JSON reader,
 * so that a 410 at the start is a status, not a thrown string, and metadata-only reads are
 * possible.
 *
 * This module loads the client (~0.6 s, ~100 MB); only these commands import it, lazily, so
 * `serve` without `--reconcile` never pays for it.
 */
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest } from 'node:http';
import * as k8s from '@kubernetes/client-node';
import { ClusterError } from '../errors.js';
import { isPlainObject } from '../util/json.js';
import type { WorkloadRef } from './types.js';

/** What healing needs from the cluster; tests pass a fake. */
export interface HealApi {
  /** The current context's namespace (kubectl's default), else `default`. */
  readonly defaultNamespace: string;
  /** Every item of a collection (paginated), as raw JSON. */
  list(path: string, query?: Record<string, string>): Promise<{ items: unknown[]; resourceVersion: string }>;
  /**
   * Every item of a collection, one page (`limit`/`continue`) at a time: each page goes to
   * `onPage` (awaited) and is not kept, so memory holds one page, not the collection.
   */
  listPages(
    path: string,
    query: Record<string, string>,
    onPage: (items: unknown[]) => void | Promise<void>,
    options?: ReadOptions,
  ): Promise<{ resourceVersion: string; count: number }>;
  /** One object as raw JSON; undefined when it does not exist. */
  get(path: string): Promise<unknown>;
  /** Strategic-merge patch of a workload; returns the patched object. */
  patchWorkload(ref: WorkloadRef, body: unknown): Promise<unknown>;
  /** JSON merge patch (RFC 7386) of any object, e.g. a namespace's labels (`null` removes a key); returns the patched object. */
  patchMerge(path: string, body: unknown): Promise<unknown>;
  createEvent(namespace: string, event: k8s.CoreV1Event): Promise<void>;
  /**
   * Watch a collection from a resourceVersion. Resolves once the apiserver accepted the watch;
   * rejects (a ClusterError, with `details.status` when the apiserver answered, e.g. 410) when
   * it did not. `done` is called once when an accepted watch ends: null when the apiserver
   * closed it, an error when the connection failed. `abort` ends it without calling `done`.
   */
  watch(
    path: string,
    query: Record<string, string>,
    onEvent: (type: string, obj: unknown) => void,
    done: (err: unknown) => void,
    options?: ReadOptions,
  ): Promise<{ abort(): void }>;
  leases: LeaseApi;
}

export interface ReadOptions {
  /**
   * Ask for metadata only (`PartialObjectMetadata`): what owner references and labels need,
   * without the objects' specs (a ReplicaSet carries its whole pod template).
   */
  metadataOnly?: boolean;
}

export interface LeaseApi {
  get(namespace: string, name: string): Promise<k8s.V1Lease | undefined>;
  create(namespace: string, lease: k8s.V1Lease): Promise<k8s.V1Lease>;
  /** Replace with optimistic concurrency (`metadata.resourceVersion`); a conflict throws a ClusterError with status 409. */
  replace(namespace: string, lease: k8s.V1Lease): Promise<k8s.V1Lease>;
}

export interface ConnectOptions {
  kubeconfig?: string;
  context?: string;
}

/** Where the workload kinds live in the API. */
export function workloadPath(ref: Pick<WorkloadRef, 'kind' | 'namespace' | 'name'>): string {
  const group: Record<string, string> = {
    Deployment: 'apis/apps/v1/namespaces/%s/deployments',
    StatefulSet: 'apis/apps/v1/namespaces/%s/statefulsets',
    DaemonSet: 'apis/apps/v1/namespaces/%s/daemonsets',
  };
  const base = group[ref.kind];
  if (base === undefined)
    throw new ClusterError('SI_CLUSTER_REQUEST', `cannot address a ${ref.kind}: only Deployments, StatefulSets and DaemonSets are restarted`);
  return `/${base.replace('%s', encodeURIComponent(ref.namespace))}/${encodeURIComponent(ref.name)}`;
}

/**
 * The kubeconfig as kubectl finds it (--kubeconfig, else $KUBECONFIG, else ~/.kube/config, else
 * in-cluster credentials), with the mistakes a user makes named: no kubeconfig at all (the
 * client would quietly fall back to http://localhost:8080), an unknown context, a file that is
 * missing or not a kubeconfig, a plain-http server. Each is SI_CLUSTER_CONFIG saying what to do.
 */
export function loadKubeConfig(options: ConnectOptions = {}): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  const source = options.kubeconfig ?? (process.env.KUBECONFIG || undefined);
  try {
    if (options.kubeconfig !== undefined) kc.loadFromFile(options.kubeconfig);
    else kc.loadFromDefault();
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file does not exist' : err instanceof Error ? err.message : String(err);
    const flag = options.kubeconfig !== undefined ? '--kubeconfig' : 'KUBECONFIG';
    throw new ClusterError(
      'SI_CLUSTER_CONFIG',
      `cannot read the kubeconfig ${source ?? ''}: ${why}; point ${flag} at a kubeconfig file (kubectl config view shows the one kubectl uses)`,
      { cause: err },
    );
  }
  // The client's last resort when it found nothing: a made-up http://localhost:8080 context.
  if (options.kubeconfig === undefined && kc.getCurrentContext() === 'loaded-context' && kc.getCurrentCluster()?.server === 'http://localhost:8080') {
    throw new ClusterError(
      'SI_CLUSTER_CONFIG',
      'no kubeconfig: KUBECONFIG is not set, ~/.kube/config does not exist and this is not a pod with a service account; pass --kubeconfig FILE or set KUBECONFIG',
    );
  }
  if (options.context !== undefined) {
    if (kc.getContextObject(options.context) === null) {
      const names = kc.getContexts().map((c) => c.name);
      throw new ClusterError(
        'SI_CLUSTER_CONFIG',
        `context "${options.context}" is not in the kubeconfig${source !== undefined ? ` ${source}` : ''}; its contexts: ${names.length > 0 ? names.join(', ') : 'none'} (kubectl config get-contexts)`,
      );
    }
    kc.setCurrentContext(options.context);
  }
  const cluster = kc.getCurrentCluster();
  if (cluster === null || cluster.server === '') {
    const context = kc.getCurrentContext();
    throw new ClusterError(
      'SI_CLUSTER_CONFIG',
      `the kubeconfig's current context${context ? ` "${context}"` : ''} names no cluster with a server; choose one with --context (kubectl config get-contexts)`,
    );
  }
  if (cluster.server.startsWith('http:') && cluster.skipTLSVerify !== true) {
    throw new ClusterError(
      'SI_CLUSTER_CONFIG',
      `the cluster "${cluster.name}" has a plain-http server (${cluster.server}): use its https address in the kubeconfig`,
    );
  }
  return kc;
}

export function connect(options: ConnectOptions = {}): HealApi {
  return new KubeHealApi(loadKubeConfig(options));
}

const LIST_PAGE = '500';
const MAX_PAGES = 10_000;
const WATCH_IDLE_MS = 5 * 60_000;
/** The apiserver's audit log and metrics name us by this. */
const USER_AGENT = 'sidecar-injector/heal';
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const METADATA_OBJECT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

class KubeHealApi implements HealApi {
  readonly #kc: k8s.KubeConfig;
  readonly #server: URL;
  readonly #core: k8s.CoreV1Api;
  readonly #coordination: k8s.CoordinationV1Api;
  readonly leases: LeaseApi;
  readonly defaultNamespace: string;

  constructor(kc: k8s.KubeConfig) {
    this.#kc = kc;
    this.defaultNamespace = kc.getContextObject(kc.getCurrentContext())?.namespace || 'default';
    this.#server = new URL(kc.getCurrentCluster()!.server);
    this.#core = kc.makeApiClient(k8s.CoreV1Api);
    this.#coordination = kc.makeApiClient(k8s.CoordinationV1Api);
    const coordination = this.#coordination;
    this.leases = {
      get: async (namespace, name) => {
        try {
          return await coordination.readNamespacedLease({ namespace, name });
        } catch (err) {
          if (apiStatus(err) === 404) return undefined;
          throw clusterError(err, `read lease ${namespace}/${name}`);
        }
      },
      create: async (namespace, body) => {
        try {
          return await coordination.createNamespacedLease({ namespace, body });
        } catch (err) {
          throw clusterError(err, `create lease ${namespace}/${body.metadata?.name ?? ''}`);
        }
      },
      replace: async (namespace, body) => {
        try {
          return await coordination.replaceNamespacedLease({ namespace, name: body.metadata!.name!, body });
        } catch (err) {
          throw clusterError(err, `update lease ${namespace}/${body.metadata?.name ?? ''}`);
        }
      },
    };
  }

  async list(path: string, query: Record<string, string> = {}): Promise<{ items: unknown[]; resourceVersion: string }> {
    const items: unknown[] = [];
    const { resourceVersion } = await this.listPages(path, query, (page) => {
      for (const item of page) items.push(item);
    });
    return { items, resourceVersion };
  }

  async listPages(
    path: string,
    query: Record<string, string>,
    onPage: (items: unknown[]) => void | Promise<void>,
    options: ReadOptions = {},
  ): Promise<{ resourceVersion: string; count: number }> {
    let cont = '';
    let resourceVersion = '';
    let count = 0;
    const accept = options.metadataOnly === true ? METADATA_LIST : undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const q = new URLSearchParams({ ...query, limit: LIST_PAGE, ...(cont ? { continue: cont } : {}) });
      const body = await this.#json('GET', `${path}?${q}`, undefined, undefined, accept);
      // An empty PartialObjectMetadataList says `"items": null`.
      if (!isPlainObject(body) || !(Array.isArray(body.items) || body.items === null))
        throw new ClusterError('SI_CLUSTER_REQUEST', `GET ${path}: the answer is not a list`);
      const items = Array.isArray(body.items) ? body.items : [];
      const meta = isPlainObject(body.metadata) ? body.metadata : {};
      resourceVersion = typeof meta.resourceVersion === 'string' ? meta.resourceVersion : resourceVersion;
      cont = typeof meta.continue === 'string' ? meta.continue : '';
      count += items.length;
      await onPage(items);
      if (cont === '') return { resourceVersion, count };
    }
    throw new ClusterError('SI_CLUSTER_REQUEST', `GET ${path}: more than ${MAX_PAGES} pages`);
  }

  async get(path: string): Promise<unknown> {
    try {
      return await this.#json('GET', path);
    } catch (err) {
      if (err instanceof ClusterError && err.details?.status === 404) return undefined;
      throw err;
    }
  }

  patchWorkload(ref: WorkloadRef, body: unknown): Promise<unknown> {
    return this.#json('PATCH', workloadPath(ref), JSON.stringify(body), k8s.PatchStrategy.StrategicMergePatch);
  }

  patchMerge(path: string, body: unknown): Promise<unknown> {
    return this.#json('PATCH', path, JSON.stringify(body), k8s.PatchStrategy.MergePatch);
  }

  async createEvent(namespace: string, event: k8s.CoreV1Event): Promise<void> {
    try {
      await this.#core.createNamespacedEvent({ namespace, body: event });
    } catch (err) {
      throw clusterError(err, `create event in ${namespace}`);
    }
  }

  async watch(
    path: string,
    query: Record<string, string>,
    onEvent: (type: string, obj: unknown) => void,
    done: (err: unknown) => void,
    options: ReadOptions = {},
  ): Promise<{ abort(): void }> {
    const url = this.#url(`${path}?${new URLSearchParams({ ...query, watch: 'true' })}`);
    const opts = await this.#options('GET', options.metadataOnly === true ? METADATA_OBJECT : undefined);
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
      let aborted = false;
      let ended = false;
      let answered = false;
      const finish = (err: unknown): void => {
        if (ended || aborted) return;
        ended = true;
        done(err);
      };
      // No bytes for WATCH_IDLE_MS (the apiserver sends a bookmark about every minute): the
      // connection is dead without having said so; end it and let the caller resume.
      const req = send(url, { ...opts, timeout: WATCH_IDLE_MS }, (res) => {
        answered = true;
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => reject(apiError('GET', url, status, Buffer.concat(chunks).toString('utf8'))));
          res.on('error', (err) => reject(networkError('GET', url, err)));
          return;
        }
        resolve({
          abort: () => {
            aborted = true;
            req.destroy();
          },
        });
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let nl: number;
          while (!aborted && (nl = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(nl + 1);
            if (line.trim() === '') continue;
            let event: unknown;
            try {
              event = JSON.parse(line);
            } catch {
              req.destroy(new Error(`${path}: the watch sent a line that is not JSON`));
              return;
            }
            if (isPlainObject(event) && typeof event.type === 'string') onEvent(event.type, event.object);
          }
        });
        res.on('end', () => finish(null));
        res.on('error', (err) => finish(networkError('GET', url, err)));
        res.on('aborted', () => finish(networkError('GET', url, new Error('the apiserver closed the watch midway'))));
      });
      req.on('timeout', () => req.destroy(new Error(`no data for ${WATCH_IDLE_MS / 1000} s`)));
      req.on('error', (err) => {
        if (aborted) return;
        // Before the answer: the watch did not start. After it: it ended with an error.
        if (!answered) reject(networkError('GET', url, err));
        else finish(networkError('GET', url, err));
      });
      req.end();
    });
  }

  #url(path: string): URL {
    return new URL(path.replace(/^\//, ''), this.#server.href.endsWith('/') ? this.#server.href : `${this.#server.href}/`);
  }

  async #options(method: string, accept = 'application/json', contentType?: string): Promise<RequestOptions> {
    const opts: RequestOptions = { method, headers: { Accept: accept, 'User-Agent': USER_AGENT, ...(contentType ? { 'Content-Type': contentType } : {}) } };
    try {
      await this.#kc.applyToHTTPSOptions(opts);
    } catch (err) {
      // Credentials the client cannot use (an exec plugin that fails, unreadable key files).
      throw new ClusterError(
        'SI_CLUSTER_CONFIG',
        `cannot use the credentials of context "${this.#kc.getCurrentContext()}": ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
    return opts;
  }

  async #json(method: string, path: string, body?: string, contentType?: string, accept?: string): Promise<unknown> {
    const url = this.#url(path);
    const opts = await this.#options(method, accept, contentType);
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
      const req = send(url, { ...opts, timeout: 60_000 }, (res) => {
        // Decoded chunk by chunk into a string (the JS heap), not concatenated into one Buffer:
        // a list page is megabytes, and glibc keeps such freed blocks in the process for good.
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('error', reject);
        res.on('end', () => {
          let parsed: unknown;
          try {
            parsed = text === '' ? {} : JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300 && parsed !== undefined) return resolve(parsed);
          reject(apiError(method, url, status, text, parsed));
        });
      });
      req.on('timeout', () => req.destroy(new Error('no answer within 60 s')));
      req.on('error', (err) => reject(networkError(method, url, err)));
      req.end(body);
    });
  }
}

function apiError(method: string, url: URL, status: number, text: string, parsed?: unknown): ClusterError {
  if (parsed === undefined) {
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: the text is the message
    }
  }
  const apiMessage = isPlainObject(parsed) && typeof parsed.message === 'string' ? parsed.message : text.slice(0, 200);
  return new ClusterError('SI_CLUSTER_REQUEST', `${method} ${url.pathname}: HTTP ${status}: ${apiMessage}`, {
    details: { status, method, path: url.pathname },
  });
}

function networkError(method: string, url: URL, err: Error): ClusterError {
  return new ClusterError('SI_CLUSTER_REQUEST', `${method} ${url.pathname}: ${err.message}`, { cause: err, details: { method, path: url.pathname } });
}

/** HTTP status of a client-node ApiException (or of our own ClusterError). */
export function apiStatus(err: unknown): number | undefined {
  if (err instanceof ClusterError && typeof err.details?.status === 'number') return err.details.status;
  if (err instanceof k8s.ApiException) return err.code;
  return undefined;
}

function clusterError(err: unknown, what: string): ClusterError {
  const status = apiStatus(err);
  const body = err instanceof k8s.ApiException ? err.body : undefined;
  let message = err instanceof Error ? err.message : String(err);
  if (typeof body === 'string') {
    try {
      const parsed: unknown = JSON.parse(body);
      if (isPlainObject(parsed) && typeof parsed.message === 'string') message = parsed.message;
    } catch {
      // not JSON: keep the exception's message
    }
  }
  return new ClusterError('SI_CLUSTER_REQUEST', `${what}: ${status !== undefined ? `HTTP ${status}: ` : ''}${message}`, { cause: err, details: { status } });
}
