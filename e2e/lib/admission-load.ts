/**
 * @module e2e/lib/admission-load
 * Pod creations through the apiserver at a steady pace, as server-side dry runs (`dryRun=All`:
 * admission runs, webhooks included, nothing is stored), with the admin credentials of
 * KUBECONFIG. Every answer is recorded: how many pods came back with the sidecar, and each
 * failure's message (a webhook the apiserver could not call shows up here). Bounded: at most
 * `concurrency` requests in flight, `perSecond` started per second, loopback only.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import type { Obj } from './kube.js';

interface LoadResult {
  sent: number;
  injected: number;
  notInjected: number;
  failures: string[];
}

export interface RunningLoad {
  /** Stop starting requests; resolves when those in flight have answered. */
  stop(): Promise<LoadResult>;
  current(): LoadResult;
}

function adminCredentials(): { server: URL; ca: Buffer; cert: Buffer; key: Buffer } {
  const text = readFileSync(process.env.KUBECONFIG!, 'utf8');
  const field = (name: string) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(text)![1]!, 'base64');
  return {
    server: new URL(/server: (\S+)/.exec(text)![1]!),
    ca: field('certificate-authority-data'),
    cert: field('client-certificate-data'),
    key: field('client-key-data'),
  };
}

export function startAdmissionLoad(options: { namespace: string; sidecar: string; perSecond: number; concurrency?: number }): RunningLoad {
  const { server, ca, cert, key } = adminCredentials();
  const agent = new Agent({ ca, cert, key, keepAlive: true, maxSockets: options.concurrency ?? 4 });
  const result: LoadResult = { sent: 0, injected: 0, notInjected: 0, failures: [] };
  const inFlight = new Set<Promise<void>>();
  const one = (n: number): Promise<void> =>
    new Promise((resolve) => {
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `load-${n}` }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } };
      const body = JSON.stringify(pod);
      const req = request(
        {
          host: server.hostname,
          port: server.port,
          method: 'POST',
          path: `/api/v1/namespaces/${options.namespace}/pods?dryRun=All`,
          agent,
          timeout: 30_000,
          headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (c: string) => {
              text += c;
            })
            .on('end', () => {
              if (res.statusCode === 201) {
                const stored = JSON.parse(text) as Obj;
                if ((stored.spec.containers as Obj[]).some((c) => c.name === options.sidecar)) result.injected++;
                else result.notInjected++;
              } else {
                result.failures.push(`${new Date().toISOString()} HTTP ${res.statusCode}: ${text.slice(0, 400)}`);
              }
              resolve();
            });
        },
      );
      req.on('timeout', () => req.destroy(new Error('no answer in 30 s')));
      req.on('error', (err) => {
        result.failures.push(`${new Date().toISOString()} ${err.message}`);
        resolve();
      });
      req.end(body);
    });
  const timer = setInterval(
    () => {
      if (inFlight.size >= (options.concurrency ?? 4)) return;
      const p = one(result.sent++).finally(() => inFlight.delete(p));
      inFlight.add(p);
    },
    Math.max(10, Math.round(1000 / options.perSecond)),
  );
  return {
    current: () => ({ ...result, failures: [...result.failures] }),
    async stop() {
      clearInterval(timer);
      await Promise.all([...inFlight]);
      agent.destroy();
      return { ...result, failures: [...result.failures] };
    },
  };
}
