/**
 * @module bench/lib/pepr-run
 * The side-by-side run: anchor, ours and Pepr 1.1.4 on F1 with the same harness, certificate,
 * pinning and tools, in rotation, two comparisons as in the main section: replica pods (the
 * anchor, ours and Pepr, the F1 body repeated) and every pod new (the anchor,
 * ours and Pepr, the F1-new variant set in turn, the same sequence to each). Max throughput at the same
 * connection count; latency at a fixed rate Pepr can sustain (`--pepr-rate`, default 200/s,
 * since Pepr tops out well under the 1,000/s used for ours). Cold starts of Pepr include its
 * deliberate 0-3 s store jitter (it binds /mutate only after its store is ready).
 * Any failure is reported as the error, not thrown: the rest of the benchmark stands.
 */
import type { FixtureName, VariantFiles, VariantSet } from '../fixtures.js';
import { procSample } from '../../test/support/proc-stats.js';
import type { SpawnedServer } from '../../test/support/server-process.js';
import { fixedRate, listRate, listRateClient, maxThroughput, WEBHOOK_PATH, type Target } from './load.js';
import { installPepr, PEPR_PATH, PEPR_VERSION, startPepr, type PeprProcesses } from './pepr.js';
import { interleave, only, p99Diff, rpsRatio } from './rounds.js';
import { SERVER_CPUS, startServer, type CertFiles, type ServerSpec } from './servers.js';
import { median } from './stats.js';
import type { Tools } from './tools.js';
import type { PeprResults, ServerName, Settings, VariantCheck } from './types.js';
import { checkVariants, describeCheck, requireAllInjected } from './variant-check.js';

export interface PeprRunOptions {
  tools: Tools;
  certs: CertFiles;
  bodies: Record<FixtureName, Buffer>;
  fixtureFile: string;
  /** The variant sets written for the run; F1-new is the every-pod-new comparison's. */
  variants: Partial<Record<VariantSet, VariantFiles>>;
  settings: Settings;
  work: string;
  /** anchor, ours and (unless skipped) ours-new. */
  specs: Partial<Record<ServerName, ServerSpec>>;
  log: (line: string) => void;
}

/** Pepr's module does F1's mutation: its every-pod-new comparison sends F1's variant set. */
const PEPR_SET: VariantSet = 'F1-new';

export async function runPepr(o: PeprRunOptions): Promise<PeprResults> {
  const out: PeprResults = { version: PEPR_VERSION, dir: '', coldStartMs: [], idleRss: [], oursOverPepr: {} };
  try {
    o.log(`installing pepr@${PEPR_VERSION} (outside the repository)`);
    const install = installPepr();
    out.dir = install.dir;
    out.installSeconds = install.installSeconds;
    const coldReps = Math.min(3, o.settings.coldReps);
    for (let i = 0; i < coldReps; i++) {
      const p = await startPepr(install, o.certs, o.bodies.F1, SERVER_CPUS);
      out.coldStartMs.push(p.pepr.readyMs ?? Number.NaN);
      await new Promise((r) => setTimeout(r, 1000));
      out.idleRss.push(procSample(p.pepr.pid)?.rssBytes);
      await p.stop();
    }
    o.log(`Pepr cold start: ${out.coldStartMs.map((x) => x.toFixed(0)).join(', ')} ms`);

    const running: SpawnedServer[] = [];
    let pepr: PeprProcesses | undefined;
    const targets: Partial<Record<ServerName, Target>> = {};
    try {
      for (const [name, spec] of Object.entries(o.specs) as [ServerName, ServerSpec][]) {
        const server = await startServer(spec, o.bodies.F1);
        running.push(server);
        targets[name] = { name, port: server.port, pid: server.pid, path: WEBHOOK_PATH };
      }
      pepr = await startPepr(install, o.certs, o.bodies.F1, SERVER_CPUS);
      targets.pepr = { name: 'pepr', port: pepr.pepr.port, pid: pepr.pepr.pid, path: PEPR_PATH };
      const opts = { connections: o.settings.connections, warmupS: o.settings.warmupS, durationS: o.settings.durationS, workDir: o.work };
      const line = (r: Partial<Record<ServerName, { rps?: number; p99Ms: number; serverCpu?: number }>>, rps: boolean): string =>
        Object.entries(r)
          .map(([k, v]) => `${k} ${rps ? `${v.rps?.toFixed(0)} rps` : `p99 ${v.p99Ms.toFixed(2)} ms`}`)
          .join(', ');
      // Replica pods: the F1 body repeated, to the anchor, ours and Pepr.
      const replica = only(targets, ['anchor', 'ours', 'pepr']);
      out.throughput = await interleave(
        o.settings.pairs,
        replica,
        (t) => maxThroughput(o.tools, t, o.fixtureFile, opts),
        rpsRatio,
        (x) => x.rps,
        (i, r) => o.log(`Pepr side by side, F1 max RPS, replica pods, round ${i}: ${line(r, true)}`),
      );
      out.latency = await interleave(
        o.settings.pairs,
        replica,
        (t) => fixedRate(o.tools, t, o.fixtureFile, { ...opts, rate: o.settings.peprRate }),
        p99Diff,
        (x) => x.p99Ms,
        (i, r) => o.log(`Pepr side by side, F1 @${o.settings.peprRate}/s, replica pods, round ${i}: ${line(r, false)}`),
      );
      out.oursOverPepr.ours = median(out.throughput.rounds.map((r) => r.ours!.rps / r.pepr!.rps));
      // Every pod new: the F1-new set in turn, the same sequence to the anchor, ours with the
      // cache off and Pepr (each body first checked: injected by both compared).
      const v = o.variants[PEPR_SET];
      if (targets['ours-new'] !== undefined && v !== undefined) {
        const checks: Partial<Record<ServerName, VariantCheck>> = {};
        for (const name of ['ours-new', 'pepr'] as ServerName[]) {
          checks[name] = await checkVariants(targets[name]!.port, v, targets[name]!.path);
          o.log(describeCheck(checks[name]!, name));
        }
        const np: NonNullable<PeprResults['newPods']> = { set: PEPR_SET, checks };
        out.newPods = np;
        requireAllInjected(Object.entries(checks).map(([server, check]) => ({ server, check })));
        const fresh = only(targets, ['anchor', 'ours-new', 'pepr']);
        np.throughput = await interleave(
          o.settings.pairs,
          fresh,
          (t) => maxThroughput(o.tools, t, v, opts),
          rpsRatio,
          (x) => x.rps,
          (i, r) => o.log(`Pepr side by side, F1 max RPS, every pod new (${v.files.length} bodies in turn), round ${i}: ${line(r, true)}`),
        );
        // h2load sends one body only: vegeta (or the Node open-loop child), for every server of the comparison.
        np.latency = await interleave(
          o.settings.pairs,
          fresh,
          (t) => listRate(o.tools, t, v, { ...opts, rate: o.settings.peprRate }),
          p99Diff,
          (x) => x.p99Ms,
          (i, r) => o.log(`Pepr side by side, F1 @${o.settings.peprRate}/s, every pod new (${listRateClient(o.tools)}), round ${i}: ${line(r, false)}`),
        );
        out.oursOverPepr['ours-new'] = median(np.throughput.rounds.map((r) => r['ours-new']!.rps / r.pepr!.rps));
      }
      out.peakRss = procSample(pepr.pepr.pid)?.hwmBytes;
    } finally {
      await pepr?.stop();
      for (const s of running) await s.stop();
    }
  } catch (err) {
    out.error = err instanceof Error ? err.message : String(err);
    o.log(`Pepr side-by-side failed: ${out.error}`);
  }
  return out;
}
