/**
 * @module bench/lib/istio
 * Ours beside Istio's own injector (issue 16): `istio-injector-server` (built by
 * e2e/build/istio.sh, our thin main around Istio's pkg/kube/inject webhook handler) and our
 * `serve`, both with the config files rendered by the same Istio build, the same certificate,
 * TLS 1.2+, HTTP/1.1 keep-alive, pinned to core 0, with the anchor, in interleaved rounds: max
 * RPS and latency at a fixed rate on F1, F2 and F3. Istio has no result cache, so each of its
 * requests is a full injection. Replica pods: ours and Istio get the
 * fixture's one body repeated (what a ReplicaSet's pods look like). Every pod new: ours with the
 * cache off and Istio get the fixture's variant set (F1-new, F2-new), the same sequence, so no
 * cache inside ours hits on a repeated body (wrk cycling for max RPS, vegeta or else the Node
 * open-loop child at the fixed rate); F3 has no variant set and stays one body repeated, for all four servers.
 */
import { join } from 'node:path';
import { findIstioPeer, ISTIO_MODULE_VERSION, writePeerConfigDir } from '../../test/support/istio-peer.js';
import type { SpawnedServer } from '../../test/support/server-process.js';
import { sendOne, makeAgent } from '../../test/support/load-client.js';
import { NEW_SET, type FixtureName, type VariantFiles, type VariantSet } from '../fixtures.js';
import { describeBodies, fixedRate, listRate, maxThroughput, WEBHOOK_PATH, type Bodies, type Target } from './load.js';
import { interleave, only, p99Diff, rpsRatio } from './rounds.js';
import { startCommand, startServer, type CertFiles, type ServerSpec } from './servers.js';
import { median } from './stats.js';
import type { Tools } from './tools.js';
import type { IstioComparison, IstioResults, ServerName, Settings, VariantCheck } from './types.js';
import { checkVariants, describeCheck, requireAllInjected } from './variant-check.js';

const ISTIO_FIXTURES: FixtureName[] = ['F1', 'F2', 'F3'];

/**
 * The section's comparisons. Where a fixture has a variant set (F1, F2), two, as in the main
 * section: replica pods (the anchor, ours and Istio, the one body repeated) and
 * every pod new (the anchor, ours and Istio, the variant set in turn: Istio
 * has no cache, so ours must not reuse one either). F3 has no variant set (2,000 env vars is one
 * pathological pod): one comparison of all four on its one body.
 */
export function istioPlan(rate: number): IstioComparison[] {
  const out: IstioComparison[] = [];
  for (const fixture of ISTIO_FIXTURES) {
    // A rate every server sustains on a shared 2-core machine (every request is a full
    // injection for Istio); F3 at a fifth of it.
    const r = fixture === 'F3' ? Math.max(5, Math.round(rate / 5)) : rate;
    const set = NEW_SET[fixture];
    if (set === undefined) out.push({ fixture, servers: ['anchor', 'ours', 'ours-new', 'istio'], rate: r });
    else out.push({ fixture, servers: ['anchor', 'ours', 'istio'], rate: r }, { fixture, set, servers: ['anchor', 'ours-new', 'istio'], rate: r });
  }
  return out;
}

/** What a comparison sends: its variant set's bodies in turn, or the fixture's one body file. */
export function comparisonBodies(c: IstioComparison, files: Record<FixtureName, string>, variants: Partial<Record<VariantSet, VariantFiles>>): Bodies {
  if (c.set === undefined) return files[c.fixture];
  const v = variants[c.set];
  if (v === undefined) throw new Error(`variant set ${c.set} not written`);
  return v;
}

/** Median over rounds of `mine` / Istio, from the comparison of `c` that measured `mine`. */
function ratioToIstio(cs: IstioComparison[], fixture: FixtureName, mine: ServerName): number {
  const t = cs.find((c) => c.fixture === fixture && c.servers.includes(mine))?.throughput;
  return t === undefined ? Number.NaN : median(t.rounds.map((r) => r[mine]!.rps / r.istio!.rps));
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
  await sendOne(
    agent,
    { port },
    {
      kind: 'valid',
      label: 'check',
      path: WEBHOOK_PATH,
      headers: { 'Content-Type': 'application/json' },
      body,
      check: (_s, b) => void (parsed = JSON.parse(b.toString('utf8')) as typeof parsed),
    },
    performance.now(),
  );
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
  /** The variant sets written for the run (bench/fixtures.ts writeVariants). */
  variants: Partial<Record<VariantSet, VariantFiles>>;
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
    'ours-new': { kind: 'ours', certs: o.certs, flags: ['--config', configDir, ...o.settings.oursFlags] },
  };
  const plan = istioPlan(o.rate);
  const results: IstioResults = { version: ISTIO_MODULE_VERSION, patchOps: {}, variantChecks: {}, comparisons: plan, oursOverIstio: {} };
  const running: Partial<Record<ServerName, SpawnedServer>> = {};
  try {
    for (const [name, spec] of Object.entries(specs) as [ServerName, ServerSpec][]) running[name] = await startServer(spec, o.bodies.F1);
    running.istio = await startIstio(o.certs, peer, o.bodies.F1);
    const targets: Partial<Record<ServerName, Target>> = {};
    for (const [name, s] of Object.entries(running) as [ServerName, SpawnedServer][]) targets[name] = { name, port: s.port, pid: s.pid, path: WEBHOOK_PATH };
    const compared: ServerName[] = ['ours-new', 'istio'];
    for (const f of ISTIO_FIXTURES) {
      const ops: Partial<Record<ServerName, number>> = {};
      for (const name of compared) ops[name] = await patchOps(running[name]!.port, o.bodies[f]);
      results.patchOps[f] = ops;
      o.log(`${f}: patch ops ours ${ops['ours-new']}, Istio ${ops.istio}`);
      if (!(ops['ours-new']! > 0 && ops.istio! > 0)) throw new Error(`${f} is not injected by both servers`);
    }
    // Every body of every set sent here, once, to both servers compared: each must be injected by both.
    const checks: { server: string; check: VariantCheck }[] = [];
    for (const set of new Set(plan.flatMap((c) => (c.set === undefined ? [] : [c.set])))) {
      const byServer: Partial<Record<ServerName, VariantCheck>> = {};
      for (const name of compared) {
        const v = o.variants[set];
        if (v === undefined) throw new Error(`variant set ${set} not written`);
        const check = await checkVariants(running[name]!.port, v);
        byServer[name] = check;
        checks.push({ server: name, check });
        o.log(describeCheck(check, name));
      }
      results.variantChecks[set] = byServer;
    }
    requireAllInjected(checks);
    const opts = { connections: o.settings.connections, warmupS: o.settings.warmupS, durationS: o.settings.durationS, workDir: o.work };
    for (const c of plan) {
      const bodies = comparisonBodies(c, o.files, o.variants);
      c.throughput = await interleave(
        o.settings.pairs,
        only(targets, c.servers),
        (x) => maxThroughput(o.tools, x, bodies, opts),
        rpsRatio,
        (x) => x.rps,
        (i, r) =>
          o.log(
            `istio ${c.fixture} max RPS, ${describeBodies(bodies)}, round ${i}: ${Object.entries(r)
              .map(([k, v]) => `${k} ${v.rps.toFixed(0)}`)
              .join(', ')}`,
          ),
      );
    }
    for (const f of ISTIO_FIXTURES) results.oursOverIstio[f] = { everyPodNew: ratioToIstio(plan, f, 'ours-new'), replicaPods: ratioToIstio(plan, f, 'ours') };
    for (const c of plan) {
      const bodies = comparisonBodies(c, o.files, o.variants);
      // h2load sends one body only: a variant set goes through vegeta (or the Node open-loop child), for every server of the comparison.
      const measure = (x: Target) =>
        typeof bodies === 'string' ? fixedRate(o.tools, x, bodies, { ...opts, rate: c.rate }) : listRate(o.tools, x, bodies, { ...opts, rate: c.rate });
      c.latency = await interleave(
        o.settings.pairs,
        only(targets, c.servers),
        measure,
        p99Diff,
        (x) => x.p99Ms,
        (i, r) =>
          o.log(
            `istio ${c.fixture} @${c.rate}/s, ${describeBodies(bodies)}, round ${i}: ${Object.entries(r)
              .map(([k, v]) => `${k} p50 ${v.p50Ms.toFixed(2)} p99 ${v.p99Ms.toFixed(2)}`)
              .join(', ')}`,
          ),
      );
    }
  } catch (err) {
    results.error = err instanceof Error ? err.message : String(err);
    o.log(`ours vs Istio failed: ${results.error}`);
  } finally {
    for (const s of Object.values(running)) await s.stop();
  }
  return results;
}
