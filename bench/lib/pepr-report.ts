/**
 * @module bench/lib/pepr-report
 * The Pepr side-by-side section of the benchmark report (bench/lib/pepr-run.ts): replica pods
 * and every pod new, each comparison with its own anchor runs and a "Sends:" line saying what
 * every server of it was sent.
 */
import { mib } from '../../test/support/proc-stats.js';
import { fr, listClientText, oneBodySends, roundsTable, sendsLine, spreadLine, tp } from './report-parts.js';
import { fmt, fmtInt } from './stats.js';
import { SERVER_LABELS, type PeprResults, type Rounds, type ServerName, type VariantCheck } from './types.js';

const serversOf = (t: Rounds<unknown>): ServerName[] => Object.keys(t.rounds[0] ?? {}) as ServerName[];
const ratioTable = (x: number): string => `${fmt(x, 3)}x`;
const msDiff = (x: number): string => `${x >= 0 ? '+' : ''}${fmt(x)} ms`;

function checked(c: VariantCheck | undefined, who: string): string {
  return c === undefined
    ? `${who} n/a`
    : `${who} ${fmtInt(c.ok)} of ${fmtInt(c.count)}${c.ok === c.count ? '' : ` **(${c.failures.join('; ')})**`} (${fmtInt(c.distinctPatches)} distinct patches)`;
}

export function renderPepr(p: PeprResults, rate: number, bytesOf: (f: string) => string): string[] {
  const L: string[] = [];
  L.push(
    `Side by side with Pepr ${p.version} (same F1 mutation, harness, certificate and pinning; installed in ${p.dir || 'n/a'}${p.installSeconds !== undefined ? `, npm install ${p.installSeconds.toFixed(0)} s` : ', reused'}). Pepr's module adds the mutation our core makes to F1 to every pod it is sent (no templates rendered per pod); Pepr keeps no cache of answers. Two comparisons, each with its own anchor runs: replica pods (ours) and every pod new (ours, a variant set in turn):`,
    '',
  );
  if (p.error) L.push(`**Failed:** ${p.error}`, '');
  if (p.throughput)
    L.push(
      'Max throughput, F1, replica pods:',
      '',
      oneBodySends('F1', bytesOf('F1'), serversOf(p.throughput)),
      '',
      ...roundsTable(p.throughput, tp, ratioTable),
      '',
      spreadLine(p.throughput),
      '',
    );
  if (p.latency)
    L.push(
      `Fixed rate ${rate}/s, F1, replica pods, h2load:`,
      '',
      oneBodySends('F1', bytesOf('F1'), serversOf(p.latency)),
      '',
      ...roundsTable(p.latency, fr, msDiff),
      '',
      spreadLine(p.latency, 'p99 spread'),
      '',
    );
  const np = p.newPods;
  if (np) {
    const ours = np.checks['ours-new'];
    L.push(
      `Every body of ${np.set} sent once to each compared server before measuring (expected: HTTP 200, allowed, a patch, its own uid): ${checked(ours, 'ours')}; ${checked(np.checks.pepr, 'Pepr')}.`,
      '',
    );
    const sets = { sets: ours ? [ours] : [] };
    if (np.throughput)
      L.push(
        `Max throughput, F1, every pod new:`,
        '',
        sendsLine(sets, np.set, np.throughput, 'wrk cycles through them, each request the next body', serversOf(np.throughput)),
        '',
        ...roundsTable(np.throughput, tp, ratioTable),
        '',
        spreadLine(np.throughput),
        '',
      );
    if (np.latency)
      L.push(
        `Fixed rate ${rate}/s, F1, every pod new, ${listClientText(np.latency)} (h2load cannot vary its body), for every server:`,
        '',
        sendsLine(sets, np.set, undefined, 'each request the next body', serversOf(np.latency)),
        '',
        ...roundsTable(np.latency, fr, msDiff),
        '',
        spreadLine(np.latency, 'p99 spread'),
        '',
      );
  }
  const ratios = Object.entries(p.oursOverPepr);
  if (ratios.length > 0)
    L.push(
      `Ours / Pepr max RPS (median of per-round ratios, each from its own comparison): ${ratios.map(([k, v]) => `${SERVER_LABELS[k as ServerName]} **${fmt(v, 1)}x**`).join('; ')}.`,
      '',
    );
  L.push(
    `Pepr cold start ${p.coldStartMs.map((x) => x.toFixed(0)).join(', ')} ms (includes its deliberate 0-3 s store jitter); idle RSS ${p.idleRss.map((x) => mib(x)).join(', ')} MiB; peak ${mib(p.peakRss)} MiB.`,
    '',
  );
  return L;
}
