/**
 * @module test/support/soak-driver
 * A long run at a fixed rate against a running webhook, with a share of hostile requests mixed
 * in (reliability.md section 5, goal 5). It watches the server the whole time: RSS and open
 * sockets and file descriptors from /proc, heap in use and event-loop lag p99 from its
 * /metrics (Prometheus default process metrics). The verdict: no valid request failed, every
 * hostile one got its documented answer, RSS growth after warm-up within max(10 %, 20 MiB), event
 * loop lag p99 under 50 ms, descriptors back near where they started. Used by scripts/soak.ts
 * (minutes to hours, built server) and test/reliability/soak.test.ts (seconds, invariants only).
 */
import { request } from 'node:http';
import { HOSTILE, hostileRequest } from './hostile-requests.js';
import { percentiles, runFixedRate, type LabelCount, type LoadRequest } from './load-client.js';
import { mib, MiB, procSample, type ProcSample } from './proc-stats.js';

export interface SoakOptions {
  port: number;
  /** The server's pid, for /proc (omit when it is not a separate process). */
  pid?: number;
  /** Its plain monitoring port, for /metrics (heap, event-loop lag). */
  monitoringPort?: number;
  durationMs: number;
  rate: number;
  /** 0..1: share of hostile requests. */
  hostileShare: number;
  connections: number;
  /** Valid requests, used in turn. */
  valid: ((i: number) => LoadRequest)[];
  sampleEveryMs?: number;
  /** Growth is measured from the first sample after this. */
  warmupMs?: number;
  thresholds?: Partial<SoakThresholds>;
  log?: (line: string) => void;
}

interface SoakThresholds {
  rssGrowthPct: number;
  rssGrowthMiB: number;
  lagP99Ms: number;
  /** Descriptors the server may hold above its starting count at the end. */
  fdSlack: number;
}

const DEFAULT_THRESHOLDS: SoakThresholds = { rssGrowthPct: 10, rssGrowthMiB: 20, lagP99Ms: 50, fdSlack: 20 };

interface SoakSample {
  t: number;
  rssMiB?: number;
  heapUsedMiB?: number;
  lagP99Ms?: number;
  sockets?: number;
  fds?: number;
  completed: number;
}

export interface SoakReport {
  durationS: number;
  targetRate: number;
  achievedRate: number;
  hostileShare: number;
  valid: LabelCount;
  hostile: LabelCount;
  byLabel: Record<string, LabelCount>;
  problems: string[];
  latencyMs: Record<string, number>;
  rss?: { afterWarmupMiB: number; endMiB: number; maxMiB: number; growthMiB: number; growthPct: number };
  heapUsed?: { afterWarmupMiB: number; endMiB: number; growthMiB: number };
  lagP99Ms?: { max: number; median: number };
  fds?: { start: number; end: number; max: number };
  sockets?: { start: number; end: number; max: number };
  samples: SoakSample[];
  failures: string[];
  ok: boolean;
}

/** Selected series from a Prometheus text exposition (first sample of each name). */
function scrapeMetrics(port: number): Promise<Record<string, number>> {
  return new Promise((resolve) => {
    const r = request({ host: '127.0.0.1', port, path: '/metrics', timeout: 2000 }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString('utf8')));
      res.on('end', () => {
        const out: Record<string, number> = {};
        for (const line of text.split('\n')) {
          const m =
            /^(nodejs_heap_size_used_bytes|nodejs_eventloop_lag_p99_seconds|process_resident_memory_bytes|nodejs_active_handles_total)(?:\{[^}]*\})? ([\d.e+-]+)/.exec(
              line,
            );
          if (m && out[m[1]] === undefined) out[m[1]] = Number(m[2]);
        }
        resolve(out);
      });
      res.on('error', () => resolve({}));
    });
    r.on('error', () => resolve({}));
    r.on('timeout', () => r.destroy());
    r.end();
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.floor(s.length / 2)];
};

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const th = { ...DEFAULT_THRESHOLDS, ...o.thresholds };
  const every = o.sampleEveryMs ?? 1000;
  const warmupMs = o.warmupMs ?? Math.min(60_000, o.durationMs / 10);
  const samples: SoakSample[] = [];
  const procs: { t: number; p: ProcSample }[] = [];
  let completed = 0;
  const start = performance.now();
  const sample = async (): Promise<void> => {
    const t = (performance.now() - start) / 1000;
    const p = o.pid !== undefined ? procSample(o.pid) : undefined;
    const m = o.monitoringPort !== undefined ? await scrapeMetrics(o.monitoringPort) : {};
    if (p) procs.push({ t, p });
    const s: SoakSample = { t: Math.round(t * 10) / 10, completed };
    if (p) Object.assign(s, { rssMiB: p.rssBytes / MiB, sockets: p.sockets, fds: p.fds });
    if (m.nodejs_heap_size_used_bytes !== undefined) s.heapUsedMiB = m.nodejs_heap_size_used_bytes / MiB;
    if (m.nodejs_eventloop_lag_p99_seconds !== undefined) s.lagP99Ms = m.nodejs_eventloop_lag_p99_seconds * 1000;
    samples.push(s);
    if (o.log && samples.length % Math.max(1, Math.round(60_000 / every)) === 0) {
      o.log(
        `t=${s.t.toFixed(0)} s: ${completed} requests, RSS ${mib(p?.rssBytes)} MiB, heap ${s.heapUsedMiB?.toFixed(1) ?? 'n/a'} MiB, lag p99 ${s.lagP99Ms?.toFixed(1) ?? 'n/a'} ms, sockets ${p?.sockets ?? 'n/a'}`,
      );
    }
  };
  await sample();
  let sampling = Promise.resolve();
  const timer = setInterval(() => (sampling = sampling.then(sample)), every);

  // Deterministic interleaving: request i is hostile when the running share falls behind.
  let hostileSent = 0;
  let validSent = 0;
  const summary = await runFixedRate({
    port: o.port,
    rate: o.rate,
    connections: o.connections,
    durationMs: o.durationMs,
    onRecord: () => void completed++,
    next: (i) => {
      if (o.hostileShare > 0 && hostileSent < (i + 1) * o.hostileShare) return hostileRequest(hostileSent++);
      return o.valid[validSent++ % o.valid.length](i);
    },
  });
  clearInterval(timer);
  await sampling;
  // Let the server close what the run opened, then the last sample.
  await new Promise((r) => setTimeout(r, 1500));
  await sample();

  const report: SoakReport = {
    durationS: summary.durationMs / 1000,
    targetRate: o.rate,
    achievedRate: summary.rate,
    hostileShare: o.hostileShare,
    valid: summary.byKind.valid,
    hostile: summary.byKind.hostile,
    byLabel: summary.byLabel,
    problems: summary.problems,
    latencyMs: percentiles(summary.validLatencies),
    samples,
    failures: [],
    ok: true,
  };
  const after = samples.filter((s) => s.t * 1000 >= warmupMs);
  const rssAfter = after.map((s) => s.rssMiB).filter((x): x is number => x !== undefined);
  if (rssAfter.length > 0) {
    const first = rssAfter[0];
    const end = rssAfter[rssAfter.length - 1];
    report.rss = { afterWarmupMiB: first, endMiB: end, maxMiB: Math.max(...rssAfter), growthMiB: end - first, growthPct: ((end - first) / first) * 100 };
  }
  // Heap in use swings with every GC; the minimum of the first and of the last tenth compare like with like.
  const heap = after.map((s) => s.heapUsedMiB).filter((x): x is number => x !== undefined);
  if (heap.length > 0) {
    const tenth = Math.max(1, Math.floor(heap.length / 10));
    const a = Math.min(...heap.slice(0, tenth));
    const b = Math.min(...heap.slice(-tenth));
    report.heapUsed = { afterWarmupMiB: a, endMiB: b, growthMiB: b - a };
  }
  const lags = samples.map((s) => s.lagP99Ms).filter((x): x is number => x !== undefined && Number.isFinite(x));
  if (lags.length > 0) report.lagP99Ms = { max: Math.max(...lags), median: median(lags) };
  if (procs.length > 0) {
    const f = procs.map((x) => x.p.fds);
    const so = procs.map((x) => x.p.sockets);
    report.fds = { start: f[0], end: f[f.length - 1], max: Math.max(...f) };
    report.sockets = { start: so[0], end: so[so.length - 1], max: Math.max(...so) };
  }

  const fail = (why: string): void => void report.failures.push(why);
  if (report.valid.failed > 0) fail(`${report.valid.failed} valid requests failed (must be 0)`);
  if (report.hostile.failed > 0) fail(`${report.hostile.failed} hostile requests did not get their documented answer`);
  if (report.valid.ok === 0) fail('no valid request succeeded');
  if (report.rss && report.rss.growthMiB > Math.max(th.rssGrowthMiB, (report.rss.afterWarmupMiB * th.rssGrowthPct) / 100)) {
    fail(
      `RSS grew ${report.rss.growthMiB.toFixed(1)} MiB (${report.rss.growthPct.toFixed(1)} %) after warm-up; limit max(${th.rssGrowthPct} %, ${th.rssGrowthMiB} MiB)`,
    );
  }
  if (report.lagP99Ms && report.lagP99Ms.max >= th.lagP99Ms) fail(`event-loop lag p99 reached ${report.lagP99Ms.max.toFixed(1)} ms (limit ${th.lagP99Ms} ms)`);
  if (report.fds && report.fds.end > report.fds.start + th.fdSlack)
    fail(`file descriptors ${report.fds.start} at start, ${report.fds.end} at the end (slack ${th.fdSlack})`);
  report.ok = report.failures.length === 0;
  return report;
}

const n = (x: number | undefined, d = 1): string => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(d));

/** The human table printed after the JSON summary. */
export function renderSoak(r: SoakReport): string {
  const rows: [string, string][] = [
    ['duration', `${n(r.durationS, 0)} s`],
    ['rate (target / achieved)', `${r.targetRate} / ${n(r.achievedRate)} per s`],
    ['valid requests (ok / failed)', `${r.valid.ok} / ${r.valid.failed}`],
    [`hostile requests, ${(r.hostileShare * 100).toFixed(0)} % (as documented / not)`, `${r.hostile.ok} / ${r.hostile.failed}`],
    [
      'valid latency p50 / p99 / p99.9 / max',
      `${n(r.latencyMs.p50, 2)} / ${n(r.latencyMs.p99, 2)} / ${n(r.latencyMs['p99.9'], 2)} / ${n(r.latencyMs.max, 2)} ms`,
    ],
    [
      'RSS after warm-up / end / max',
      r.rss ? `${n(r.rss.afterWarmupMiB)} / ${n(r.rss.endMiB)} / ${n(r.rss.maxMiB)} MiB (growth ${n(r.rss.growthMiB)} MiB, ${n(r.rss.growthPct)} %)` : 'n/a',
    ],
    [
      'heap used (min of first / last tenth)',
      r.heapUsed ? `${n(r.heapUsed.afterWarmupMiB)} / ${n(r.heapUsed.endMiB)} MiB (growth ${n(r.heapUsed.growthMiB)} MiB)` : 'n/a',
    ],
    ['event-loop lag p99 (median / max of samples)', r.lagP99Ms ? `${n(r.lagP99Ms.median)} / ${n(r.lagP99Ms.max)} ms` : 'n/a'],
    ['open sockets (start / end / max)', r.sockets ? `${r.sockets.start} / ${r.sockets.end} / ${r.sockets.max}` : 'n/a'],
    ['file descriptors (start / end / max)', r.fds ? `${r.fds.start} / ${r.fds.end} / ${r.fds.max}` : 'n/a'],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`);
  const hostileLabels = HOSTILE.map((x) => x.label).filter((l) => r.byLabel[l] !== undefined);
  lines.push('', `hostile classes sent: ${hostileLabels.map((l) => `${l} ${r.byLabel[l].sent}`).join(', ')}`);
  if (r.problems.length > 0) lines.push('', 'first problems:', ...r.problems.slice(0, 10).map((p) => `  ${p}`));
  lines.push('', r.ok ? 'verdict: OK' : `verdict: FAILED\n${r.failures.map((f) => `  - ${f}`).join('\n')}`);
  return lines.join('\n');
}
