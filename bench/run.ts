/**
 * @module bench/run
 * The webhook benchmark (issue 6; method in performance.md sections 2-4). Measures the built
 * server (`dist/`) against the anchor (bench/anchor.js: bare node:https, parse, answer allowed)
 * in the same run, alternating anchor and ours pair by pair, and reports the median of the
 * per-pair ratios, every raw number, the server CPU share, and the anchor's spread (a run whose
 * anchor moved more than 10 % is flagged). Then F3 and the CLI, and optionally Pepr 1.1.4 side
 * by side. See bench/README.md for what each number means.
 *
 *   npm run bench -- [--quick] [--pairs 3] [--duration 10] [--warmup 3] [--connections 10]
 *                    [--rate 1000] [--cold 7] [--only cold,throughput,latency,f3,cli,pepr]
 *                    [--no-pepr] [--pepr-rate 200] [--no-build] [--no-install] [--write]
 *                    [--ours-flag=--log-level=warn ...]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { procSample } from '../src/testing/proc-stats.js';
import { buildProject, REPO_ROOT } from '../src/testing/server-process.js';
import { sendOne, makeAgent } from '../src/testing/load-client.js';
import { writeFixtures, type FixtureName } from './fixtures.js';
import { benchEnv } from './lib/env.js';
import { fixedRate, maxThroughput, WEBHOOK_PATH, type Target } from './lib/load.js';
import { measureCli, measureF3, measureHttp } from './lib/micro.js';
import { runPepr } from './lib/pepr-run.js';
import { evaluateTargets, renderMarkdown, writeResultsFile } from './lib/report.js';
import { coldStart, startServer, writeCertificate, type ServerSpec } from './lib/servers.js';
import { MAX_ANCHOR_SPREAD, median, spread } from './lib/stats.js';
import { ensureTools } from './lib/tools.js';
import type { BenchResults, FixtureCheck, LatencyPair, PerFixture, Settings, ThroughputPair } from './lib/types.js';

const argv = process.argv.slice(2);
const has = (f: string): boolean => argv.includes(f);
function num(flag: string, fallback: number): number {
  const i = argv.indexOf(flag);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
}
const QUICK = has('--quick');
const ONLY = new Set((argv[argv.indexOf('--only') + 1] ?? '').split(',').filter((s) => has('--only') && s !== ''));
const want = (part: string): boolean => (ONLY.size === 0 ? part !== 'pepr' || !has('--no-pepr') : ONLY.has(part));

const settings: Settings = {
  pairs: num('--pairs', 3),
  warmupS: num('--warmup', QUICK ? 1 : 3),
  durationS: num('--duration', QUICK ? 3 : 10),
  connections: num('--connections', 10),
  rate: num('--rate', 1000),
  coldReps: num('--cold', QUICK ? 3 : 7),
  peprRate: num('--pepr-rate', 200),
  oursFlags: argv.filter((a) => a.startsWith('--ours-flag=')).map((a) => a.slice('--ours-flag='.length)),
  command: `npm run bench -- ${argv.join(' ')}`.trim(),
  tools: { taskset: false, notes: [] },
};

const FIXTURES_UNDER_LOAD: FixtureName[] = ['F1', 'F2'];

function log(line: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

async function checkFixtures(port: number, bodies: Record<FixtureName, Buffer>, sizes: Record<FixtureName, number>): Promise<FixtureCheck[]> {
  const agent = makeAgent(1, {});
  const out: FixtureCheck[] = [];
  const expect: Record<FixtureName, string> = { F1: 'patch', F2: 'patch', F3: 'patch', F4: 'no patch (skipped)', F5: 'no patch (already injected)' };
  for (const name of Object.keys(bodies) as FixtureName[]) {
    let parsed: { response?: { allowed?: boolean; patch?: string } } = {};
    const r = await sendOne(agent, { port }, { kind: 'valid', label: name, path: WEBHOOK_PATH, headers: { 'Content-Type': 'application/json' }, body: bodies[name], check: (_s, b) => void (parsed = JSON.parse(b.toString('utf8')) as typeof parsed) }, performance.now());
    const patch = parsed.response?.patch;
    const ops = patch === undefined ? 0 : (JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as unknown[]).length;
    const wantsPatch = expect[name] === 'patch';
    out.push({ name, bytes: sizes[name], status: r.status, allowed: parsed.response?.allowed === true, patchOps: ops, patchBytes: patch?.length ?? 0, expected: expect[name], ok: r.status === 200 && parsed.response?.allowed === true && (ops > 0) === wantsPatch });
  }
  agent.destroy();
  return out;
}

function perFixture<T>(pairs: T[], anchorValue: (p: T) => number, extra: Partial<PerFixture<T>>): PerFixture<T> {
  const s = spread(pairs.map(anchorValue));
  return { pairs, anchorSpread: s, flagged: s > MAX_ANCHOR_SPREAD, ...extra };
}

async function main(): Promise<void> {
  const env = benchEnv();
  log(`Node ${env.node}, ${env.cores} x ${env.cpu}, load ${env.loadStart.join(' ')}, commit ${env.commit}${env.dirty ? ' (dirty tree)' : ''}`);
  if (!env.coreWired.source) log('WARNING: src/cli/serve.ts does not import injectPod from the core: serve runs a stand-in');
  if (!has('--no-build')) {
    log('npm run build');
    buildProject();
  }
  env.coreWired = benchEnv().coreWired;
  const tools = ensureTools(!has('--no-install'));
  settings.tools = { wrk: tools.wrk, h2load: tools.h2load, taskset: tools.taskset, notes: tools.notes };
  for (const n of tools.notes) log(n);

  const work = join(REPO_ROOT, '.bench-tmp', 'run');
  mkdirSync(work, { recursive: true });
  const fx = await writeFixtures(join(work, 'fixtures'));
  const certs = await writeCertificate(join(work, 'tls'));
  const bodies = Object.fromEntries(Object.entries(fx.reviews).map(([k, p]) => [k, readFileSync(p)])) as Record<FixtureName, Buffer>;
  const anchorSpec: ServerSpec = { kind: 'anchor', certs };
  const oursSpec: ServerSpec = { kind: 'ours', certs, flags: settings.oursFlags };
  const results: BenchResults = { env, settings, fixtures: [], targets: [], notes: [...tools.notes] };
  if (!env.coreWired.built) results.notes.push('the built serve does not import the real injection core: these numbers measure a stand-in');

  {
    const ours = await startServer(oursSpec, bodies.F1);
    try {
      results.fixtures = await checkFixtures(ours.port, bodies, fx.sizes);
    } finally {
      await ours.stop();
    }
    for (const f of results.fixtures) log(`${f.name}: ${f.bytes} B, HTTP ${f.status}, ${f.patchOps} patch ops (${f.expected}) ${f.ok ? 'ok' : 'UNEXPECTED'}`);
  }

  if (want('cold')) {
    log(`cold start x${settings.coldReps}, alternating`);
    const cold: NonNullable<BenchResults['cold']> = { anchor: [], ours: [] };
    for (let i = 0; i < settings.coldReps; i++) {
      cold.anchor.push(await coldStart(anchorSpec, bodies.F1));
      cold.ours.push(await coldStart(oursSpec, bodies.F1));
    }
    results.cold = cold;
    log(`cold start median: anchor ${median(cold.anchor.map((c) => c.readyMs)).toFixed(0)} ms, ours ${median(cold.ours.map((c) => c.readyMs)).toFixed(0)} ms`);
  }

  if (want('throughput') || want('latency') || want('f3')) {
    const anchor = await startServer(anchorSpec, bodies.F1);
    const ours = await startServer(oursSpec, bodies.F1);
    const targets: Record<'anchor' | 'ours', Target> = {
      anchor: { name: 'anchor', port: anchor.port, pid: anchor.pid, path: WEBHOOK_PATH },
      ours: { name: 'ours', port: ours.port, pid: ours.pid, path: WEBHOOK_PATH },
    };
    try {
      const opts = { connections: settings.connections, warmupS: settings.warmupS, durationS: settings.durationS, workDir: work };
      if (want('throughput')) {
        results.throughput = {};
        for (const f of FIXTURES_UNDER_LOAD) {
          const pairs: ThroughputPair[] = [];
          for (let i = 0; i < settings.pairs; i++) {
            const a = await maxThroughput(tools, targets.anchor, fx.reviews[f], opts);
            const o = await maxThroughput(tools, targets.ours, fx.reviews[f], opts);
            pairs.push({ anchor: a, ours: o, ratio: o.rps / a.rps });
            log(`${f} max RPS pair ${i + 1}: anchor ${a.rps.toFixed(0)} (cpu ${a.serverCpu?.toFixed(2)}), ours ${o.rps.toFixed(0)} (cpu ${o.serverCpu?.toFixed(2)}), ratio ${(o.rps / a.rps).toFixed(3)}`);
          }
          results.throughput[f] = perFixture(pairs, (p) => p.anchor.rps, { medianRatio: median(pairs.map((p) => p.ratio)) });
        }
      }
      if (want('latency')) {
        results.latency = {};
        for (const f of FIXTURES_UNDER_LOAD) {
          const pairs: LatencyPair[] = [];
          for (let i = 0; i < settings.pairs; i++) {
            const a = await fixedRate(tools, targets.anchor, fx.reviews[f], { ...opts, rate: settings.rate });
            const o = await fixedRate(tools, targets.ours, fx.reviews[f], { ...opts, rate: settings.rate });
            pairs.push({ anchor: a, ours: o, p99DiffMs: o.p99Ms - a.p99Ms });
            log(`${f} @${settings.rate} rps pair ${i + 1}: p99 anchor ${a.p99Ms.toFixed(2)} ms, ours ${o.p99Ms.toFixed(2)} ms (achieved ${a.achievedRps.toFixed(0)} / ${o.achievedRps.toFixed(0)} rps)`);
          }
          results.latency[f] = perFixture(pairs, (p) => p.anchor.p99Ms, { medianP99DiffMs: median(pairs.map((p) => p.p99DiffMs)) });
        }
      }
      if (want('f3')) {
        log('F3 over HTTPS (sequential, one keep-alive connection)');
        const http = await measureHttp(ours.port, bodies.F3, WEBHOOK_PATH);
        const httpAnchor = await measureHttp(anchor.port, bodies.F3, WEBHOOK_PATH);
        results.f3 = { ...(await measureF3(bodies.F3)), http, httpAnchor };
        log(`F3: core ${results.f3.core.medianMs.toFixed(2)} ms, handler ${results.f3.handler.medianMs.toFixed(2)} ms, HTTPS ${http.medianMs.toFixed(2)} ms (anchor ${httpAnchor.medianMs.toFixed(2)} ms)`);
      }
      results.peakRss = { anchor: procSample(anchor.pid)?.hwmBytes, ours: procSample(ours.pid)?.hwmBytes };
    } finally {
      await anchor.stop();
      await ours.stop();
    }
  }

  if (want('cli')) {
    log('CLI inject -f M200 and M1000, cold processes');
    results.cli = { m200: measureCli(fx.m200, 200, join(work, 'm200.out.yaml')), m1000: measureCli(fx.m1000, 1000, join(work, 'm1000.out.yaml')) };
    log(`CLI: M200 ${results.cli.m200.medianMs.toFixed(0)} ms, M1000 ${results.cli.m1000.medianMs.toFixed(0)} ms (node -e 0: ${results.cli.m1000.baselineMs.toFixed(0)} ms)`);
  }

  if (want('pepr')) {
    results.pepr = await runPepr({ tools, certs, bodies, fixtureFile: fx.reviews.F1, settings, work, anchorSpec, oursSpec, log });
  }

  env.loadEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  results.targets = evaluateTargets(results);
  writeFileSync(join(work, 'results.json'), JSON.stringify(results, null, 2));
  const md = renderMarkdown(results);
  process.stdout.write(`${md}\n`);
  if (has('--write')) {
    writeResultsFile(join(REPO_ROOT, 'bench', 'RESULTS.md'), md);
    log('bench/RESULTS.md updated');
  }
  log(`raw results: ${join(work, 'results.json')}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
