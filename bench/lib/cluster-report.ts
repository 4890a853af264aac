/**
 * @module bench/lib/cluster-report
 * The pod-create benchmark's tables (markdown): per rate, what each mode costs the apiserver per
 * call and per pod, above the Go floor and against Istio's handler; our server's own times; the
 * first pods after a start against warm ones; patch sizes; and the issue's goals, met or not.
 */
import { percentile } from '../../test/support/load-client.js';
import type { ColdResult, ModeResult } from './cluster-run.js';
import { mean, quantile, type Histogram } from './prom.js';
import { quietLine, quietness, verdict } from './quiet.js';
import { fmt } from './stats.js';

export interface PatchInfo {
  server: string;
  bytes: number;
  ops: number;
}

export interface ClusterReport {
  env: {
    date: string;
    commit: string;
    dirty: boolean;
    node: string;
    cpu: string;
    cores: number;
    loadStart: number[];
    loadEnd?: number[];
    kubernetes: string;
    istio: string;
    pod: string;
    reviewBytes: number;
  };
  settings: { rates: number[]; pods: number; rounds: number; coldPods: number; coldRuns: number; coldRate: number };
  rates: ModeResult[][];
  cold: ColdResult[];
  patches: PatchInfo[];
  /** Each variant (name) and what it is (flags, another build). */
  variants: Record<string, string>;
}

const ms = (s: number): number => s * 1000;
const p = (xs: readonly number[], q: number): number => (xs.length === 0 ? Number.NaN : percentile(xs, q));

/** The apiserver's time for a mode's webhooks per created pod, ms. */
export function perPodMs(r: ModeResult): number {
  return r.pods - r.failed > 0 ? ms(r.apiserver.sum) / (r.pods - r.failed) : Number.NaN;
}

function find(rows: readonly ModeResult[], mode: string): ModeResult | undefined {
  return rows.find((r) => r.mode === mode);
}

/** A mode's apiserver time per pod above the Go floor's, ms. */
export function aboveFloorMs(rows: readonly ModeResult[], mode: string): number {
  const m = find(rows, mode);
  const f = find(rows, 'floor');
  return m === undefined || f === undefined ? Number.NaN : perPodMs(m) - perPodMs(f);
}

/** A mode's time above the floor over Istio's, per pod. */
export function overIstio(rows: readonly ModeResult[], mode: string): number {
  return aboveFloorMs(rows, mode) / aboveFloorMs(rows, 'istio');
}

function rateTable(rows: readonly ModeResult[]): string[] {
  const out = [
    "| Mode | Pods (failed) | Achieved /s | Calls per pod | Apiserver ms per call (mean) | Apiserver ms per pod | Above the floor, ms per pod | / Istio's | Create p50 ms | Create p99 ms | Server CPU µs per call (waited) | Apiserver + etcd CPU ms per pod | Connections (most open) |",
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const hooked = r.apiserver.count > 0;
    const ok = r.pods - r.failed;
    out.push(
      `| ${r.mode} | ${r.pods} (${r.failed}) | ${fmt(r.pods / r.seconds, 1)} | ${hooked ? fmt(r.apiserver.count / ok) : '-'} | ${hooked ? fmt(ms(mean(r.apiserver))) : '-'} | ${hooked ? fmt(perPodMs(r)) : '-'} | ${hooked && r.mode !== 'floor' ? fmt(aboveFloorMs(rows, r.mode)) : '-'} | ${hooked && r.mode !== 'floor' && r.mode !== 'istio' ? `${fmt(overIstio(rows, r.mode))}x` : '-'} | ${fmt(p(r.createMs, 50))} | ${fmt(p(r.createMs, 99))} | ${hooked ? `${fmt((1000 * r.server.cpuMs) / r.apiserver.count, 0)} (${fmt((1000 * r.server.waitMs) / r.apiserver.count, 0)})` : '-'} | ${fmt(r.controlPlane.cpuMs / r.pods)} | ${r.connections !== undefined ? `${r.connections.distinct} (${r.connections.maxOpen})` : '-'} |`,
    );
  }
  return out;
}

function histCells(h: Histogram | undefined): string {
  if (h === undefined || h.count === 0) return '0 | - | -';
  return `${h.count} | ${fmt(ms(mean(h)), 3)} | ${fmt(ms(quantile(h, 0.5)), 3)}`;
}

function oursTable(all: readonly ModeResult[][]): string[] {
  const out = [
    '| Rate | Mode | Answer | Our histogram: count | mean ms | p50 ms (interpolated) | Our log: p50 ms | p99 ms |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const rows of all) {
    for (const r of rows) {
      if (r.ours === undefined) continue;
      for (const [outcome, h] of Object.entries(r.ours)) {
        if (h.count === 0) continue;
        const lines = outcome === 'injected' ? r.log?.injected : outcome === 'skipped' ? r.log?.skipped : undefined;
        out.push(`| ${r.rate}/s | ${r.mode} | ${outcome} | ${histCells(h)} | ${fmt(p(lines ?? [], 50), 3)} | ${fmt(p(lines ?? [], 99), 3)} |`);
      }
    }
  }
  return out;
}

function coldTable(cold: readonly ColdResult[], warm: readonly ModeResult[] | undefined): string[] {
  const out = [
    '| Server | Starts | Ready after, ms (median) | First pods: create p50 / p99 ms | Warm: create p50 / p99 ms | p99 first / warm | Apiserver ms per call, first / warm | Our log p99 ms, first / warm |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const c of cold) {
    const w = warm !== undefined ? find(warm, c.mode) : undefined;
    const ratio = w !== undefined ? p(c.createMs, 99) / p(w.createMs, 99) : Number.NaN;
    const ourFirst = c.log !== undefined ? [...c.log.injected, ...c.log.skipped] : [];
    const ourWarm = w?.log !== undefined ? [...w.log.injected, ...w.log.skipped] : [];
    out.push(
      `| ${c.mode} | ${c.readyMs.length} | ${fmt(p(c.readyMs, 50), 0)} | ${fmt(p(c.createMs, 50))} / ${fmt(p(c.createMs, 99))} | ${w ? `${fmt(p(w.createMs, 50))} / ${fmt(p(w.createMs, 99))}` : 'n/a'} | ${fmt(ratio)}x | ${fmt(ms(mean(c.apiserver)))} / ${w ? fmt(ms(mean(w.apiserver))) : 'n/a'} | ${ourFirst.length > 0 ? `${fmt(p(ourFirst, 99))} / ${fmt(p(ourWarm, 99))}` : '-'} |`,
    );
  }
  return out;
}

/** The issue's goals from the measurements (never a test: a shared machine only shows them). */
function goals(rep: ClusterReport): string[] {
  const out = ['| Goal | Target | Result | Status |', '|---|---|---|---|'];
  const q = quietness(rep.env.loadStart, rep.env.cores);
  const at = (rate: number) => rep.rates.find((rows) => rows[0]?.rate === rate);
  const row = (goal: string, target: string, value: number, limit: number, show: string): void => {
    out.push(`| ${goal} | ${target} | ${show} | ${verdict(Number.isNaN(value) ? undefined : value <= limit, q)} |`);
  };
  for (const rate of [5, 50]) {
    const rows = at(rate);
    if (rows === undefined) continue;
    for (const mode of ['ours-ifneeded', 'ours-never']) {
      const x = overIstio(rows, mode);
      row(
        `Per injected pod above the floor, ${mode}, ${rate}/s`,
        "≤ 0.3x Istio's",
        x,
        0.3,
        `${fmt(x)}x (${fmt(aboveFloorMs(rows, mode))} vs ${fmt(aboveFloorMs(rows, 'istio'))} ms)`,
      );
    }
  }
  const rows50 = at(50);
  if (rows50 !== undefined) {
    for (const mode of ['ours-never', 'ours-ifneeded']) {
      const r = find(rows50, mode);
      const injected = r?.log?.injected ?? [];
      const h = r?.ours?.injected;
      const v = p(injected, 50);
      row(
        `Our time per injection, p50, ${mode}, 50/s`,
        '≤ 0.8 ms',
        v,
        0.8,
        `${fmt(v, 3)} ms (log); histogram p50 ${h ? fmt(ms(quantile(h, 0.5)), 3) : 'n/a'}, mean ${h ? fmt(ms(mean(h)), 3) : 'n/a'} ms`,
      );
    }
    for (const [mode, what] of [
      ['ours-skip', 'a skip (opted-out pod)'],
      ['ours-ifneeded', 'a reinvocation (pod already current)'],
    ] as const) {
      const r = find(rows50, mode);
      const skipped = r?.log?.skipped ?? [];
      if (mode === 'ours-ifneeded' && r !== undefined && skipped.length === 0) {
        out.push(
          `| Our time for ${what}, 50/s | ≤ 0.2 ms | none made: ${fmt(r.apiserver.count / (r.pods - r.failed))} calls per pod | ${verdict(true, q)} (no call) |`,
        );
        continue;
      }
      const h = r?.ours?.skipped;
      const v = p(skipped, 50);
      row(
        `Our time for ${what}, p50, 50/s`,
        '≤ 0.2 ms',
        v,
        0.2,
        `${fmt(v, 3)} ms (log); histogram p50 ${h ? fmt(ms(quantile(h, 0.5)), 3) : 'n/a'}, mean ${h ? fmt(ms(mean(h)), 3) : 'n/a'} ms`,
      );
    }
  }
  const warm = rep.rates.find((rows) => rows[0]?.rate === rep.settings.coldRate);
  for (const c of rep.cold) {
    if (!c.mode.startsWith('ours')) continue;
    const w = warm !== undefined ? find(warm, c.mode) : undefined;
    const x = w !== undefined ? p(c.createMs, 99) / p(w.createMs, 99) : Number.NaN;
    row(
      `First ${rep.settings.coldPods} pods after a start, ${c.mode}: create p99 over warm p99`,
      '≤ 1.5x',
      x,
      1.5,
      `${fmt(x)}x (${fmt(p(c.createMs, 99))} vs ${fmt(p(w?.createMs ?? [], 99))} ms)`,
    );
  }
  return out;
}

export function renderReport(rep: ClusterReport): string {
  const e = rep.env;
  const s = rep.settings;
  const lines = [
    `Run ${e.date}, commit ${e.commit}${e.dirty ? ' (uncommitted changes)' : ''}; ${e.cpu}, ${e.cores} cores, Node ${e.node}; kube-apiserver ${e.kubernetes}, Istio ${e.istio}.`,
    `Load average at start ${e.loadStart.join(' ')}, at end ${e.loadEnd?.join(' ') ?? 'n/a'}: ${quietLine(quietness(e.loadStart, e.cores))}. Pod: ${e.pod} (its AdmissionReview: ${e.reviewBytes} bytes). ${s.pods} creates per mode per rate in ${s.rounds} interleaved rounds; first ${s.coldPods} pods after a start at ${s.coldRate}/s, ${s.coldRuns} starts per server.`,
    '',
  ];
  if (Object.keys(rep.variants).length > 0) {
    lines.push('Variants (ours, `Never`):', ...Object.entries(rep.variants).map(([k, v]) => `- ${k}: ${v}`), '');
  }
  lines.push('### Goals', '', ...goals(rep), '');
  for (const rows of rep.rates) lines.push(`### ${rows[0]?.rate}/s`, '', ...rateTable(rows), '');
  lines.push("### Our server's own time", '', ...oursTable(rep.rates), '');
  if (rep.cold.length > 0)
    lines.push(
      `### The first ${s.coldPods} pods after a start (warm: the ${s.coldRate}/s run)`,
      '',
      ...coldTable(
        rep.cold,
        rep.rates.find((r) => r[0]?.rate === s.coldRate),
      ),
      '',
    );
  if (rep.patches.length > 0) {
    lines.push('### The patch for the same review', '', '| Server | JSON patch bytes | Operations |', '|---|---|---|');
    for (const x of rep.patches) lines.push(`| ${x.server} | ${x.bytes} | ${x.ops} |`);
    lines.push('');
  }
  return lines.join('\n');
}
