/**
 * Size and cold start of the single executable against the npm package's bundle run by node
 * (`node dist/bin/sidecar-injector.mjs`), measured in the same run, alternating, pinned to
 * core 0 when taskset exists: `--version` and `inject -f` the README example (spawn to exit),
 * and `serve` (spawn to the first HTTP 200 of an admission request, as in bench/lib/servers.ts);
 * wall time and the process's CPU time for each.
 *
 *   npm run build && npm run build:exe && npx tsx bench/exe.ts [--reps 11]
 *
 * Prints a Markdown block for bench/RESULTS.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, pinned, REPO_ROOT, spawnServer, waitReady } from '../test/support/server-process.js';
import { procSample } from '../test/support/proc-stats.js';
import { EXE_NAME } from '../scripts/release/image-spec.js';
import { quietLine, quietness } from './lib/quiet.js';

const repsAt = process.argv.indexOf('--reps');
const REPS = repsAt > 0 ? Number(process.argv[repsAt + 1]) : 11;
const CPUS = '0';
const EXE = join(REPO_ROOT, 'out', EXE_NAME);
const BUNDLE = join(REPO_ROOT, 'dist', 'bin', 'sidecar-injector.mjs');
const EXAMPLE = join(REPO_ROOT, 'examples', 'istio-proxy', 'app.yaml');
const REVIEW = readFileSync(join(REPO_ROOT, 'examples', 'admission', 'review-v1.json'));

type Variant = { name: string; command: string; prefix: string[] };
const variants: Variant[] = [
  { name: 'node + bundle', command: process.execPath, prefix: [BUNDLE] },
  { name: 'single executable', command: EXE, prefix: [] },
];
// Extra executables to compare (e.g. built with other options): --also LABEL=PATH
for (let i = process.argv.indexOf('--also'); i > 0; i = process.argv.indexOf('--also', i + 1)) {
  const [name, command] = (process.argv[i + 1] ?? '').split('=');
  variants.push({ name, command, prefix: [] });
}

/** Wall time and CPU time (user + system), ms. CPU time suffers less from a busy machine. */
interface Sample {
  wall: number;
  cpu: number;
}
const TIMES = join(mkdtempSync(join(tmpdir(), 'si-bench-exe-')), 'times');

function once(v: Variant, args: string[]): Sample {
  const [cmd, argv] = pinned(CPUS, '/usr/bin/time', ['-f', '%U %S', '-o', TIMES, v.command, ...v.prefix, ...args]);
  const t0 = performance.now();
  const r = spawnSync(cmd, argv, { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${v.name} ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  const [user, sys] = readFileSync(TIMES, 'utf8').trim().split(/\s+/).slice(-2).map(Number);
  return { wall, cpu: (user + sys) * 1000 };
}

async function serveOnce(v: Variant): Promise<Sample> {
  const port = await freePort();
  const spawnedAt = performance.now();
  const server = spawnServer({
    command: v.command,
    args: [...v.prefix, 'serve', '--port', String(port), '--address', '127.0.0.1'],
    cpus: CPUS,
    cwd: REPO_ROOT,
  });
  server.port = port;
  try {
    const wall = await waitReady(server, REVIEW, { spawnedAt, intervalMs: 2 });
    const cpu = (procSample(server.pid)?.cpuSeconds ?? Number.NaN) * 1000;
    return { wall, cpu };
  } finally {
    await server.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const bundleBytes = readdirSync(join(REPO_ROOT, 'dist', 'bin')).reduce((n, f) => n + statSync(join(REPO_ROOT, 'dist', 'bin', f)).size, 0);
const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

const load0 = loadavg();
const cases: [string, (v: Variant) => Promise<Sample> | Sample][] = [
  ['`--version` (spawn to exit)', (v) => once(v, ['--version'])],
  ['`inject -f examples/istio-proxy/app.yaml` (spawn to exit)', (v) => once(v, ['inject', '-f', EXAMPLE, '-q'])],
  ['`serve`, dev certificate: spawn to first 200 on /inject', (v) => serveOnce(v)],
];
const rows: string[] = [];
for (const [label, fn] of cases) {
  const times = new Map<string, Sample[]>(variants.map((v) => [v.name, []]));
  await fn(variants[0]); // warm the page cache for both files
  await fn(variants[1]);
  for (const v of variants.slice(2)) await fn(v);
  for (let i = 0; i < REPS; i++) for (const v of variants) times.get(v.name)?.push(await fn(v));
  for (const kind of ['wall', 'cpu'] as const) {
    const [base, ...others] = variants.map((v) => median((times.get(v.name) ?? []).map((x) => x[kind])));
    rows.push(
      `| ${label}, ${kind === 'wall' ? 'wall time' : 'CPU time (user + system)'} | ${base.toFixed(0)} ms | ${others.map((t) => `${t.toFixed(0)} ms (${(t / base).toFixed(2)}x)`).join(' | ')} |`,
    );
  }
}
const load1 = loadavg();
const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout.trim();
console.log(`### Single executable vs node + bundle (${new Date().toISOString().slice(0, 10)})

- Node ${process.version}, commit ${commit}, ${REPS} alternating runs each, median, pinned to core ${CPUS}; load average ${load0.map((l) => l.toFixed(2)).join(' / ')} at start, ${load1.map((l) => l.toFixed(2)).join(' / ')} at end; ${quietLine(quietness(load0), false)}
- Command: \`npm run build && npm run build:exe && npx tsx bench/exe.ts --reps ${REPS}\`

| Size | |
|---|---|
| \`${EXE_NAME}\` (node + CLI + assets, one file) | ${mib(statSync(EXE).size)} |
| node binary alone (\`${process.execPath}\`) | ${mib(statSync(process.execPath).size)} |
| \`dist/bin/\` bundle (what \`node dist/bin/...\` loads) | ${mib(bundleBytes)} |

| Cold start | ${variants.map((v) => v.name).join(' | ')} |
|---|${variants.map(() => '---|').join('')}
${rows.join('\n')}`);
