/**
 * @module kube/client
 * The product's Kubernetes client: every call (get, paged list, watch, patch, create, replace,
 * Events, Leases) goes through the one transport, with its deadline, size cap, AbortSignal and
 * KubeApiError. Objects stay raw JSON. `connect()` finds the credentials as kubectl does; the
 * webhook's caBundle and TLS Secret code builds one on the pod's service account.
 */
import { isPlainObject } from '../util/json.js';
import { apiStatus, KubeApiError } from './api-error.js';
import type { ClusterApi, KubeEvent, Lease, LeaseApi, PatchType, ReadOptions } from './cluster-api.js';
import { workloadPath } from './cluster-api.js';
import { type Endpoint, resolveEndpoint } from './endpoint.js';
import type { ConnectOptions } from './kubeconfig.js';
import { type CallOptions, Transport } from './transport.js';

export interface KubeClientOptions {
  /** Total deadline of a request. Default 30 s. */
  timeoutMs?: number;
  userAgent?: string;
  /** Answers larger than this are refused. Default 16 MiB (a list page: 64 MiB). */
  maxResponseBytes?: number;
}

const CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};
const LIST_PAGE = '500';
const MAX_PAGES = 10_000;
const LIST_PAGE_BYTES = 64 * 1024 * 1024;
/** The apiserver sends a bookmark about every minute; five without a byte is a dead connection. */
const WATCH_IDLE_MS = 5 * 60_000;
const WATCH_EVENT_BYTES = 16 * 1024 * 1024;
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const METADATA_OBJECT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const LEASES = (ns: string) => `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(ns)}/leases`;

/** A client on the credentials kubectl would use (see kube/endpoint.ts). */
export function connect(options: ConnectOptions = {}, clientOptions: KubeClientOptions = {}): KubeClient {
  return new KubeClient(resolveEndpoint(options), { userAgent: 'sidecar-injector/heal', ...clientOptions });
}

export class KubeClient implements ClusterApi {
  readonly #t: Transport;
  readonly defaultNamespace: string;
  readonly leases: LeaseApi;

  constructor(endpoint: Endpoint, options: KubeClientOptions = {}) {
    this.#t = new Transport(endpoint, {
      userAgent: options.userAgent ?? 'sidecar-injector',
      timeoutMs: options.timeoutMs ?? 30_000,
      maxResponseBytes: options.maxResponseBytes ?? 16 * 1024 * 1024,
    });
    this.defaultNamespace = endpoint.namespace ?? 'default';
    this.leases = {
      get: async (ns, name) => (await this.find(`${LEASES(ns)}/${encodeURIComponent(name)}`)) as Lease | undefined,
      create: async (ns, lease) => (await this.post(LEASES(ns), lease)) as Lease,
      replace: async (ns, lease) => (await this.put(`${LEASES(ns)}/${encodeURIComponent(lease.metadata.name)}`, lease)) as Lease,
    };
  }

  /** Where requests go, for messages: `https://10.0.0.1:6443 (context "dev")`. */
  get description(): string {
    return this.#t.endpoint.description;
  }

  /** One object; a 404 is a KubeApiError like any other failure. */
  get(path: string, options: CallOptions = {}): Promise<unknown> {
    return this.#t.call('GET', path, undefined, undefined, options);
  }

  async find(path: string, options: CallOptions = {}): Promise<unknown> {
    try {
      return await this.get(path, options);
    } catch (err) {
      if (apiStatus(err) === 404) return undefined;
      throw err;
    }
  }

  patch(path: string, body: unknown, type: PatchType, options: CallOptions = {}): Promise<unknown> {
    return this.#t.call('PATCH', path, JSON.stringify(body), CONTENT_TYPES[type], options);
  }

  /** Replace an object; with `metadata.resourceVersion` set, a concurrent change answers 409. */
  put(path: string, body: unknown, options: CallOptions = {}): Promise<unknown> {
    return this.#t.call('PUT', path, JSON.stringify(body), 'application/json', options);
  }

  /** Create an object in a collection; an existing name answers 409. */
  post(path: string, body: unknown, options: CallOptions = {}): Promise<unknown> {
    return this.#t.call('POST', path, JSON.stringify(body), 'application/json', options);
  }

  /** Delete an object (the apiserver's default propagation). */
  delete(path: string, options: CallOptions = {}): Promise<unknown> {
    return this.#t.call('DELETE', path, undefined, undefined, options);
  }

  patchWorkload(ref: { kind: string; namespace: string; name: string }, body: unknown): Promise<unknown> {
    return this.patch(workloadPath(ref), body, 'strategic');
  }

  patchMerge(path: string, body: unknown): Promise<unknown> {
    return this.patch(path, body, 'merge');
  }

  async createEvent(namespace: string, event: KubeEvent): Promise<void> {
    await this.post(`/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, { apiVersion: 'v1', kind: 'Event', ...event });
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
    const call: CallOptions = {
      signal: options.signal,
      maxResponseBytes: LIST_PAGE_BYTES,
      ...(options.metadataOnly === true ? { accept: METADATA_LIST } : {}),
    };
    for (let page = 0; page < MAX_PAGES; page++) {
      const q = new URLSearchParams({ ...query, limit: LIST_PAGE, ...(cont ? { continue: cont } : {}) });
      const body = await this.get(`${path}?${q}`, call);
      // An empty PartialObjectMetadataList says `"items": null`.
      if (!isPlainObject(body) || !(Array.isArray(body.items) || body.items === null))
        throw new KubeApiError(`GET ${path}: the answer is not a list`, { method: 'GET', path });
      const items = Array.isArray(body.items) ? body.items : [];
      const meta = isPlainObject(body.metadata) ? body.metadata : {};
      resourceVersion = typeof meta.resourceVersion === 'string' ? meta.resourceVersion : resourceVersion;
      cont = typeof meta.continue === 'string' ? meta.continue : '';
      count += items.length;
      await onPage(items);
      if (cont === '') return { resourceVersion, count };
    }
    throw new KubeApiError(`GET ${path}: more than ${MAX_PAGES} pages`, { method: 'GET', path });
  }

  async watch(
    path: string,
    query: Record<string, string>,
    onEvent: (type: string, obj: unknown) => void,
    done: (err: unknown) => void,
    options: ReadOptions = {},
  ): Promise<{ abort(): void }> {
    const full = `${path}?${new URLSearchParams({ ...query, watch: 'true' })}`;
    let stream: { abort(): void } | undefined;
    let broken: KubeApiError | undefined;
    const handle = await this.#t.stream(
      full,
      (line) => {
        if (broken !== undefined) return;
        let event: unknown;
        try {
          event = JSON.parse(line);
        } catch (err) {
          broken = new KubeApiError(`GET ${path}: the watch sent a line that is not JSON`, { method: 'GET', path, cause: err });
          stream?.abort();
          return;
        }
        if (isPlainObject(event) && typeof event.type === 'string') onEvent(event.type, event.object);
      },
      { signal: options.signal, idleMs: WATCH_IDLE_MS, maxLineBytes: WATCH_EVENT_BYTES, ...(options.metadataOnly === true ? { accept: METADATA_OBJECT } : {}) },
    );
    stream = handle;
    let aborted = false;
    void handle.ended.then((err) => {
      if (!aborted) done(broken ?? err);
    });
    return {
      abort: () => {
        aborted = true;
        handle.abort();
      },
    };
  }

  /** Close pooled connections. The client stays usable; it reconnects on the next call. */
  close(): void {
    this.#t.endpoint.close();
  }
}
