/**
 * @module bench/scale/plane
 * The scale bench's own control plane and the client the generator fills it with.
 *
 * The plane is the e2e one (e2e/cluster), in its own state directory (`SI_E2E_STATE`, default
 * `~/.cache/sidecar-injector/e2e/scale`), sized for 50,000 pods: etcd with an 8 GiB quota, the
 * apiserver with more requests in flight and an audit log of the reads (list, watch, get) so
 * the bench can show which requests a command made; and the controller manager with only the
 * namespace and service-account controllers, since the generator writes what the workload
 * controllers would (a running ReplicaSet controller would delete or add pods meanwhile).
 *
 * The client speaks HTTPS with the admin certificate, keep-alive, at most `parallel` requests
 * at once; it retries what an overloaded apiserver refuses (429, 5xx, a reset) with back-off.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { readState, up, type ClusterState, type Sizing } from '../../e2e/cluster/cluster.js';
import { cacheRoot, stateDir } from '../../e2e/cluster/paths.js';
import { createPki } from '../../e2e/cluster/pki.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- Kubernetes objects as loose JSON */
type Obj = Record<string, any>;

/** The state directory of the scale plane: never the shared e2e cluster's. */
export function useScaleState(): string {
  process.env.SI_E2E_STATE ??= join(cacheRoot(), 'scale');
  return stateDir();
}

export const AUDIT_LOG = 'audit.log';

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  verbs: [list, watch, get]
  resources:
  - group: ""
    resources: [pods, namespaces]
  - group: apps
    resources: [replicasets, deployments, statefulsets, daemonsets]
  - group: batch
    resources: [jobs]
- level: None
`;

export function sizing(dir: string): Sizing {
  return {
    etcdArgs: ['--quota-backend-bytes=8589934592'],
    apiserverArgs: [
      '--max-requests-inflight=800',
      '--max-mutating-requests-inflight=400',
      `--audit-policy-file=${join(dir, 'audit-policy.yaml')}`,
      `--audit-log-path=${join(dir, AUDIT_LOG)}`,
      '--audit-log-maxsize=500',
      '--audit-log-maxbackup=1',
    ],
    controllers: 'namespace,serviceaccount',
  };
}

/** Start (or reuse) the scale plane. */
export async function planeUp(log: (line: string) => void): Promise<ClusterState> {
  const dir = useScaleState();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'audit-policy.yaml'), AUDIT_POLICY);
  return up({ sizing: sizing(dir), log });
}

export function planeState(): ClusterState | undefined {
  useScaleState();
  return readState();
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class ScaleClient {
  readonly #server: URL;
  readonly #agent: Agent;
  readonly #parallel: number;
  #active = 0;
  readonly #queue: (() => void)[] = [];
  requests = 0;
  retries = 0;

  constructor(state: ClusterState, parallel: number) {
    const pki = createPki(join(stateDir(), 'pki'));
    this.#server = new URL(state.server);
    this.#parallel = parallel;
    this.#agent = new Agent({
      keepAlive: true,
      maxSockets: parallel,
      ca: readFileSync(pki.caCert),
      cert: readFileSync(pki.admin.cert),
      key: readFileSync(pki.admin.key),
    });
  }

  close(): void {
    this.#agent.destroy();
  }

  /** JSON in and out; throws HttpError on a status >= 400 (after retries for 429 and 5xx). */
  async json(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Obj> {
    for (let attempt = 0; ; attempt++) {
      await this.#slot();
      try {
        const { status, text } = await this.#send(method, path, body === undefined ? undefined : JSON.stringify(body), contentType);
        if (status < 400) return text === '' ? {} : (JSON.parse(text) as Obj);
        const retriable = status === 429 || status >= 500;
        if (!retriable || attempt >= 6) throw new HttpError(status, `${method} ${path}: HTTP ${status}: ${text.slice(0, 300)}`);
      } catch (err) {
        if (err instanceof HttpError || attempt >= 6) throw err;
      } finally {
        this.#release();
      }
      this.retries++;
      await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
    }
  }

  /** Create, or read what already exists (a re-run). */
  async create(collection: string, obj: Obj): Promise<Obj> {
    try {
      return await this.json('POST', collection, obj);
    } catch (err) {
      if (err instanceof HttpError && err.status === 409) return this.json('GET', `${collection}/${obj.metadata.name}`);
      throw err;
    }
  }

  async #slot(): Promise<void> {
    if (this.#active < this.#parallel) {
      this.#active++;
      return;
    }
    await new Promise<void>((r) => this.#queue.push(r));
  }

  #release(): void {
    const next = this.#queue.shift();
    if (next !== undefined) next();
    else this.#active--;
  }

  #send(method: string, path: string, body: string | undefined, contentType: string): Promise<{ status: number; text: string }> {
    this.requests++;
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: this.#server.hostname,
          port: this.#server.port,
          method,
          path,
          agent: this.#agent,
          timeout: 120_000,
          headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('no answer in 120 s')));
      req.on('error', reject);
      req.end(body);
    });
  }
}
