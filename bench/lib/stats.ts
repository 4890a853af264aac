/**
 * @module bench/lib/stats
 * The few statistics the benchmark reports: medians, per-pair ratios and the anchor's spread
 * (the noise gate: a run whose anchor moved by more than 10 % is flagged, not trusted).
 */
import { percentiles } from '../../test/support/load-client.js';

export function median(xs: readonly number[]): number {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** (max - min) / median: how far the anchor moved between the pairs of one run. */
export function spread(xs: readonly number[]): number {
  const s = xs.filter((x) => Number.isFinite(x));
  if (s.length < 2) return 0;
  return (Math.max(...s) - Math.min(...s)) / median(s);
}

export const MAX_ANCHOR_SPREAD = 0.1;

export function fmt(x: number | undefined, digits = 2): string {
  return x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(digits);
}

export function fmtInt(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? 'n/a' : Math.round(x).toLocaleString('en-US');
}

/** This process's CPU time in µs (user + system): robust to other work sharing the cores. */
export function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** The latency fields of a fixed-rate row (FixedRateResult) from the answers' latencies in ms. */
export function latencyFields(latenciesMs: ArrayLike<number>): { p50Ms: number; p90Ms: number; p99Ms: number; p999Ms: number; maxMs: number } {
  const p = percentiles(latenciesMs, [50, 90, 99, 99.9]);
  return { p50Ms: p.p50, p90Ms: p.p90, p99Ms: p.p99, p999Ms: p['p99.9'], maxMs: p.max };
}
