/**
 * @module bench/lib/micro
 * Measurements that are not about HTTP throughput, all on the built code (`dist/`):
 * - one injection of F3 (2,000 env vars): the core alone and the whole admission handler
 *   in-process, and the request over keep-alive HTTPS to the running server;
 * - the CLI: `sidecar-injector inject -f` on M200 and M1000 as cold processes (wall time from
 *   spawn to exit, output written to a file), next to `node -e 0`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Agent } from 'node:https';
import { builtCli, postOnce, REPO_ROOT } from '../../test/support/server-process.js';
import { median } from './stats.js';

export interface Timing {
  /** The first call in a fresh module state (includes lazy compilation), ms. */
  firstMs: number;
  medianMs: number;
  maxMs: number;
  runs: number;
}

function timeIt(fn: () => void, runs: number, warmup: number): Timing {
  const t0 = performance.now();
  fn();
  const firstMs = performance.now() - t0;
  for (let i = 0; i < warmup; i++) fn();
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    fn();
    xs.push(performance.now() - s);
  }
  return { firstMs, medianMs: median(xs), maxMs: Math.max(...xs), runs };
}

interface DistModules {
  injectPod: (pod: unknown, ctx: { namespace: string; mode: 'webhook' }, config: unknown) => { kind: string; patch?: unknown[] };
  defaultConfig: () => unknown;
  createHandler: (o: {
    inject: unknown;
    getConfig: () => unknown;
  }) => (call: { body: Buffer; path: string; query: string; startedAt: number }) => { status: number; body: string };
}

async function loadDist(): Promise<DistModules> {
  const dist = (p: string): string => pathToFileURL(join(REPO_ROOT, 'dist', p)).href;
  const inject = (await import(dist('inject/index.js'))) as Pick<DistModules, 'injectPod'>;
  const config = (await import(dist('profiles/index.js'))) as Pick<DistModules, 'defaultConfig'>;
  const handler = (await import(dist('admission/handler.js'))) as Pick<DistModules, 'createHandler'>;
  return { injectPod: inject.injectPod, defaultConfig: config.defaultConfig, createHandler: handler.createHandler };
}

export interface F3Result {
  core: Timing;
  handler: Timing;
  patchOps: number;
  http?: Timing;
}

/** F3 through the built core and handler in this process. */
export async function measureF3(body: Buffer, runs = 30): Promise<F3Result> {
  const m = await loadDist();
  const config = m.defaultConfig();
  const review = JSON.parse(body.toString('utf8')) as { request: { object: unknown; namespace: string } };
  let ops = 0;
  const core = timeIt(
    () => {
      // The handler drops managedFields before calling the core; the core alone gets the same pod.
      const r = m.injectPod(review.request.object, { namespace: review.request.namespace, mode: 'webhook' }, config);
      ops = r.patch?.length ?? 0;
    },
    runs,
    5,
  );
  const handle = m.createHandler({ inject: m.injectPod, getConfig: () => config });
  const handler = timeIt(
    () => {
      const r = handle({ body, path: '/inject', query: 'timeout=10s', startedAt: performance.now() });
      if (r.status !== 200) throw new Error(`F3 got HTTP ${r.status}: ${r.body.slice(0, 300)}`);
    },
    runs,
    5,
  );
  return { core, handler, patchOps: ops };
}

/** Sequential POSTs of `body` on one keep-alive connection; the first one opens it. */
export async function measureHttp(port: number, body: Buffer, path: string, runs = 30): Promise<Timing> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  const xs: number[] = [];
  let firstMs = Number.NaN;
  try {
    for (let i = 0; i < runs + 3; i++) {
      const s = performance.now();
      const status = await postOnce(port, body, path, agent);
      const ms = performance.now() - s;
      if (status !== 200) throw new Error(`HTTP ${status}`);
      if (i === 0) firstMs = ms;
      if (i >= 3) xs.push(ms);
    }
  } finally {
    agent.destroy();
  }
  return { firstMs, medianMs: median(xs), maxMs: Math.max(...xs), runs };
}

export interface CliResult {
  documents: number;
  bytes: number;
  wallMs: number[];
  medianMs: number;
  baselineMs: number;
  outputBytes: number;
  injected: number;
}

function wall(args: string[], cwd: string): { ms: number; status: number | null; stderr: string } {
  const s = performance.now();
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { ms: performance.now() - s, status: r.status, stderr: r.stderr };
}

/** Cold `inject -f FILE -o OUT -q`, median of `reps`; also `node -e 0` for the floor. */
export function measureCli(manifest: string, documents: number, out: string, reps = 5): CliResult {
  const main = builtCli();
  const base = Array.from({ length: reps }, () => wall(['-e', '0'], REPO_ROOT).ms);
  const xs: number[] = [];
  for (let i = 0; i < reps; i++) {
    const r = wall([main, 'inject', '-f', manifest, '-o', out, '-q'], REPO_ROOT);
    if (r.status !== 0) throw new Error(`inject -f ${manifest} exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
    xs.push(r.ms);
  }
  const text = readFileSync(out, 'utf8');
  return {
    documents,
    bytes: statSync(manifest).size,
    wallMs: xs,
    medianMs: median(xs),
    baselineMs: median(base),
    outputBytes: text.length,
    injected: (text.match(/sidecar\.istio\.io\/status/g) ?? []).length,
  };
}
