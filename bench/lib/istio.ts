/**
 * @module bench/lib/istio
 * Ours beside Istio's own injector (issue 16): `istio-injector-server` (built by
 * e2e/build/istio.sh, our thin main around Istio's pkg/kube/inject webhook handler) and our
 * `serve`, both with the config files rendered by the same Istio build, the same certificate,
 * TLS 1.2+, HTTP/1.1 keep-alive, pinned to core 0, with the anchor, in interleaved rounds: max
 * RPS and latency at a fixed rate on F1, F2 and F3. Istio has no result cache, so each of its
 * requests is a full injection; ours runs with the cache off (every pod new) and on (replica
 * pods: the fixture repeated is what a ReplicaSet's pods look like).
 */
import { join } from 'node:path';
import { findIstioPeer, ISTIO_MODULE_VERSION, writePeerConfigDir } from '../../src/testing/istio-peer.js';
import type { SpawnedServer } from '../../src/testing/server-process.js';
import { sendOne, makeAgent } from '../../src/testing/load-client.js';
import type { FixtureName } from '../fixtures.js';
import { fixedRate, maxThroughput, WEBHOOK_PATH, type FixedRateResult, type Target, type ThroughputResult } from './load.js';
import { interleave, p99Diff, rpsRatio } from './rounds.js';
import { startCommand, startServer, type CertFiles, type ServerSpec } from './servers.js';
import { median } from './stats.js';
import type { Tools } from './tools.js';
import type { Rounds, ServerName, Settings } from './types.js';

export const ISTIO_FIXTURES: FixtureName[] = ['F1', 'F2', 'F3'];

export interface IstioResults {
  version: string;
  /** Patch operations each server answered per fixture (both must inject). */
  patchOps: Partial<Record<FixtureName, Partial<Record<ServerName, number>>>>;
  throughput: Partial<Record<FixtureName, Rounds<ThroughputResult>>>;
  latency: Partial<Record<FixtureName, Rounds<FixedRateResult>>>;
  /** Rate of the fixed-rate runs per fixture. */
  rates: Partial<Record<FixtureName, number>>;
  /** Median over rounds of ours / Istio max RPS: every pod new (cache off) and replica pods (cache on). */
  oursOverIstio: Partial<Record<FixtureName, { everyPodNew: number; replicaPods: number }>>;
  error?: string;
}

function startIstio(certs: CertFiles, peer: NonNullable<ReturnType<typeof findIstioPeer>>, body: Buffer): Promise<SpawnedServer> {
  return startCommand(
    (port) => ({
      command: peer.injectorServer,
      args: ['-port', String(port), '-cert', certs.cert, '-key', certs.key, '-inject-config', peer.injectConfig, '-values', peer.values, '-mesh', peer.mesh],
      // Native sidecars on, as our config has them (istiod's "auto" on Kubernetes >= 1.33).
      env: { ...process.env, ENABLE_NATIVE_SIDECARS: 'true' },
    }),
    body,
  );
}

async function patchOps(port: number, body: Buffer): Promise<number> {
  const agent = makeAgent(1, {});
  let parsed: { response?: { patch?: string } } = {};
  await sendOne(agent, { port }, { kind: 'valid', label: 'check', path: WEBHOOK_PATH, headers: { 'Content-Type': 'application/json' }, body, check: (_s, b) => void (parsed = JSON.parse(b.toString('utf8')) as typeof parsed) }, performance.now());
  agent.destroy();
  const p = parsed.response?.patch;
  return p === undefined ? 0 : (JSON.parse(Buffer.from(p, 'base64').toString('utf8')) as unknown[]).length;
}

export interface IstioRunOptions {
  tools: Tools;
  certs: CertFiles;
  anchor: ServerSpec;
  bodies: Record<FixtureName, Buffer>;
  files: Record<FixtureName, string>;
  settings: Settings;
  /** Fixed rate for F1 and F2 (`--istio-rate`, default 100/s). */
  rate: number;
  work: string;
  log: (line: string) => void;
}

export async function runIstio(o: IstioRunOptions): Promise<IstioResults | undefined> {
  const peer = findIstioPeer();
  if (peer === undefined) {
    o.log('Istio peer not built (run e2e/build/istio.sh): skipping ours vs Istio');
    return undefined;
  }
  const configDir = writePeerConfigDir(peer, join(o.work, 'istio-config'), { nativeSidecars: true });
  const specs: Partial<Record<ServerName, ServerSpec>> = {
    anchor: o.anchor,
    ours: { kind: 'ours', certs: o.certs, flags: ['--config', configDir, ...o.settings.oursFlags] },
    'ours-nocache': { kind: 'ours', certs: o.certs, flags: ['--config', configDir, '--result-cache-entries', '0', ...o.settings.oursFlags] },
  };
  const results: IstioResults = { version: ISTIO_MODULE_VERSION, patchOps: {}, throughput: {}, latency: {}, rates: {}, oursOverIstio: {} };
  const running: Partial<Record<ServerName, SpawnedServer>> = {};
  try {
    for (const [name, spec] of Object.entries(specs) as [ServerName, ServerSpec][]) running[name] = await startServer(spec, o.bodies.F1);
    running.istio = await startIstio(o.certs, peer, o.bodies.F1);
    const targets: Partial<Record<ServerName, Target>> = {};
    for (const [name, s] of Object.entries(running) as [ServerName, SpawnedServer][]) targets[name] = { name, port: s.port, pid: s.pid, path: WEBHOOK_PATH };
    for (const f of ISTIO_FIXTURES) {
      const ops: Partial<Record<ServerName, number>> = {};
      for (const name of ['ours-nocache', 'istio'] as ServerName[]) ops[name] = await patchOps(running[name]!.port, o.bodies[f]);
      results.patchOps[f] = ops;
      o.log(`${f}: patch ops ours ${ops['ours-nocache']}, Istio ${ops.istio}`);
      if (!(ops['ours-nocache']! > 0 && ops.istio! > 0)) throw new Error(`${f} is not injected by both servers`);
    }
    const opts = { connections: o.settings.connections, warmupS: o.settings.warmupS, durationS: o.settings.durationS, workDir: o.work };
    for (const f of ISTIO_FIXTURES) {
      const t = await interleave(o.settings.pairs, targets, (x) => maxThroughput(o.tools, x, o.files[f], opts), rpsRatio, (x) => x.rps, (i, r) =>
        o.log(`istio ${f} max RPS round ${i}: ${Object.entries(r).map(([k, v]) => `${k} ${v.rps.toFixed(0)}`).join(', ')}`));
      results.throughput[f] = t;
      const ratio = (mine: ServerName) => median(t.rounds.map((r) => r[mine]!.rps / r.istio!.rps));
      results.oursOverIstio[f] = { everyPodNew: ratio('ours-nocache'), replicaPods: ratio('ours') };
    }
    for (const f of ISTIO_FIXTURES) {
      // A rate every server sustains on a shared 2-core machine (every request is a full
      // injection for Istio); F3 (2,000 env vars) at a fifth of it.
      const rate = f === 'F3' ? Math.max(5, Math.round(o.rate / 5)) : o.rate;
      results.rates[f] = rate;
      results.latency[f] = await interleave(o.settings.pairs, targets, (x) => fixedRate(o.tools, x, o.files[f], { ...opts, rate }), p99Diff, (x) => x.p99Ms, (i, r) =>
        o.log(`istio ${f} @${rate}/s round ${i}: ${Object.entries(r).map(([k, v]) => `${k} p50 ${v.p50Ms.toFixed(2)} p99 ${v.p99Ms.toFixed(2)}`).join(', ')}`));
    }
  } catch (err) {
    results.error = err instanceof Error ? err.message : String(err);
    o.log(`ours vs Istio failed: ${results.error}`);
  } finally {
    for (const s of Object.values(running)) await s.stop();
  }
  return results;
}

