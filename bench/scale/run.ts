/**
 * @module bench/scale/run
 * Issue 30's measurements: `status`, `restart` and `serve --reconcile` on 10,000 and 50,000
 * pods, against `kubectl get pods -A -o json` on the same cluster in the same run.
 *
 *   npx tsx bench/scale/run.ts [--sizes 10000,50000] [--rounds 3] [--serve-rounds 6] [--keep] [--no-build] [--no-install]
 *
 * A fresh scale plane (bench/scale/plane) is filled to each size (bench/scale/generate); then
 * per size, in rounds whose order rotates so both sides see the same machine load:
 * - `kubectl get pods -A -o json`, `status -A` and `restart --stale --missing -A` (a dry run):
 *   wall time and peak RSS (`/usr/bin/time`), output to a file;
 * - `serve` alone and `serve --reconcile`: RSS (idle; settled after the first full count: three
 *   samples 5 s apart within 3 %, after 30 s idle; and right after the webhook window), the
 *   time from spawn to the first full count (`sidecar_injector_pods` sums to the size), and the
 *   webhook's p99 at 50 pods/s (every pod new, the F1-new bodies, vegeta or the Node open-loop
 *   client) while 50 injected pods/s are created in the cluster (the reconciler judges each);
 * - once per size, with the reconciler settled: 100 pod creates per second for 60 s, and how
 *   far its count lags behind the pods the apiserver acknowledged.
 * Ratios are medians of per-round ratios. Prints Markdown, writes .bench-tmp/scale/results.json and
 * results.md (after each size), checks the issue's goals (exit 1 when one fails) and removes the
 * plane unless --keep.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { down, type ClusterState } from '../../e2e/cluster/cluster.js';
import { stateDir } from '../../e2e/cluster/paths.js';
import { procSample } from '../../test/support/proc-stats.js';
import { buildProject, builtCli, REPO_ROOT } from '../../test/support/server-process.js';
import { variantBodies, writeVariants } from '../fixtures.js';
import { listRate, WEBHOOK_PATH } from '../lib/load.js';
import { writeCertificate } from '../lib/servers.js';
import { median } from '../lib/stats.js';
import { ensureTools } from '../lib/tools.js';
import { fill } from './generate.js';
import { createAtRate, emptyNamespace, podsCounted, sample, scrape, settledRss, startServe, timed, waitCount, type Timed } from './measure.js';
import { admittedPods, SCALE_LABEL, type Obj } from './plan.js';
import { AUDIT_LOG, planeState, planeUp, ScaleClient } from './plane.js';
import { checkGoals, markdown, type SizeResult, type WindowResult } from './report.js';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string): string => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const SIZES = opt('--sizes', '10000,50000').split(',').map(Number);
const ROUNDS = Number(opt('--rounds', '3'));
/** Even, so each mode goes first as often. */
const SERVE_ROUNDS = Number(opt('--serve-rounds', '6'));
const LOAD_NS = 'scale-load';
const WORK = join(REPO_ROOT, '.bench-tmp', 'scale');
const log = (line: string): void => void process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

let loadIndex = 0;
/**
 * A new bare pod no other is like (its own name and app label), so the reconciler judges it
 * from scratch: `current` (as the webhook admitted it) for the webhook's p99 runs, where the
 * pods appearing are the ones the webhook injects; `missing` (the costliest to judge: the
 * whole injection is rendered) for the keep-up run.
 */
const loadPod = (state: 'current' | 'missing') => (): Obj => {
  const i = loadIndex++;
  return admittedPods({ index: 10_000_000 + i, kind: 'Pod', name: `load-${i}`, namespace: LOAD_NS, pods: 1, state }, 0, 1, undefined)[0];
};

function planeMemory(state: ClusterState): SizeResult['plane'] {
  const out: SizeResult['plane'] = {};
  for (const d of state.daemons) {
    const s = procSample(d.pid);
    if (s !== undefined) out[d.name] = { rssMiB: s.rssBytes / 2 ** 20, hwmMiB: s.hwmBytes / 2 ** 20 };
  }
  return out;
}

/** Our requests (user agent sidecar-injector/heal) the apiserver logged since `since`, by verb and resource. */
function auditSince(since: Date): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync(join(stateDir(), AUDIT_LOG), 'utf8').split('\n')) {
    if (!line.includes('sidecar-injector/heal')) continue;
    const e = JSON.parse(line) as { verb: string; requestURI: string; userAgent: string; requestReceivedTimestamp: string };
    if (e.userAgent !== 'sidecar-injector/heal' || new Date(e.requestReceivedTimestamp) < since) continue;
    const key = `${e.verb} ${e.requestURI.split('?')[0]}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

async function cliRounds(state: ClusterState, size: number): Promise<SizeResult['cli']> {
  const env = { ...process.env, KUBECONFIG: state.kubeconfig, PATH: `${state.binDir}:${process.env.PATH ?? ''}` };
  const runs: Record<'kubectl' | 'status' | 'restart', Timed[]> = { kubectl: [], status: [], restart: [] };
  const commands = {
    kubectl: () => timed('kubectl', ['get', 'pods', '-A', '-o', 'json'], env, join(WORK, 'kubectl.out')),
    status: () => timed(process.execPath, [builtCli(), 'status', '-A'], env, join(WORK, 'status.out')),
    restart: () => timed(process.execPath, [builtCli(), 'restart', '--stale', '--missing', '-A'], env, join(WORK, 'restart.out')),
  };
  const order = ['kubectl', 'status', 'restart'] as const;
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < order.length; k++) {
      const name = order[(k + r) % order.length];
      const t = commands[name]();
      log(`${size}: ${name} ${t.seconds.toFixed(2)} s (CPU ${t.cpuSeconds.toFixed(2)} s), ${t.rssMiB.toFixed(0)} MiB, exit ${t.code}`);
      runs[name].push(t);
    }
  }
  const bad = runs.status.find((t) => t.code !== 9 || !t.lastLine.startsWith(`${size} pods in `));
  if (bad !== undefined) throw new Error(`status -A should count ${size} pods and exit 9 (stale and missing): exit ${bad.code}, "${bad.lastLine}"`);
  if (runs.restart.some((t) => t.code !== 0)) throw new Error(`restart --dry-run failed: ${readFileSync(join(WORK, 'restart.out'), 'utf8').slice(-500)}`);
  return runs;
}

async function serveRounds(
  state: ClusterState,
  client: ScaleClient,
  size: number,
  certs: Awaited<ReturnType<typeof writeCertificate>>,
  tools: ReturnType<typeof ensureTools>,
): Promise<SizeResult['serve']> {
  const readyBody = variantBodies('F1-new', 1)[0];
  const bodies = writeVariants(join(WORK, 'variants'), 2048)['F1-new'];
  const out: SizeResult['serve'] = {
    idleMiB: [],
    firstCountS: [],
    settledMiB: [],
    heapMiB: [],
    peakMiB: [],
    loadedMiB: [],
    with: [],
    without: [],
    requests: {},
  };
  for (let r = 0; r < SERVE_ROUNDS; r++) {
    const modes = r % 2 === 0 ? [true, false] : [false, true];
    for (const reconcile of modes) {
      const since = new Date();
      const s = await startServe(certs, state.kubeconfig, reconcile, readyBody);
      try {
        if (reconcile) {
          const counted = await waitCount(s.monitoring, size, 15 * 60_000);
          out.firstCountS.push((counted - s.spawnedAt) / 1000);
          if (r === 0) out.requests = auditSince(since);
          // Idle 30 s first: the steady-looking RSS right after the list still holds its garbage.
          await new Promise((res) => setTimeout(res, 30_000));
          const m = await settledRss(s.server.pid);
          out.settledMiB.push(m.rssMiB);
          out.heapMiB.push((sample(await scrape(s.monitoring), 'nodejs_heap_size_used_bytes') ?? Number.NaN) / 2 ** 20);
          log(
            `${size}: serve --reconcile counted ${size} pods ${out.firstCountS.at(-1)!.toFixed(1)} s after spawn; RSS ${m.rssMiB.toFixed(0)} MiB ${(30 + m.afterS).toFixed(0)} s later (heap used ${out.heapMiB.at(-1)!.toFixed(0)} MiB, peak RSS ${m.hwmMiB.toFixed(0)})`,
          );
        } else {
          const m = await settledRss(s.server.pid);
          out.idleMiB.push(m.rssMiB);
          log(`${size}: serve idle RSS ${m.rssMiB.toFixed(0)} MiB`);
        }
        (reconcile ? out.with : out.without).push(await webhookWindow(s, client, bodies, tools, reconcile));
        if (reconcile) {
          out.peakMiB.push((procSample(s.server.pid)?.hwmBytes ?? Number.NaN) / 2 ** 20);
          out.loadedMiB.push((procSample(s.server.pid)?.rssBytes ?? Number.NaN) / 2 ** 20);
        }
        if (reconcile && r === 0) {
          await emptyNamespace(client, LOAD_NS);
          await waitCount(s.monitoring, size, 300_000);
          out.keepUp = await keepUp(client, s.monitoring, size);
        }
      } finally {
        await s.server.stop();
        await emptyNamespace(client, LOAD_NS);
        // The apiserver has just deleted up to 6,000 pods: let it settle before the next window.
        await new Promise((res) => setTimeout(res, 10_000));
      }
    }
  }
  return out;
}

/**
 * The webhook at 50 pods/s while 50 pods/s appear in the cluster (the reconciler, when there,
 * judges each): latency from vegeta; serve's CPU per second and event-loop delay (prom-client's
 * histogram, reset by the scrape before the window) from the process itself.
 */
async function webhookWindow(
  s: Awaited<ReturnType<typeof startServe>>,
  client: ScaleClient,
  bodies: ReturnType<typeof writeVariants>['F1-new'],
  tools: ReturnType<typeof ensureTools>,
  reconcile: boolean,
): Promise<WindowResult> {
  const majorGc = (text: string): number => (sample(text, 'nodejs_gc_duration_seconds_sum{kind="major"}') ?? 0) * 1000;
  const gc0 = majorGc(await scrape(s.monitoring));
  const cpu0 = procSample(s.server.pid)?.cpuSeconds ?? Number.NaN;
  const t0 = performance.now();
  const [latency, created] = await Promise.all([
    listRate(tools, { name: reconcile ? 'serve --reconcile' : 'serve', port: s.server.port, pid: s.server.pid, path: WEBHOOK_PATH }, bodies, {
      rate: 50,
      connections: 4,
      warmupS: 5,
      durationS: 30,
      workDir: WORK,
    }),
    createAtRate(client, LOAD_NS, 50, 36, loadPod('current')),
  ]);
  const cpuMsPerS = (((procSample(s.server.pid)?.cpuSeconds ?? Number.NaN) - cpu0) * 1000) / ((performance.now() - t0) / 1000);
  const after = await scrape(s.monitoring);
  const lagMaxMs = (sample(after, 'nodejs_eventloop_lag_max_seconds') ?? Number.NaN) * 1000;
  const lagP99Ms = (sample(after, 'nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000;
  const w = {
    p50Ms: latency.p50Ms,
    p90Ms: latency.p90Ms,
    p99Ms: latency.p99Ms,
    achieved: latency.achievedRps,
    cpuMsPerS,
    lagP99Ms,
    lagMaxMs,
    majorGcMs: majorGc(after) - gc0,
  };
  log(
    `${reconcile ? 'with' : 'without'} the reconciler: webhook p50/p90/p99 ${w.p50Ms.toFixed(2)}/${w.p90Ms.toFixed(2)}/${w.p99Ms.toFixed(2)} ms at ${w.achieved.toFixed(1)}/s (${latency.tool}); serve CPU ${cpuMsPerS.toFixed(0)} ms/s, event-loop delay p99 ${lagP99Ms.toFixed(1)} ms, max ${lagMaxMs.toFixed(1)} ms, major GC ${w.majorGcMs.toFixed(0)} ms; ${created.created} pods created`,
  );
  return w;
}

/** 100 creates/s for 60 s under a settled reconciler: its count against what the apiserver acknowledged. */
async function keepUp(client: ScaleClient, monitoring: number, base: number): Promise<NonNullable<SizeResult['serve']['keepUp']>> {
  let acked = 0;
  const lags: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const before = acked;
      const counted = await podsCounted(monitoring).catch(() => undefined);
      if (counted !== undefined) lags.push(base + before - counted);
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const run = await createAtRate(client, LOAD_NS, 100, 60, loadPod('missing'), () => void acked++);
  const doneAt = performance.now();
  await waitCount(monitoring, base + acked, 120_000);
  const catchUpS = (performance.now() - doneAt) / 1000;
  sampling = false;
  await sampler;
  const result = { rate: run.created / run.seconds, created: run.created, maxLag: Math.max(...lags), medianLag: median(lags), catchUpS };
  log(
    `keep-up: ${result.created} pods at ${result.rate.toFixed(0)}/s; lag max ${result.maxLag}, median ${result.medianLag}; caught up ${catchUpS.toFixed(1)} s after the last create`,
  );
  await emptyNamespace(client, LOAD_NS);
  await waitCount(monitoring, base, 300_000);
  return result;
}

async function main(): Promise<void> {
  if (!argv.includes('--no-build')) buildProject();
  mkdirSync(WORK, { recursive: true });
  const tools = ensureTools(!argv.includes('--no-install'));
  const certs = await writeCertificate(join(WORK, 'certs'));
  const started = { at: new Date().toISOString(), load: loadavg() };
  if (planeState() !== undefined) await down({ log });
  const state = await planeUp(log);
  const client = new ScaleClient(state, 48);
  const results: SizeResult[] = [];
  const report = (): string =>
    markdown(results, {
      startedAt: started.at,
      loadStart: started.load,
      loadEnd: loadavg(),
      rounds: ROUNDS,
      serveRounds: SERVE_ROUNDS,
      cpus: cpus().length,
      tool: tools.vegeta !== undefined ? 'vegeta' : 'the Node open-loop client',
    });
  try {
    await client.create('/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: LOAD_NS, labels: { [SCALE_LABEL]: 'true', 'istio-injection': 'enabled' } },
    });
    await client.create(`/api/v1/namespaces/${LOAD_NS}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'default', namespace: LOAD_NS },
    });
    for (const size of SIZES) {
      const filled = await fill(client, size, log);
      await new Promise((r) => setTimeout(r, 20_000));
      const plane = planeMemory(state);
      const cli = await cliRounds(state, size);
      const serve = await serveRounds(state, client, size, certs, tools);
      results.push({ pods: size, fill: filled, plane, cli, serve, load: loadavg() });
      writeFileSync(
        join(WORK, 'results.json'),
        `${JSON.stringify({ started, machine: { cpus: cpus().length, memGiB: totalmem() / 2 ** 30, node: process.version }, tools: tools.notes, results }, null, 2)}\n`,
      );
      // The Markdown so far, after each size: a run stopped during the next size keeps this one's.
      writeFileSync(join(WORK, 'results.md'), report());
    }
  } finally {
    client.close();
    if (!argv.includes('--keep')) await down({ log });
  }
  const text = report();
  process.stdout.write(text);
  const failed = checkGoals(results).filter((g) => !g.ok);
  if (failed.length > 0) process.exitCode = 1;
}

await main();
