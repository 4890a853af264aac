/**
 * @module bench/lib/report-parts
 * The pieces every section of the benchmark report is made of (the main run's, Istio's and
 * Pepr's): round tables, the anchor's spread, which client sent, and what each comparison sent.
 */
import { VARIANT_DESCRIPTIONS, type VariantSet } from '../fixtures.js';
import type { FixedRateResult, ThroughputResult } from './results.js';
import { fmt, fmtInt, median } from './stats.js';
import { SERVER_LABELS, type Rounds, type ServerName, type VariantCheck } from './types.js';

/** Which fixed-rate client sent a list of bodies in these rounds (load.ts listRate), from each result's `tool`. */
function listClients(l: Rounds<FixedRateResult> | undefined): Set<'vegeta' | 'node'> {
  const tools = (l?.rounds ?? []).flatMap((r) => Object.values(r).flatMap((x) => (x === undefined ? [] : [x.tool])));
  return new Set(tools.map((t) => (t.startsWith('vegeta') ? 'vegeta' : 'node')));
}

/** The client's short name, for the targets table: "vegeta open loop" or "Node open loop". */
export function listClientName(l: Rounds<FixedRateResult> | undefined): string {
  const c = listClients(l);
  return c.size === 2 ? 'vegeta and Node open loop' : c.has('vegeta') ? 'vegeta open loop' : 'Node open loop';
}

/** What the client of an every-pod-new fixed-rate row is and how it paces (the section headings). */
export function listClientText(l: Rounds<FixedRateResult> | undefined): string {
  const vegeta =
    "vegeta (a Go open-loop load generator) pinned to the generator's core, its pacer handing each request to an idle worker when due (latency from then, the wait for a connection included)";
  const node =
    "the Node open-loop client in a child process pinned to the generator's core, a request due every 1/rate, sent from a 1 ms timer (latency from the scheduled time)";
  const c = listClients(l);
  return c.size === 2 ? `vegeta in some rounds, the Node client in others (see each result's tool): ${vegeta}; ${node}` : c.has('vegeta') ? vegeta : node;
}

export function spreadLine<T>(x: Rounds<T>, what = 'spread'): string {
  const order = x.orders === undefined ? '' : ` Order per round: ${x.orders.map((o, i) => `${i + 1}: ${o.join(' → ')}`).join('; ')}.`;
  return `Anchor ${what} ${(x.anchorSpread * 100).toFixed(1)} %${x.flagged ? ' (**over 10 %: flagged as noisy**)' : ''}.${order}`;
}

export function tp(x: ThroughputResult): string {
  return `${fmtInt(x.rps)} (cpu ${fmt(x.serverCpu)}, p50 ${fmt(x.p50Ms)} / p99 ${fmt(x.p99Ms)} ms${x.errors > 0 ? `, **${x.errors} errors**` : ''})`;
}

export function fr(x: FixedRateResult): string {
  return `${fmt(x.p50Ms)} / ${fmt(x.p99Ms)} / ${fmt(x.p999Ms)} / ${fmt(x.maxMs)} (at ${fmtInt(x.achievedRps)}/s, cpu ${fmt(x.serverCpu)}${x.non200 > 0 ? `, **${x.non200} non-200**` : ''})`;
}

/** One row per server, one column per round, then the median comparison with the anchor. */
export function roundsTable<T>(x: Rounds<T>, show: (v: T) => string, vs: (v: number) => string): string[] {
  const names = Object.keys(x.rounds[0] ?? {}) as ServerName[];
  const head = `| Server | ${x.rounds.map((_, i) => `Round ${i + 1}`).join(' | ')} | vs anchor (median) |`;
  const rows = names.map(
    (n) =>
      `| ${SERVER_LABELS[n]} | ${x.rounds.map((r) => (r[n] !== undefined ? show(r[n]!) : 'n/a')).join(' | ')} | ${n === 'anchor' ? '' : `**${vs(x.vsAnchor[n] ?? Number.NaN)}**`} |`,
  );
  return [head, `|---|${x.rounds.map(() => '---|').join('')}---|`, ...rows];
}

/** Each server as the object of "sends to", and its short name. */
const SENT_TO: Record<ServerName, [string, string]> = {
  anchor: ['the anchor', 'the anchor'],
  ours: ['ours', 'ours'],
  'ours-new': ['ours (every pod new)', 'ours'],
  pepr: ['Pepr', 'Pepr'],
  istio: ["Istio's injector", 'Istio'],
};

/** "a and b", "a, b and c". */
function and(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** "to the anchor and to ours", for a comparison's servers. */
function toServers(servers: ServerName[]): string {
  return and(servers.map((n) => `to ${SENT_TO[n][0]}`));
}

/** What a comparison sending one fixture's body sent. */
export function oneBodySends(f: string, bytes: string, servers: ServerName[]): string {
  return `Sends: the ${f} body (${bytes} B), the same bytes on every request (one uid), ${toServers(servers)}.`;
}

/** What an every-pod-new comparison sent, and how often each body came round in the measured runs. */
export function sendsLine(
  np: { sets: VariantCheck[] },
  set: VariantSet,
  t: Rounds<ThroughputResult> | undefined,
  how: string,
  servers: ServerName[] = ['anchor', 'ours-new'],
): string {
  const c = np.sets.find((x) => x.set === set);
  const n = c?.count ?? Number.NaN;
  const what = c?.describe ?? VARIANT_DESCRIPTIONS[set];
  const bytes = c ? `${fmtInt(c.bytesMin)}-${fmtInt(c.bytesMax)} B` : 'n/a';
  let passes = '';
  if (t !== undefined) {
    const per = (name: ServerName): string => `${fmt(median(t.rounds.map((r) => (r[name]?.requests ?? Number.NaN) / n)), 1)} times to ${SENT_TO[name][1]}`;
    const caveat =
      set === 'F1-daemonset'
        ? 'a memo of what templates read may rightly hit on all of them after the first, since they differ only in what templates do not read'
        : `a cache inside the server holding ${fmtInt(n)} or more entries would hit after the first pass, and the row would no longer be every pod new`;
    passes = ` In the measured runs each body went out about ${and(servers.map(per))} (median of rounds; each measured run goes on where its warm-up stopped): ${caveat}.`;
  }
  return `Sends: ${fmtInt(n)} ${what} (${bytes}), in turn, the same sequence ${toServers(servers)}; ${how}.${passes}`;
}
