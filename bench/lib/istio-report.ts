/**
 * @module bench/lib/istio-report
 * The "ours vs Istio" section of the benchmark report (bench/lib/istio.ts): per fixture, max RPS
 * and fixed-rate latency for every server and round, and ours / Istio.
 */
import type { FixtureName } from '../fixtures.js';
import type { IstioResults } from './istio.js';
import { fr, roundsTable, tp } from './report.js';
import { fmt, median } from './stats.js';

export function renderIstio(x: IstioResults): string[] {
  const L: string[] = [
    `Ours beside Istio's own injector (istio.io/istio ${x.version}, pkg/kube/inject's webhook handler served by \`istio-injector-server\`), both with the config rendered by that Istio build, native sidecars on; same certificate, TLS and pinning. Istio has no result cache: each request is a full injection. "Ours, cache off" runs the core on every request; "ours, cache on" is replica pods. Sends: each fixture's one body, repeated, to every server, so ours with the cache off still reuses what it keeps of a repeated pod (e.g. parsed overlays): not the distinct-workload every-pod-new measurement of the main section.`,
    '',
  ];
  if (x.error) L.push(`**Failed:** ${x.error}`, '');
  const fixtures = Object.keys(x.throughput) as FixtureName[];
  if (fixtures.length > 0) {
    L.push('| Fixture | Patch ops (ours / Istio) | Max RPS ours / Istio, every pod new | Max RPS ours / Istio, replica pods | p50 / p99 ms at fixed rate: ours every pod new, Istio |', '|---|---|---|---|---|');
    for (const f of fixtures) {
      const r = x.oursOverIstio[f];
      const lat = x.latency[f];
      const med = (name: 'ours-nocache' | 'istio', k: 'p50Ms' | 'p99Ms') => median((lat?.rounds ?? []).map((round) => round[name]?.[k] ?? Number.NaN));
      const l = lat === undefined ? 'n/a' : `${fmt(med('ours-nocache', 'p50Ms'))} / ${fmt(med('ours-nocache', 'p99Ms'))}, ${fmt(med('istio', 'p50Ms'))} / ${fmt(med('istio', 'p99Ms'))} (at ${x.rates[f]}/s)`;
      L.push(`| ${f} | ${x.patchOps[f]?.['ours-nocache'] ?? 'n/a'} / ${x.patchOps[f]?.istio ?? 'n/a'} | **${fmt(r?.everyPodNew)}x** | **${fmt(r?.replicaPods)}x** | ${l} |`);
    }
    L.push('');
  }
  for (const f of fixtures) {
    const t = x.throughput[f];
    if (t) L.push(`Max throughput, ${f}:`, '', ...roundsTable(t, tp, (v) => `${fmt(v, 3)}x`), '');
    const lat = x.latency[f];
    if (lat) L.push(`Fixed rate ${x.rates[f]}/s, ${f} (p50 / p99 / p99.9 / max ms):`, '', ...roundsTable(lat, fr, (v) => `${v >= 0 ? '+' : ''}${fmt(v)} ms`), '');
  }
  return L;
}
