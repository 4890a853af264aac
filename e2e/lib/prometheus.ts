/**
 * @module e2e/lib/prometheus
 * The real Prometheus 3.16 (built by e2e/build/prometheus.sh) on loopback, with a storage
 * directory of its own, and its HTTP API: instant queries, the loaded rules and the alerts.
 * Only the HTTP API is used (the binary is built without the web UI's assets).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../../test/support/server-process.js';
import { waitFor } from './kube.js';

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}
type QueryResult = { ok: true; series: Sample[] } | { ok: false; error: string };
export interface ActiveAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
  activeAt: string;
  value: string;
}
interface RuleState {
  name: string;
  health: string;
  lastError?: string;
  state?: string;
  type: string;
}

export interface RunningPrometheus {
  url: string;
  dir: string;
  query(expr: string): Promise<QueryResult>;
  alerts(): Promise<ActiveAlert[]>;
  rules(): Promise<RuleState[]>;
  output(): string;
  stop(): Promise<void>;
}

async function api<T>(url: string): Promise<{ status: string; data?: T; error?: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return (await res.json()) as { status: string; data?: T; error?: string };
}

/** Start Prometheus with this configuration (`rule_files` names files written next to it: pass them in `files`). */
export async function startPrometheus(bin: string, config: Record<string, unknown>, files: Record<string, string>): Promise<RunningPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'si-e2e-prometheus-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  await writeFile(join(dir, 'prometheus.yml'), stringify(config));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let out = '';
  const child: ChildProcess = spawn(
    bin,
    [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const keep = (chunk: Buffer): void => {
    out = (out + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  await waitFor(
    'Prometheus to be ready',
    async () => {
      if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}: ${out}`);
      return (await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200;
    },
    60_000,
    200,
  );
  return {
    url,
    dir,
    async query(expr) {
      const r = await api<{ resultType: string; result: Sample[] }>(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      return r.status === 'success' ? { ok: true, series: r.data!.result } : { ok: false, error: r.error ?? JSON.stringify(r) };
    },
    async alerts() {
      return (await api<{ alerts: ActiveAlert[] }>(`${url}/api/v1/alerts`)).data?.alerts ?? [];
    },
    async rules() {
      const groups = (await api<{ groups: Array<{ rules: RuleState[] }> }>(`${url}/api/v1/rules`)).data?.groups ?? [];
      return groups.flatMap((g) => g.rules);
    },
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
