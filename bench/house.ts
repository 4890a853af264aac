/**
 * @module bench/house
 * Issue 35's before-and-after table: built checkouts of the CLI (DIRs, e.g. the commit before
 * the house work and this one), measured in alternating rounds on one machine:
 * - the size of src: files, non-test TypeScript files and their lines;
 * - `serve`: spawn to Ready (`/readyz` 200) and idle RSS one second after Ready;
 * - with KUBECONFIG: `serve --reconcile` the same (it loads the Kubernetes client), and
 *   `status -A` wall time and peak RSS against that cluster;
 * - `inject -f` of a 500-Deployment manifest: wall time and peak RSS (outputs compared).
 * The load average is printed at start and end; numbers from a busy machine are flagged.
 *
 *   npx tsx bench/house.ts [--rounds 7] DIR [DIR...]
 * where each DIR is a built checkout: `git worktree add DIR C && (cd DIR && npm ci)`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median } from './lib/stats.js';
import { quietLine, quietness } from './lib/quiet.js';

const argv = process.argv.slice(2);
const take = (flag: string): string | undefined => {
  const i = argv.indexOf(flag);
  return i === -1 ? undefined : argv.splice(i, 2)[1];
};
const rounds = Number(take('--rounds') ?? 7);
const dirs = argv.map((d) => resolve(d));
if (dirs.length === 0) throw new Error('usage: house.ts [--rounds N] DIR [DIR...]');
const kubeconfig = process.env.KUBECONFIG;
const work = mkdtempSync(join(tmpdir(), 'house-'));
const bin = (dir: string) => join(dir, 'dist/bin/sidecar-injector.mjs');
// Loaded before the CLI: reports this process's peak RSS (KiB) on stderr when it exits.
const RSS_HOOK = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\nMAX_RSS_KB '+process.resourceUsage().maxRSS+'\\n'))`;

function srcSize(dir: string): { files: number; tsFiles: number; lines: number } {
  let files = 0;
  let tsFiles = 0;
  let lines = 0;
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else {
        files++;
        if (name.endsWith('.ts') && !name.endsWith('.test.ts')) {
          tsFiles++;
          lines += readFileSync(p, 'utf8').split('\n').length - 1;
        }
      }
    }
  };
  walk(join(dir, 'src'));
  return { files, tsFiles, lines };
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

const ready = (port: number): Promise<boolean> =>
  new Promise((res) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false, timeout: 1000 }, (r) => {
      r.resume();
      res(r.statusCode === 200);
    });
    req.on('error', () => res(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });

const rssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;

async function serveOnce(dir: string, extra: string[]): Promise<{ readyMs: number; rss: number }> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [bin(dir), 'serve', '--port', String(port), '--address', '127.0.0.1', '--tls-dir', join(work, 'certs'), '--log-level', 'warn', ...extra],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  try {
    while (!(await ready(port))) {
      if (child.exitCode !== null) throw new Error(`${dir} serve exited ${child.exitCode}: ${stderr.slice(0, 2000)}`);
      if (performance.now() - started > 60_000) throw new Error(`${dir} serve not Ready in 60 s: ${stderr.slice(0, 2000)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const readyMs = performance.now() - started;
    await new Promise((r) => setTimeout(r, 1000));
    return { readyMs, rss: rssMiB(child.pid!) };
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('close', r));
  }
}

function cliOnce(dir: string, args: string[], out: string, exits: number[] = [0]): { ms: number; rss: number } {
  const s = performance.now();
  const p = spawnSync(process.execPath, ['--import', RSS_HOOK, bin(dir), ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = performance.now() - s;
  const m = /MAX_RSS_KB (\d+)/.exec(p.stderr);
  if (!exits.includes(p.status ?? -1) || m === null) throw new Error(`${dir} ${args.join(' ')} exited ${p.status}: ${p.stderr.slice(0, 2000)}`);
  writeFileSync(out, p.stdout);
  return { ms, rss: Number(m[1]) / 1024 };
}

function manifest500(): string {
  const docs: string[] = [];
  for (let i = 0; i < 500; i++)
    docs.push(
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-${i}\n  namespace: shop\nspec:\n  selector:\n    matchLabels: {app: app-${i}}\n  template:\n    metadata:\n      labels: {app: app-${i}}\n    spec:\n      containers:\n      - name: app\n        image: registry.example/app:${i}\n        ports:\n        - containerPort: 8080\n`,
    );
  const path = join(work, 'deployments.yaml');
  writeFileSync(path, docs.join('---\n'));
  return path;
}

const loadStart = loadavg();
const certs = spawnSync(process.execPath, [bin(dirs[0]), 'certs', '--service', 'si', '-n', 'x', '--out', join(work, 'certs')], { encoding: 'utf8' });
if (certs.status !== 0) throw new Error(certs.stderr);
const deployments = manifest500();

type Row = Record<string, number[]>;
const rows: Row[] = dirs.map(() => ({}));
const push = (i: number, key: string, v: number) => (rows[i][key] ??= []).push(v);
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < dirs.length; k++) {
    const i = (k + r) % dirs.length;
    const serve = await serveOnce(dirs[i], []);
    push(i, 'serve Ready (ms)', serve.readyMs);
    push(i, 'serve idle RSS (MiB)', serve.rss);
    if (kubeconfig !== undefined) {
      const rec = await serveOnce(dirs[i], ['--reconcile', '--kubeconfig', kubeconfig]);
      push(i, 'serve --reconcile Ready (ms)', rec.readyMs);
      push(i, 'serve --reconcile RSS 1 s after Ready (MiB)', rec.rss);
      // 9: drift found (pods without a current sidecar), a report like 0.
      const status = cliOnce(dirs[i], ['status', '-A', '-o', 'json'], join(work, `status-${i}.json`), [0, 9]);
      push(i, 'status -A (ms)', status.ms);
      push(i, 'status -A peak RSS (MiB)', status.rss);
    }
    const inj = cliOnce(dirs[i], ['inject', '-f', deployments], join(work, `inject-${i}.yaml`));
    push(i, 'inject 500 Deployments (ms)', inj.ms);
    push(i, 'inject 500 Deployments peak RSS (MiB)', inj.rss);
  }
}
const loadEnd = loadavg();

const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(1));
const sizes = dirs.map(srcSize);
const keys = Object.keys(rows[0]);
const commit = (dir: string): string => {
  const r = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8' });
  return r.status === 0 ? ` (${r.stdout.trim()})` : '';
};
const header = `| | ${dirs.map((d) => `${d.split('/').at(-1)}${commit(d)}`).join(' | ')} |`;
const lines = [header, `|---|${dirs.map(() => '---:').join('|')}|`];
lines.push(`| files in src | ${sizes.map((s) => s.files).join(' | ')} |`);
lines.push(`| non-test .ts files in src | ${sizes.map((s) => s.tsFiles).join(' | ')} |`);
lines.push(`| non-test lines in src | ${sizes.map((s) => s.lines).join(' | ')} |`);
for (const key of keys) lines.push(`| ${key}, median of ${rounds} | ${rows.map((row) => fmt(median(row[key]))).join(' | ')} |`);
const sameInject = dirs.every((_d, i) => readFileSync(join(work, `inject-${i}.yaml`)).equals(readFileSync(join(work, 'inject-0.yaml'))));
process.stdout.write(`${lines.join('\n')}\n\n`);
process.stdout.write(`inject outputs ${sameInject ? 'are the same bytes' : 'DIFFER'}; rounds alternate the order of the builds\n`);
process.stdout.write(`load average at start ${loadStart.map((l) => l.toFixed(2)).join(' ')}, at end ${loadEnd.map((l) => l.toFixed(2)).join(' ')} (2 cores)\n`);
process.stdout.write(`the machine was ${quietLine(quietness(loadStart), false)}\n`);
rmSync(work, { recursive: true, force: true });
