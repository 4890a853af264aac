/**
 * @module bench/lib/rounds
 * Interleaving: each round measures every server once, so drift on a shared machine hits all of
 * them alike; the order rotates from round to round (round 1 starts with the anchor, round 2 with
 * the next server, ...), so no server always gets the first slot after a pause or the last one
 * of a long stretch under load. The result per server is the median over rounds of its
 * per-round comparison with the anchor of the same round (ratio of RPS, difference of p99).
 */
import type { Target } from './load.js';
import type { FixedRateResult, ThroughputResult } from './results.js';
import { MAX_ANCHOR_SPREAD, median, spread } from './stats.js';
import type { Rounds, ServerName } from './types.js';

export async function interleave<T>(
  rounds: number,
  targets: Partial<Record<ServerName, Target>>,
  measure: (t: Target) => Promise<T>,
  compare: (server: T, anchor: T) => number,
  anchorValue: (x: T) => number,
  log: (round: number, results: Partial<Record<ServerName, T>>) => void,
): Promise<Rounds<T>> {
  const out: Partial<Record<ServerName, T>>[] = [];
  const orders: ServerName[][] = [];
  const names = (Object.keys(targets) as ServerName[]).sort((a, b) => (a === 'anchor' ? -1 : b === 'anchor' ? 1 : 0));
  for (let i = 0; i < rounds; i++) {
    const order = rotation(names, i);
    const measured: Partial<Record<ServerName, T>> = {};
    for (const name of order) measured[name] = await measure(targets[name]!);
    // Stored in the fixed order (anchor first) so tables line up; the run order is kept beside.
    const r: Partial<Record<ServerName, T>> = {};
    for (const name of names) r[name] = measured[name];
    out.push(r);
    orders.push(order);
    log(i + 1, r);
  }
  const vsAnchor: Partial<Record<ServerName, number>> = {};
  for (const name of names.filter((n) => n !== 'anchor')) vsAnchor[name] = median(out.map((r) => compare(r[name]!, r.anchor!)));
  const s = spread(out.map((r) => anchorValue(r.anchor!)));
  return { rounds: out, orders, vsAnchor, anchorSpread: s, flagged: s > MAX_ANCHOR_SPREAD };
}

/** The targets of the named servers only (a comparison of like with like). */
export function only(targets: Partial<Record<ServerName, Target>>, names: ServerName[]): Partial<Record<ServerName, Target>> {
  return Object.fromEntries(names.filter((n) => targets[n] !== undefined).map((n) => [n, targets[n]])) as Partial<Record<ServerName, Target>>;
}

/** Round `i`'s order: the list rotated left by `i`. */
export function rotation<T>(names: readonly T[], i: number): T[] {
  const k = names.length === 0 ? 0 : i % names.length;
  return [...names.slice(k), ...names.slice(0, k)];
}

export const rpsRatio = (x: ThroughputResult, a: ThroughputResult): number => x.rps / a.rps;
export const p99Diff = (x: FixedRateResult, a: FixedRateResult): number => x.p99Ms - a.p99Ms;
