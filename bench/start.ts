/**
 * How long `serve` takes from spawn to ready, and what each part of its start costs (issue 37
 * item 4: ready at most 0.5 s after spawn). Per round, in an order that rotates so every variant
 * sees the same machine: `node -e 0` (spawn to exit: what any Node program costs before its
 * first line), then `serve` from the built bundle with the built-in config and with Istio's
 * rendered config (e2e/build/istio.sh), each with its default warm-up and with `--warmup 0`;
 * ready is the first 200 from `/readyz`, polled every 5 ms. Then one profiled start of each
 * config (`--cpu-prof`, not timed) split into its parts (bench/lib/start-profile.ts).
 *
 *   npm run bench:start [-- --rounds 9] [--no-build] [--no-istio]
 *
 * Prints Markdown for bench/RESULTS.md and writes .bench-tmp/start/results.json.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { findIstioPeer, writePeerConfigDir } from '../test/support/istio-peer.js';
import { buildProject, REPO_ROOT } from '../test/support/server-process.js';
import { buildScript } from './lib/cluster-setup.js';
import { quietLine, quietness, verdict } from './lib/quiet.js';
import { writeCertificate } from './lib/servers.js';
import { START_PARTS, startParts, type StartProfile } from './lib/start-profile.js';
import { fmt, median } from './lib/stats.js';

const argv = process.argv.slice(2);
const has = (flag: string): boolean => argv.includes(flag);
const ROUNDS = has('--rounds') ? Number(argv[argv.indexOf('--rounds') + 1]) : 9;
const WORK = join(REPO_ROOT, '.bench-tmp', 'start');
const BUNDLE = join(REPO_ROOT, 'dist', 'bin', 'sidecar-injector.mjs');
const PORT = 19_700;
const GOAL_MS = 500;

const readyz = (port: number): Promise<number> =>
  new Promise((resolve) => {
    const r = request({ host: '127.0.0.1', port, path: '/readyz' }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    r.on('error', () => resolve(0));
    r.end();
  });

/** Spawn `serve`, ms until `/readyz` says 200; then stop it and wait for its exit. */
async function readyAfter(args: readonly string[], nodeFlags: readonly string[] = []): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeFlags, BUNDLE, 'serve', '--port', String(PORT), '--monitoring-port', String(PORT + 1), ...args], {
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`serve ${args.join(' ')} exited with ${child.exitCode} before it was ready`);
      if ((await readyz(PORT + 1)) === 200) return performance.now() - t0;
      if (performance.now() - t0 > 30_000) throw new Error(`serve ${args.join(' ')} not ready after 30 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

function nodeAlone(): number {
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const loadStart = loadavg().map((x) => Math.round(x * 100) / 100);
  if (!has('--no-build')) buildProject();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const certs = await writeCertificate(join(WORK, 'certs'));
  const tls = ['--tls-cert', certs.cert, '--tls-key', certs.key];
  const configs: [string, string[]][] = [['built-in', []]];
  if (!has('--no-istio')) {
    const peer = findIstioPeer(buildScript('istio.sh'));
    if (peer === undefined) throw new Error('e2e/build/istio.sh built no complete Istio peer');
    configs.push(["Istio's", ['--config', writePeerConfigDir(peer, join(WORK, 'istio-config'), { nativeSidecars: true })]]);
  }
  const variants: { name: string; run: () => Promise<number> }[] = [{ name: 'node -e 0', run: async () => nodeAlone() }];
  for (const [name, args] of configs) {
    variants.push({ name: `${name} config`, run: () => readyAfter([...tls, ...args]) });
    variants.push({ name: `${name} config, --warmup 0`, run: () => readyAfter([...tls, ...args, '--warmup', '0']) });
  }
  const times = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + round) % variants.length];
      times.get(v.name)?.push(await v.run());
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS}\n`);
  }
  const profiles: [string, StartProfile][] = [];
  for (const [name, args] of configs) {
    const dir = join(WORK, `profile-${profiles.length}`);
    await readyAfter([...tls, ...args], ['--cpu-prof', '--cpu-prof-dir', dir]);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error(`no CPU profile in ${dir}`);
    profiles.push([name, startParts(JSON.parse(readFileSync(join(dir, file), 'utf8')))]);
  }
  const loadEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  const q = quietness(loadStart, cpus().length);
  const node = median(times.get('node -e 0') ?? []);
  const lines = [
    `Commit ${spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout.trim()}, ${ROUNDS} rounds, Node ${process.version}. Load average at start ${loadStart.join(' ')}, at end ${loadEnd.join(' ')}: ${quietLine(q)}.`,
    '',
    '| Start | Ready after spawn, ms (median) | min / max | above `node -e 0`, ms | Goal ≤ 500 ms |',
    '|---|---|---|---|---|',
  ];
  for (const v of variants) {
    const xs = times.get(v.name) ?? [];
    const m = median(xs);
    const goal = v.name.endsWith('config') ? verdict(m <= GOAL_MS, q) : '';
    lines.push(
      `| ${v.name} | ${fmt(m, 0)} | ${fmt(Math.min(...xs), 0)} / ${fmt(Math.max(...xs), 0)} | ${v.name === 'node -e 0' ? '' : fmt(m - node, 0)} | ${goal} |`,
    );
  }
  lines.push('', `One profiled start each (\`--cpu-prof\`, which slows it; ms of the profile, which begins after node's own bootstrap):`, '');
  lines.push(`| Config | profile span | ${START_PARTS.join(' | ')} |`, `|---|---|${START_PARTS.map(() => '---|').join('')}`);
  for (const [name, p] of profiles) lines.push(`| ${name} | ${fmt(p.spanMs, 0)} | ${START_PARTS.map((k) => fmt(p.parts[k], 0)).join(' | ')} |`);
  const text = lines.join('\n');
  process.stdout.write(`${text}\n`);
  writeFileSync(
    join(WORK, 'results.json'),
    JSON.stringify({ loadStart, loadEnd, times: Object.fromEntries(times), profiles: Object.fromEntries(profiles) }, null, 2),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
