/**
 * @module e2e/lib/load
 * A steady stream of pod creations through the real apiserver, every one counted: refused
 * (any answer but 201), or admitted with or without the sidecar. The pods are created with
 * `dryRun=All`: admission runs in full (our webhook has `sideEffects: None`, so the apiserver
 * calls it for dry runs) and the apiserver answers with the pod as it would store it, but none
 * is stored, so a minute of 5 pods/s does not leave 300 pods for the one node to run.
 * Bounded: a fixed rate, a cap on requests in flight, a timeout on each.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { parse } from 'yaml';
import type { Obj } from './kube.js';

interface Credentials {
  server: string;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

/** The admin credentials of $KUBECONFIG (embedded data, as e2e/cluster/kubeconfig.ts writes them). */
export function kubeconfigCredentials(file = process.env.KUBECONFIG ?? ''): Credentials {
  const kc = parse(readFileSync(file, 'utf8')) as Obj;
  const b = (s: string): Buffer => Buffer.from(s, 'base64');
  return {
    server: kc.clusters[0].cluster.server as string,
    ca: b(kc.clusters[0].cluster['certificate-authority-data']),
    cert: b(kc.users[0].user['client-certificate-data']),
    key: b(kc.users[0].user['client-key-data']),
  };
}

export interface ApiAnswer {
  status: number;
  body: Obj | undefined;
  error?: string;
}

/** One request to the apiserver as the admin (JSON in and out). */
export function apiRequest(creds: Credentials, agent: Agent, method: string, path: string, body?: unknown, timeoutMs = 15_000): Promise<ApiAnswer> {
  return new Promise((resolve) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(
      `${creds.server}${path}`,
      {
        method,
        agent,
        timeout: timeoutMs,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...(data ? { 'Content-Length': data.length } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => {
          let parsed: Obj | undefined;
          try {
            parsed = JSON.parse(text) as Obj;
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', (err) => resolve({ status: 0, body: undefined, error: err.message }));
    req.end(data);
  });
}

export function adminAgent(creds: Credentials): Agent {
  return new Agent({ ca: creds.ca, cert: creds.cert, key: creds.key, keepAlive: true, maxSockets: 16 });
}

interface LoadResult {
  sent: number;
  admitted: number;
  /** When (Date.now()) each refused creation was answered, and how. */
  refused: Array<{ at: number; status: number; message: string }>;
  /** When (Date.now()) each admitted creation was answered. */
  admittedAt: number[];
  withoutSidecar: number;
  /** How many admitted pods carried each sidecar image (shows an upgrade's switch-over). */
  sidecarImages: Record<string, number>;
}

export interface Load {
  stop(): Promise<LoadResult>;
  result: LoadResult;
}

/**
 * Creates (dry run) one pod every 1000/rate ms in `namespace` until stopped; a pod "has the
 * sidecar" when a container or init container is named `sidecar`.
 */
export function startLoad(namespace: string, sidecar: string, options: { rate?: number; maxInFlight?: number } = {}): Load {
  const creds = kubeconfigCredentials();
  const agent = adminAgent(creds);
  const rate = options.rate ?? 5;
  const maxInFlight = options.maxInFlight ?? 20;
  const result: LoadResult = { sent: 0, admitted: 0, refused: [], admittedAt: [], withoutSidecar: 0, sidecarImages: {} };
  let inFlight = 0;
  const pending = new Set<Promise<void>>();
  const one = async (n: number): Promise<void> => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `load-${n}`, namespace, labels: { app: 'load' } },
      spec: { containers: [{ name: 'app', image: 'e2e.local/app:1' }] },
    };
    const answer = await apiRequest(creds, agent, 'POST', `/api/v1/namespaces/${namespace}/pods?dryRun=All`, pod);
    if (answer.status !== 201) {
      result.refused.push({ at: Date.now(), status: answer.status, message: answer.error ?? String(answer.body?.message ?? '') });
      return;
    }
    result.admitted++;
    result.admittedAt.push(Date.now());
    const all = [...(answer.body?.spec?.initContainers ?? []), ...(answer.body?.spec?.containers ?? [])] as Obj[];
    const found = all.find((c) => c.name === sidecar);
    if (!found) {
      result.withoutSidecar++;
      return;
    }
    const key = `${found.image as string} ${((found.args ?? []) as string[]).join(' ')}`.trim();
    result.sidecarImages[key] = (result.sidecarImages[key] ?? 0) + 1;
  };
  const timer = setInterval(() => {
    if (inFlight >= maxInFlight) {
      result.refused.push({ at: Date.now(), status: -1, message: `more than ${maxInFlight} creations in flight: not sent` });
      return;
    }
    const n = ++result.sent;
    inFlight++;
    const p = one(n).finally(() => {
      inFlight--;
      pending.delete(p);
    });
    pending.add(p);
  }, 1000 / rate);
  return {
    result,
    async stop() {
      clearInterval(timer);
      await Promise.all([...pending]);
      agent.destroy();
      return result;
    },
  };
}

/** Samples `probe` every `everyMs` until stopped; returns the samples. */
export function sample<T>(probe: () => Promise<T>, everyMs = 250): { stop(): Promise<T[]> } {
  const samples: T[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        samples.push(await probe());
      } catch {
        /* a failed read is not a sample */
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return samples;
    },
  };
}
