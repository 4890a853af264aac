/**
 * @module bench/lib/istio-report
 * The "ours vs Istio" section of the benchmark report (bench/lib/istio.ts): the variant bodies'
 * check by both servers, a summary per fixture (ours / Istio), then each comparison's rounds,
 * each with a "Sends:" line saying what every server of it was sent.
 */
import type { FixtureName, VariantSet } from '../fixtures.js';
import { fr, listClientText, oneBodySends, roundsTable, sendsLine, tp } from './report-parts.js';
import { fmt, fmtInt, median } from './stats.js';
import type { IstioComparison, IstioResults, VariantCheck } from './types.js';

/** The comparison of `f` that measured ours (F1/F2: the variant set; F3: the one body, with all four). */
function everyPodNew(x: IstioResults, f: FixtureName): IstioComparison | undefined {
  return x.comparisons.find((c) => c.fixture === f && c.servers.includes('ours-new'));
}

/** What the every-pod-new comparison of a fixture sent, in the summary table. */
function newSends(x: IstioResults, c: IstioComparison | undefined): string {
  if (c === undefined) return 'n/a';
  if (c.set === undefined) return `the ${c.fixture} body repeated (no ${c.fixture} variant set): not every pod new for ours`;
  return `${fmtInt(x.variantChecks[c.set]?.['ours-new']?.count)} ${c.set} bodies in turn`;
}

function checkCell(c: VariantCheck | undefined): string {
  if (c === undefined) return 'n/a';
  return `${fmtInt(c.ok)} of ${fmtInt(c.count)}${c.ok === c.count ? '' : ` **(${c.failures.join('; ')})**`}, ${fmt(c.patchOps, 0)} ops, ${fmtInt(c.distinctPatches)} distinct patches`;
}

export function renderIstio(x: IstioResults, bytesOf: (f: string) => string): string[] {
  const L: string[] = [
    `Ours beside Istio's own injector (istio.io/istio ${x.version}, pkg/kube/inject's webhook handler served by \`istio-injector-server\`), both with the config rendered by that Istio build, native sidecars on; same certificate, TLS and pinning. Istio has no result cache: each request is a full injection. Two comparisons per fixture, each with its own anchor runs: *replica pods* (ours and Istio, the fixture's one body repeated) and *every pod new* (ours and Istio, the fixture's variant set in turn, the same sequence to both, so no cache inside ours hits on a repeated body). F3 has no variant set: its one body goes to all four servers, and its "every pod new" ratio is ours on a repeated body.`,
    '',
  ];
  if (x.error) L.push(`**Failed:** ${x.error}`, '');
  const sets = Object.keys(x.variantChecks) as VariantSet[];
  if (sets.length > 0) {
    L.push(
      "Variant sets (each body sent once to ours and to Istio's injector before measuring; expected from both: HTTP 200, allowed, a patch, its own uid):",
      '',
    );
    L.push('| Set | Bytes (min / median / max) | Ours, cache off: answered as expected | Istio: answered as expected |', '|---|---|---|---|');
    for (const set of sets) {
      const o = x.variantChecks[set]?.['ours-new'];
      L.push(
        `| ${set} | ${o ? `${fmtInt(o.bytesMin)} / ${fmtInt(o.bytesMedian)} / ${fmtInt(o.bytesMax)}` : 'n/a'} | ${checkCell(o)} | ${checkCell(x.variantChecks[set]?.istio)} |`,
      );
    }
    L.push('');
  }
  const fixtures = [...new Set(x.comparisons.filter((c) => c.throughput !== undefined).map((c) => c.fixture))];
  if (fixtures.length > 0) {
    L.push(
      '| Fixture | Patch ops, one body (ours / Istio) | Every pod new sends | Max RPS ours / Istio, every pod new | Max RPS ours / Istio, replica pods | p50 / p99 ms at fixed rate, every pod new: ours, Istio (same bodies) |',
      '|---|---|---|---|---|---|',
    );
    for (const f of fixtures) {
      const r = x.oursOverIstio[f];
      const c = everyPodNew(x, f);
      const lat = c?.latency;
      const med = (name: 'ours-new' | 'istio', k: 'p50Ms' | 'p99Ms') => median((lat?.rounds ?? []).map((round) => round[name]?.[k] ?? Number.NaN));
      const l =
        lat === undefined
          ? 'n/a'
          : `${fmt(med('ours-new', 'p50Ms'))} / ${fmt(med('ours-new', 'p99Ms'))}, ${fmt(med('istio', 'p50Ms'))} / ${fmt(med('istio', 'p99Ms'))} (at ${c!.rate}/s)`;
      L.push(
        `| ${f} | ${x.patchOps[f]?.['ours-new'] ?? 'n/a'} / ${x.patchOps[f]?.istio ?? 'n/a'} | ${newSends(x, c)} | **${fmt(r?.everyPodNew)}x** | **${fmt(r?.replicaPods)}x** | ${l} |`,
      );
    }
    L.push('');
  }
  for (const c of x.comparisons) {
    const kind = c.set !== undefined ? 'every pod new' : c.servers.includes('ours-new') ? 'one body (no variant set)' : 'replica pods';
    const sends = (how: string, withPasses: boolean): string => {
      if (c.set === undefined)
        return `${oneBodySends(c.fixture, bytesOf(c.fixture), c.servers)}${c.servers.includes('ours-new') ? ` ${c.fixture} has no variant set, so ours still reuses what it keeps of a repeated pod (e.g. parsed overlays, a render memo): not an every-pod-new measurement.` : ''}`;
      const check = x.variantChecks[c.set]?.['ours-new'];
      return sendsLine({ sets: check ? [check] : [] }, c.set, withPasses ? c.throughput : undefined, how, c.servers);
    };
    if (c.throughput)
      L.push(
        `Max throughput, ${c.fixture}, ${kind}:`,
        '',
        sends('wrk cycles through them, each request the next body', true),
        '',
        ...roundsTable(c.throughput, tp, (v) => `${fmt(v, 3)}x`),
        '',
      );
    const tool = c.set === undefined ? 'h2load' : `${listClientText(c.latency)} (h2load cannot vary its body), for every server`;
    if (c.latency)
      L.push(
        `Fixed rate ${c.rate}/s, ${c.fixture}, ${kind}, ${tool} (p50 / p99 / p99.9 / max ms):`,
        '',
        sends('each request the next body', false),
        '',
        ...roundsTable(c.latency, fr, (v) => `${v >= 0 ? '+' : ''}${fmt(v)} ms`),
        '',
      );
  }
  return L;
}
