/**
 * @module bench/scale/measure
 * The scale bench's instruments: a command's wall time, CPU time and peak RSS (`/usr/bin/time`,
 * output to a file, not a pipe to this process), `serve` started like the other benches start it
 * (built CLI, TLS from files, ready at its first 200; not pinned) with the plane's
 * kubeconfig and a monitoring port, the reconciler's pod count from its `/metrics`, pods
 * created at a fixed rate (open loop: a create is due every 1/rate, whatever the answers do),
 * and the load namespace emptied again.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { procSample } from '../../test/support/proc-stats.js';
import { builtCli, freePort, type SpawnedServer } from '../../test/support/server-process.js';
import { startCommand, type CertFiles } from '../lib/servers.js';
import { median } from '../lib/stats.js';
import { HttpError, type ScaleClient } from './plane.js';
import type { Obj } from './plan.js';

export interface Timed {
  seconds: number;
  /** User + system CPU of the process itself: what it costs, whatever the machine's load. */
  cpuSeconds: number;
  rssMiB: number;
  code: number;
  /** The output's last line (the summary of status). */
  lastLine: string;
}

/** Run to the end; stdout to `outFile`. */
export function timed(command: string, args: readonly string[], env: NodeJS.ProcessEnv, outFile: string): Timed {
  const fd = openSync(outFile, 'w');
  try {
    const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', command, ...args], { env, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', maxBuffer: 1 << 26 });
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    const [seconds, user, sys, kb] = last.split(' ').map(Number);
    if (![seconds, user, sys, kb].every(Number.isFinite)) throw new Error(`${command} ${args.join(' ')}: no timing (${r.stderr.slice(-500)})`);
    return { seconds, cpuSeconds: user + sys, rssMiB: kb / 1024, code: r.status ?? -1, lastLine: lastLineOf(outFile) };
  } finally {
    closeSync(fd);
  }
}

/** The last line of a file (kubectl's output at 50,000 pods is over 500 MB: only its end is read). */
function lastLineOf(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(Math.min(size, 65_536));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    const text = tail.toString('utf8').trimEnd();
    return text.slice(text.lastIndexOf('\n') + 1);
  } finally {
    closeSync(fd);
  }
}

export interface Serve {
  server: SpawnedServer;
  monitoring: number;
  spawnedAt: number;
}

/** `serve` (with `--reconcile` when asked) against the plane; resolves at its first 200. */
export async function startServe(certs: CertFiles, kubeconfig: string, reconcile: boolean, readyBody: Buffer): Promise<Serve> {
  const monitoring = await freePort();
  const spawnedAt = performance.now();
  const server = await startCommand(
    (port) => ({
      command: process.execPath,
      args: [
        builtCli(),
        'serve',
        '--port',
        String(port),
        '--address',
        '127.0.0.1',
        '--tls-cert',
        certs.cert,
        '--tls-key',
        certs.key,
        '--monitoring-port',
        String(monitoring),
        '--log-level',
        'warn',
        ...(reconcile ? ['--reconcile'] : []),
      ],
      env: { ...process.env, KUBECONFIG: kubeconfig },
    }),
    readyBody,
  );
  return { server, monitoring, spawnedAt };
}

/** serve's `/metrics` (prom-client's process metrics included; a scrape resets the event-loop histogram). */
export async function scrape(monitoring: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${monitoring}/metrics`)).text();
}

/** One sample of a scrape, by its full name (labels included). */
export function sample(text: string, name: string): number | undefined {
  const m = new RegExp(`^${name.replace(/[{}]/g, '\\$&')} ([0-9.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

/** The reconciler's pods (the sum of `sidecar_injector_pods`), undefined before its first count. */
export async function podsCounted(monitoring: number): Promise<number | undefined> {
  const text = await scrape(monitoring);
  const values = [...text.matchAll(/^sidecar_injector_pods\{state="\w+"\} (\d+)$/gm)].map((m) => Number(m[1]));
  return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0);
}

export async function waitCount(monitoring: number, pods: number, timeoutMs: number): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    if ((await podsCounted(monitoring).catch(() => undefined)) === pods) return performance.now();
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the reconciler did not count ${pods} pods within ${timeoutMs / 1000} s (last: ${await podsCounted(monitoring).catch(() => undefined)})`);
}

/**
 * Resident memory once settled, and at its peak, MiB: sampled every 5 s until three samples in a
 * row agree within 3 % (V8 gives back the heap a list grew only when idle for a while; its
 * memory reducer typically runs 20-40 s after the work), at most `maxS`.
 */
export async function settledRss(pid: number, maxS = 120): Promise<{ rssMiB: number; hwmMiB: number; afterS: number }> {
  const t0 = performance.now();
  const rss: number[] = [];
  for (;;) {
    rss.push((procSample(pid)?.rssBytes ?? Number.NaN) / 2 ** 20);
    const last = rss.slice(-3);
    const steady = last.length === 3 && Math.max(...last) <= Math.min(...last) * 1.03;
    if (steady || (performance.now() - t0) / 1000 >= maxS) break;
    await new Promise((r) => setTimeout(r, 5000));
  }
  return { rssMiB: median(rss.slice(-3)), hwmMiB: (procSample(pid)?.hwmBytes ?? Number.NaN) / 2 ** 20, afterS: (performance.now() - t0) / 1000 };
}

export interface RateRun {
  due: number;
  created: number;
  failed: number;
  seconds: number;
}

/** Create `make(i)` in `namespace` at `rate` per second for `seconds` (open loop); `onCreated` after each 201. */
export async function createAtRate(
  client: ScaleClient,
  namespace: string,
  rate: number,
  seconds: number,
  make: (i: number) => Obj,
  onCreated?: () => void,
): Promise<RateRun> {
  const t0 = performance.now();
  const total = Math.round(rate * seconds);
  const inFlight: Promise<void>[] = [];
  let created = 0;
  let failed = 0;
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(
      client.json('POST', `/api/v1/namespaces/${namespace}/pods`, make(i)).then(
        () => {
          created++;
          onCreated?.();
        },
        () => void failed++,
      ),
    );
  }
  await Promise.all(inFlight);
  return { due: total, created, failed, seconds: (performance.now() - t0) / 1000 };
}

/** Delete every pod of the namespace and wait until the apiserver lists none. */
export async function emptyNamespace(client: ScaleClient, namespace: string): Promise<void> {
  await client.json('DELETE', `/api/v1/namespaces/${namespace}/pods`).catch((err: unknown) => {
    if (!(err instanceof HttpError && err.status === 404)) throw err;
  });
  for (let i = 0; i < 600; i++) {
    const list = await client.json('GET', `/api/v1/namespaces/${namespace}/pods?limit=1`);
    if ((list.items as unknown[]).length === 0) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`pods of ${namespace} still there after 5 min`);
}
