/**
 * @module bench/lib/pepr-run
 * The side-by-side run: anchor, ours and Pepr 1.1.4 on F1 with the same harness, certificate,
 * pinning and tools, in rotation (anchor, ours, Pepr per round). Max throughput at the same
 * connection count; latency at a fixed rate Pepr can sustain (`--pepr-rate`, default 200/s,
 * since Pepr tops out well under the 1,000/s used for ours). Cold starts of Pepr include its
 * deliberate 0-3 s store jitter (it binds /mutate only after its store is ready).
 * Any failure is reported as the error, not thrown: the rest of the benchmark stands.
 */
import type { FixtureName } from '../fixtures.js';
import { procSample } from '../../src/testing/proc-stats.js';
import { fixedRate, maxThroughput, WEBHOOK_PATH, type Target } from './load.js';
import { installPepr, PEPR_PATH, PEPR_VERSION, startPepr } from './pepr.js';
import { SERVER_CPUS, startServer, type CertFiles, type ServerSpec } from './servers.js';
import { median } from './stats.js';
import type { Tools } from './tools.js';
import type { PeprResults, Settings } from './types.js';

export interface PeprRunOptions {
  tools: Tools;
  certs: CertFiles;
  bodies: Record<FixtureName, Buffer>;
  fixtureFile: string;
  settings: Settings;
  work: string;
  anchorSpec: ServerSpec;
  oursSpec: ServerSpec;
  log: (line: string) => void;
}

export async function runPepr(o: PeprRunOptions): Promise<PeprResults> {
  const out: PeprResults = { version: PEPR_VERSION, dir: '', coldStartMs: [], idleRss: [], throughput: [], latency: [], medianOursOverPepr: Number.NaN, medianPeprOverAnchor: Number.NaN };
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

    const anchor = await startServer(o.anchorSpec, o.bodies.F1);
    const ours = await startServer(o.oursSpec, o.bodies.F1);
    const pepr = await startPepr(install, o.certs, o.bodies.F1, SERVER_CPUS);
    const t: Record<'anchor' | 'ours' | 'pepr', Target> = {
      anchor: { name: 'anchor', port: anchor.port, pid: anchor.pid, path: WEBHOOK_PATH },
      ours: { name: 'ours', port: ours.port, pid: ours.pid, path: WEBHOOK_PATH },
      pepr: { name: 'pepr', port: pepr.pepr.port, pid: pepr.pepr.pid, path: PEPR_PATH },
    };
    try {
      const opts = { connections: o.settings.connections, warmupS: o.settings.warmupS, durationS: o.settings.durationS, workDir: o.work };
      for (let i = 0; i < o.settings.pairs; i++) {
        const a = await maxThroughput(o.tools, t.anchor, o.fixtureFile, opts);
        const u = await maxThroughput(o.tools, t.ours, o.fixtureFile, opts);
        const p = await maxThroughput(o.tools, t.pepr, o.fixtureFile, opts);
        out.throughput.push({ anchor: a, ours: u, pepr: p, oursOverPepr: u.rps / p.rps, peprOverAnchor: p.rps / a.rps });
        o.log(`F1 max RPS round ${i + 1}: anchor ${a.rps.toFixed(0)}, ours ${u.rps.toFixed(0)}, Pepr ${p.rps.toFixed(0)} (cpu ${p.serverCpu?.toFixed(2)}, errors ${p.errors})`);
      }
      for (let i = 0; i < o.settings.pairs; i++) {
        const r = { ...opts, rate: o.settings.peprRate };
        const a = await fixedRate(o.tools, t.anchor, o.fixtureFile, r);
        const u = await fixedRate(o.tools, t.ours, o.fixtureFile, r);
        const p = await fixedRate(o.tools, t.pepr, o.fixtureFile, r);
        out.latency.push({ anchor: a, ours: u, pepr: p });
        o.log(`F1 @${o.settings.peprRate} rps round ${i + 1}: p99 anchor ${a.p99Ms.toFixed(2)}, ours ${u.p99Ms.toFixed(2)}, Pepr ${p.p99Ms.toFixed(2)} ms`);
      }
      out.peakRss = procSample(pepr.pepr.pid)?.hwmBytes;
    } finally {
      await pepr.stop();
      await anchor.stop();
      await ours.stop();
    }
    out.medianOursOverPepr = median(out.throughput.map((x) => x.oursOverPepr));
    out.medianPeprOverAnchor = median(out.throughput.map((x) => x.peprOverAnchor));
  } catch (err) {
    out.error = err instanceof Error ? err.message : String(err);
    o.log(`Pepr side-by-side failed: ${out.error}`);
  }
  return out;
}
