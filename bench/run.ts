/**
 * @module bench/run
 * The webhook benchmark (issue 6; method in performance.md sections 2-4). Measures the built
 * server (`dist/`) against the anchor (bench/anchor.js: bare node:https, parse, answer allowed)
 * in the same run, in rounds whose order rotates, and reports the median of the per-round
 * ratios to the anchor, every raw number, the server CPU share, and the anchor's spread (a run
 * whose anchor moved more than 10 % is flagged). Two comparisons, each with its own anchor runs:
 * - replica pods: the fixture's one body repeated, to the anchor and ours;
 * - every pod new: N distinct bodies in turn (bench/fixtures.ts variant sets), the same sequence
 *   to the anchor and to ours; plus one DaemonSet's pods (F1 differing
 *   only by node affinity), for information.
 * Then cold start, RSS, F3, the CLI, and Pepr 1.1.4 and Istio's own injector side by side (the
 * same two comparisons: replica pods on one body, every pod new on a variant set). See
 * bench/README.md for what each row sends and what each number means.
 *
 *   npm run bench -- [--quick] [--pairs 3] [--duration 10] [--warmup 3] [--connections 10]
 *                    [--rate 1000] [--cold 7] [--variants 512] [--only cold,throughput,latency,f3,cli,pepr]
 *                    [--no-pepr] [--pepr-rate 200] [--no-build] [--no-install] [--write]
 *                    [--no-every-pod-new] [--no-paced] [--no-istio] [--istio-rate 100] [--ours-flag=--log-level=warn ...]
 *   (--only istio: ours beside Istio's own injector, bench/lib/istio.ts; needs e2e/build/istio.sh)
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { procSample } from '../test/support/proc-stats.js';
import { buildProject, REPO_ROOT } from '../test/support/server-process.js';
import { sendOne, makeAgent } from '../test/support/load-client.js';
import { DEFAULT_VARIANTS, NEW_SET, serverStatusKeys, writeFixtures, writeVariants, type FixtureName } from './fixtures.js';
import { benchEnv } from './lib/env.js';
import { fixedRate, listRate, listRateClient, maxThroughput, pacedRate, WEBHOOK_PATH, type Target } from './lib/load.js';
import { measureCli, measureF3, measureHttp } from './lib/micro.js';
import { runPepr } from './lib/pepr-run.js';
import { runIstio } from './lib/istio.js';
import { evaluateTargets, renderMarkdown, writeResultsFile } from './lib/report.js';
import { coldStart, startServer, writeCertificate, type ServerSpec } from './lib/servers.js';
import { median } from './lib/stats.js';
import { ensureTools } from './lib/tools.js';
import { interleave, only, p99Diff, rpsRatio } from './lib/rounds.js';
import { checkVariants, describeCheck, requireAllInjected } from './lib/variant-check.js';
import type { BenchResults, FixtureCheck, NewPodsResults, ServerName, Settings, VariantCheck } from './lib/types.js';

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
  ours: has('--no-every-pod-new') ? ['ours'] : ['ours', 'ours-new'],
  variants: num('--variants', DEFAULT_VARIANTS),
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
    const r = await sendOne(
      agent,
      { port },
      {
        kind: 'valid',
        label: name,
        path: WEBHOOK_PATH,
        headers: { 'Content-Type': 'application/json' },
        body: bodies[name],
        check: (_s, b) => void (parsed = JSON.parse(b.toString('utf8')) as typeof parsed),
      },
      performance.now(),
    );
    const patch = parsed.response?.patch;
    const ops = patch === undefined ? 0 : (JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as unknown[]).length;
    const wantsPatch = expect[name] === 'patch';
    out.push({
      name,
      bytes: sizes[name],
      status: r.status,
      allowed: parsed.response?.allowed === true,
      patchOps: ops,
      patchBytes: patch?.length ?? 0,
      expected: expect[name],
      ok: r.status === 200 && parsed.response?.allowed === true && ops > 0 === wantsPatch,
    });
  }
  agent.destroy();
  return out;
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
  settings.tools = { wrk: tools.wrk, h2load: tools.h2load, vegeta: tools.vegeta?.version, taskset: tools.taskset, notes: tools.notes };
  for (const n of tools.notes) log(n);

  const work = join(REPO_ROOT, '.bench-tmp', 'run');
  mkdirSync(work, { recursive: true });
  rmSync(join(REPO_ROOT, '.bench-tmp', 'server-logs'), { recursive: true, force: true });
  const certs = await writeCertificate(join(work, 'tls'));
  // F5 carries a status signed with the served key, as a pod this server injected would.
  const fx = await writeFixtures(join(work, 'fixtures'), await serverStatusKeys(certs.key));
  const bodies = Object.fromEntries(Object.entries(fx.reviews).map(([k, p]) => [k, readFileSync(p)])) as Record<FixtureName, Buffer>;
  const newPods = settings.ours.includes('ours-new');
  const variants = writeVariants(join(work, 'fixtures'), settings.variants);
  const anchorSpec: ServerSpec = { kind: 'anchor', certs };
  const oursSpec: ServerSpec = { kind: 'ours', certs, flags: settings.oursFlags };
  // Every request runs the core (the first pod of each workload; a cluster of unique pods).
  const newPodsSpec: ServerSpec = { kind: 'ours', certs, flags: [...settings.oursFlags] };
  const specs: Partial<Record<ServerName, ServerSpec>> = {
    anchor: anchorSpec,
    ours: oursSpec,
    ...(settings.ours.includes('ours-new') ? { 'ours-new': newPodsSpec } : {}),
  };
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
  if (newPods && (want('throughput') || want('latency'))) {
    // The server measured: every variant runs the core.
    const server = await startServer(newPodsSpec, bodies.F1);
    const sets: VariantCheck[] = [];
    try {
      for (const v of Object.values(variants)) sets.push(await checkVariants(server.port, v));
    } finally {
      await server.stop();
    }
    for (const c of sets) log(describeCheck(c, 'ours-new'));
    results.newPods = { sets };
    requireAllInjected(sets.map((check) => ({ server: 'ours-new', check })));
  }

  if (want('cold')) {
    log(`cold start x${settings.coldReps}, alternating`);
    const cold: NonNullable<BenchResults['cold']> = { anchor: [], ours: [] };
    for (let i = 0; i < settings.coldReps; i++) {
      // Alternate which one starts first: the first of a pair meets a colder page cache.
      if (i % 2 === 0) {
        cold.anchor.push(await coldStart(anchorSpec, bodies.F1));
        cold.ours.push(await coldStart(oursSpec, bodies.F1));
      } else {
        cold.ours.push(await coldStart(oursSpec, bodies.F1));
        cold.anchor.push(await coldStart(anchorSpec, bodies.F1));
      }
    }
    results.cold = cold;
    log(`cold start median: anchor ${median(cold.anchor.map((c) => c.readyMs)).toFixed(0)} ms, ours ${median(cold.ours.map((c) => c.readyMs)).toFixed(0)} ms`);
  }

  if (want('throughput') || want('latency') || want('f3')) {
    const running: Partial<Record<ServerName, Awaited<ReturnType<typeof startServer>>>> = {};
    const targets: Partial<Record<ServerName, Target>> = {};
    try {
      for (const [name, spec] of Object.entries(specs) as [ServerName, ServerSpec][]) {
        const server = await startServer(spec, bodies.F1);
        running[name] = server;
        targets[name] = { name, port: server.port, pid: server.pid, path: WEBHOOK_PATH };
      }
      const opts = { connections: settings.connections, warmupS: settings.warmupS, durationS: settings.durationS, workDir: work };
      const show = (r: Partial<Record<ServerName, { rps?: number; p99Ms: number; serverCpu?: number }>>, what: 'rps' | 'p99'): string =>
        Object.entries(r)
          .map(([k, v]) => `${k} ${what === 'rps' ? `${v.rps?.toFixed(0)} rps` : `p99 ${v.p99Ms.toFixed(2)} ms`} (cpu ${v.serverCpu?.toFixed(2)})`)
          .join(', ');
      // Replica pods: one body repeated, anchor and ours. Every pod new: the variant
      // set's bodies in turn, the same sequence to the anchor and ours.
      const replica = only(targets, ['anchor', 'ours']);
      const fresh = only(targets, ['anchor', 'ours-new']);
      const np: NewPodsResults | undefined = results.newPods;
      if (want('throughput')) {
        results.throughput = {};
        if (np) np.throughput = {};
        for (const f of FIXTURES_UNDER_LOAD) {
          results.throughput[f] = await interleave(
            settings.pairs,
            replica,
            (t) => maxThroughput(tools, t, fx.reviews[f], opts),
            rpsRatio,
            (x) => x.rps,
            (i, r) => log(`${f} max RPS, replica pods, round ${i}: ${show(r, 'rps')}`),
          );
          const set = NEW_SET[f];
          if (np && set)
            np.throughput![f] = await interleave(
              settings.pairs,
              fresh,
              (t) => maxThroughput(tools, t, variants[set], opts),
              rpsRatio,
              (x) => x.rps,
              (i, r) => log(`${f} max RPS, every pod new (${settings.variants} workloads), round ${i}: ${show(r, 'rps')}`),
            );
        }
        if (np)
          np.daemonSet = await interleave(
            settings.pairs,
            fresh,
            (t) => maxThroughput(tools, t, variants['F1-daemonset'], opts),
            rpsRatio,
            (x) => x.rps,
            (i, r) => log(`F1 max RPS, one DaemonSet (${settings.variants} nodes), round ${i}: ${show(r, 'rps')}`),
          );
      }
      if (want('latency')) {
        results.latency = {};
        for (const f of FIXTURES_UNDER_LOAD) {
          results.latency[f] = await interleave(
            settings.pairs,
            replica,
            (t) => fixedRate(tools, t, fx.reviews[f], { ...opts, rate: settings.rate }),
            p99Diff,
            (x) => x.p99Ms,
            (i, r) => log(`${f} @${settings.rate}/s, replica pods, round ${i}: ${show(r, 'p99')}`),
          );
        }
      }
      if (want('latency') && !has('--no-paced') && tools.h2load) {
        results.paced = {};
        for (const f of FIXTURES_UNDER_LOAD) {
          results.paced[f] = await interleave(
            settings.pairs,
            replica,
            async (t) => (await pacedRate(tools, t, fx.reviews[f], { ...opts, rate: settings.rate }))!,
            p99Diff,
            (x) => x.p99Ms,
            (i, r) => log(`${f} @${settings.rate}/s arrivals spread out, replica pods, round ${i}: ${show(r, 'p99')}`),
          );
        }
      }
      if (want('latency') && np) {
        np.latency = {};
        for (const f of FIXTURES_UNDER_LOAD) {
          const set = NEW_SET[f];
          if (set)
            np.latency[f] = await interleave(
              settings.pairs,
              fresh,
              (t) => listRate(tools, t, variants[set], { ...opts, rate: settings.rate }),
              p99Diff,
              (x) => x.p99Ms,
              (i, r) => log(`${f} @${settings.rate}/s, every pod new (${listRateClient(tools)}), round ${i}: ${show(r, 'p99')}`),
            );
        }
      }
      if (want('f3')) {
        // One injection, on the server of the every-pod-new rows.
        const f3Server = running['ours-new'] ?? running.ours!;
        log('F3 over HTTPS (sequential, one keep-alive connection)');
        const http = await measureHttp(f3Server.port, bodies.F3, WEBHOOK_PATH);
        const httpAnchor = await measureHttp(running.anchor!.port, bodies.F3, WEBHOOK_PATH);
        results.f3 = { ...(await measureF3(bodies.F3)), http, httpAnchor };
        log(
          `F3: core ${results.f3.core.medianMs.toFixed(2)} ms, handler ${results.f3.handler.medianMs.toFixed(2)} ms, HTTPS ${http.medianMs.toFixed(2)} ms (anchor ${httpAnchor.medianMs.toFixed(2)} ms)`,
        );
      }
      results.peakRss = Object.fromEntries(Object.entries(running).map(([k, v]) => [k, procSample(v.pid)?.hwmBytes]));
    } finally {
      for (const server of Object.values(running)) await server.stop();
    }
  }

  if (want('cli')) {
    log('CLI inject -f M200 and M1000, cold processes');
    results.cli = { m200: measureCli(fx.m200, 200, join(work, 'm200.out.yaml')), m1000: measureCli(fx.m1000, 1000, join(work, 'm1000.out.yaml')) };
    log(
      `CLI: M200 ${results.cli.m200.medianMs.toFixed(0)} ms, M1000 ${results.cli.m1000.medianMs.toFixed(0)} ms (node -e 0: ${results.cli.m1000.baselineMs.toFixed(0)} ms)`,
    );
  }

  if (want('istio') && !has('--no-istio')) {
    results.istio = await runIstio({
      tools,
      certs,
      anchor: anchorSpec,
      bodies,
      files: fx.reviews,
      variants,
      settings,
      rate: num('--istio-rate', 100),
      work,
      log,
    });
  }

  if (want('pepr')) {
    results.pepr = await runPepr({ tools, certs, bodies, fixtureFile: fx.reviews.F1, variants, settings, work, specs, log });
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
