/**
 * @module test/support/slowloris-driver
 * Does a crowd of idle and slow sockets hurt the other clients? Normal traffic at a fixed rate
 * on keep-alive connections is measured alone (baseline), then again while the attacker holds
 * its sockets (reliability.md section 5, goal 8: p99 at most 2x the baseline; headers timeout
 * <= 10 s). Also reported: what the server did with the attacking sockets (closed, 408), and its
 * descriptors and memory during the attack. Used by scripts/slowloris.ts (built server, attacker
 * in its own process) and the bounded test/reliability/slowloris.test.ts (invariants only).
 */
import { percentiles, runFixedRate, type LoadRequest, type LoadSummary } from './load-client.js';
import { MiB, procSample } from './proc-stats.js';
import type { AttackStats } from './slowloris-attacker.js';

export interface AttackHandle {
  stats(): AttackStats | undefined | Promise<AttackStats | undefined>;
  stop(): Promise<void>;
}

export interface SlowlorisOptions {
  port: number;
  pid?: number;
  rate: number;
  connections: number;
  phaseMs: number;
  /** Let the attacker reach its socket count before measuring. */
  rampMs: number;
  next: (i: number) => LoadRequest;
  startAttack: () => AttackHandle | Promise<AttackHandle>;
  /** Allowed p99 ratio attack / baseline (default 2). */
  maxP99Ratio?: number;
}

interface PhaseResult {
  ok: number;
  failed: number;
  rate: number;
  latencyMs: Record<string, number>;
}

export interface SlowlorisReport {
  baseline: PhaseResult;
  attack: PhaseResult;
  p99Ratio: number;
  attacker?: AttackStats;
  server?: { fdsBefore: number; fdsDuring: number; fdsAfter: number; socketsDuring: number; rssBeforeMiB: number; rssDuringMiB: number };
  problems: string[];
  failures: string[];
  ok: boolean;
}

function phase(s: LoadSummary): PhaseResult {
  return { ok: s.byKind.valid.ok, failed: s.byKind.valid.failed, rate: s.rate, latencyMs: percentiles(s.validLatencies) };
}

export async function runSlowloris(o: SlowlorisOptions): Promise<SlowlorisReport> {
  const load = (): Promise<LoadSummary> => runFixedRate({ port: o.port, rate: o.rate, connections: o.connections, durationMs: o.phaseMs, next: o.next });
  const before = o.pid !== undefined ? procSample(o.pid) : undefined;
  const baseline = await load();
  const attack = await o.startAttack();
  let during: ReturnType<typeof procSample>;
  let underAttack: LoadSummary;
  let attackerStats: AttackStats | undefined;
  try {
    await new Promise((r) => setTimeout(r, o.rampMs));
    const sampler = setTimeout(() => (during = o.pid !== undefined ? procSample(o.pid) : undefined), o.phaseMs / 2);
    underAttack = await load();
    clearTimeout(sampler);
    attackerStats = await attack.stats();
  } finally {
    await attack.stop();
  }
  await new Promise((r) => setTimeout(r, 1500));
  const after = o.pid !== undefined ? procSample(o.pid) : undefined;
  const report: SlowlorisReport = {
    baseline: phase(baseline),
    attack: phase(underAttack),
    p99Ratio: Number.NaN,
    attacker: attackerStats,
    problems: [...baseline.problems, ...underAttack.problems].slice(0, 20),
    failures: [],
    ok: true,
  };
  report.p99Ratio = report.attack.latencyMs.p99 / report.baseline.latencyMs.p99;
  if (before && during && after) {
    report.server = {
      fdsBefore: before.fds,
      fdsDuring: during.fds,
      fdsAfter: after.fds,
      socketsDuring: during.sockets,
      rssBeforeMiB: before.rssBytes / MiB,
      rssDuringMiB: during.rssBytes / MiB,
    };
  }
  const fail = (why: string): void => void report.failures.push(why);
  if (report.baseline.failed + report.attack.failed > 0) fail(`${report.baseline.failed + report.attack.failed} normal requests failed (must be 0)`);
  const max = o.maxP99Ratio ?? 2;
  if (!(report.p99Ratio <= max)) fail(`p99 under attack is ${report.p99Ratio.toFixed(2)}x the baseline (limit ${max}x)`);
  if (report.server && report.server.fdsAfter > report.server.fdsBefore + 20)
    fail(`server descriptors ${report.server.fdsBefore} before, ${report.server.fdsAfter} after the attack`);
  report.ok = report.failures.length === 0;
  return report;
}

const n = (x: number | undefined, d = 2): string => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(d));

export function renderSlowloris(r: SlowlorisReport): string {
  const row = (name: string, p: PhaseResult): string =>
    `${name.padEnd(9)} ${String(p.ok).padStart(6)} ok ${String(p.failed).padStart(4)} failed  ${n(p.rate, 1).padStart(7)}/s  p50 ${n(p.latencyMs.p50)}  p99 ${n(p.latencyMs.p99)}  p99.9 ${n(p.latencyMs['p99.9'])}  max ${n(p.latencyMs.max)} ms`;
  const a = r.attacker;
  const lines = [
    row('baseline', r.baseline),
    row('attack', r.attack),
    `p99 ratio attack / baseline: ${n(r.p99Ratio)}`,
    a
      ? `attacker: ${a.open} sockets open at the end of the phase, ${a.opened} opened, ${a.closedByServer} closed by the server (${a.got408} with a 408), ${a.failedConnects} refused; by mode ${JSON.stringify(a.byMode)}`
      : 'attacker: n/a',
    r.server
      ? `server: descriptors ${r.server.fdsBefore} before / ${r.server.fdsDuring} during / ${r.server.fdsAfter} after; sockets during ${r.server.socketsDuring}; RSS ${n(r.server.rssBeforeMiB, 1)} -> ${n(r.server.rssDuringMiB, 1)} MiB`
      : 'server: n/a',
  ];
  if (r.problems.length > 0) lines.push('', 'problems:', ...r.problems.slice(0, 10).map((p) => `  ${p}`));
  lines.push('', r.ok ? 'verdict: OK' : `verdict: FAILED\n${r.failures.map((f) => `  - ${f}`).join('\n')}`);
  return lines.join('\n');
}
