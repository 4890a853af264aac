/**
 * @module bench/lib/cluster-run
 * The measured part of the pod-create benchmark. A *block* creates N pods at a fixed rate in one
 * mode's namespace and reads, before and after it, the apiserver's webhook histogram, our
 * server's own histogram and its per-request log lines. Rounds of blocks interleave the modes
 * (a fresh shuffle per round), so every mode sees the same drift of a shared machine; a mode's
 * result is the sum of its blocks. The cold runs restart a server, wait until its `/readyz`
 * says ready (as a Deployment's probe would) and time its first pods.
 */
import { readFileSync } from 'node:fs';
import { createPods, sampleConnections, threadTimes, webhookHistograms, type ConnectionCount, type ThreadTimes } from './cluster-load.js';
import type { HookServer } from './cluster-servers.js';
import { namespaceOf, type ApiTrust } from './cluster-setup.js';
import { add, delta, EMPTY, histograms, type Histogram } from './prom.js';

const OUR_METRIC = 'sidecar_injector_request_duration_seconds';

/** What a mode is: the namespace it creates pods in, the server behind its webhook, what a pod must look like after. */
export interface Mode {
  name: string;
  /** Absent: no webhook (the apiserver alone). */
  server?: HookServer;
  /** Its webhooks' names (the apiserver's metric label). */
  webhooks: string[];
  pod: object;
  /** What is wrong with a created pod of this mode, or undefined. */
  check: (created: Record<string, unknown>) => string | undefined;
}

/** The per-request lines our server logged: durationMs by decision. */
export interface OurLog {
  injected: number[];
  skipped: number[];
}

/** One mode's measurements at one rate (all its blocks together). */
export interface ModeResult {
  mode: string;
  rate: number;
  pods: number;
  failed: number;
  problems: string[];
  /** Client-observed create latency, ms, one per pod. */
  createMs: number[];
  /** Wall time of the blocks, s (pods / this = the achieved rate). */
  seconds: number;
  /** The apiserver's admission time for this mode's webhooks. */
  apiserver: Histogram;
  /** Our histogram by outcome (ours only). */
  ours?: Record<string, Histogram>;
  log?: OurLog;
  connections?: ConnectionCount;
  /** The webhook server's threads: time on a CPU and waiting for one, ms (schedstat). */
  server: { cpuMs: number; waitMs: number };
  /** The same for kube-apiserver and etcd together. */
  controlPlane: { cpuMs: number; waitMs: number };
}

/** Where the run sends its pods and whose CPU it reads. */
export interface Target {
  trust: ApiTrust;
  /** kube-apiserver's and etcd's process ids. */
  controlPlane: number[];
}

export function emptyResult(mode: string, rate: number): ModeResult {
  return {
    mode,
    rate,
    pods: 0,
    failed: 0,
    problems: [],
    createMs: [],
    seconds: 0,
    apiserver: EMPTY,
    server: { cpuMs: 0, waitMs: 0 },
    controlPlane: { cpuMs: 0, waitMs: 0 },
  };
}

interface OurScrape {
  durations: Map<string, Histogram>;
}

async function ourScrape(server: HookServer): Promise<OurScrape> {
  const r = await server.get('/metrics');
  if (r.status !== 200) throw new Error(`${server.spec.name}: /metrics answered ${r.status}`);
  return { durations: histograms(r.body, OUR_METRIC, 'outcome') };
}

/** durationMs of the `admission` lines logged after `offset`, by decision. */
export function readOurLog(file: string, offset: number): OurLog {
  const out: OurLog = { injected: [], skipped: [] };
  const text = readFileSync(file).subarray(offset).toString('utf8');
  for (const line of text.split('\n')) {
    if (!line.includes('"msg":"admission"')) continue;
    try {
      const o = JSON.parse(line) as { durationMs?: number; decision?: string };
      if (typeof o.durationMs !== 'number') continue;
      if (o.decision === 'injected') out.injected.push(o.durationMs);
      else if (o.decision === 'skipped') out.skipped.push(o.durationMs);
    } catch {
      // Not a log line of ours (a partial write at the end): skipped.
    }
  }
  return out;
}

function sumOf(map: Map<string, Histogram>, names: readonly string[]): Histogram {
  let h = EMPTY;
  for (const n of names) h = add(h, map.get(n) ?? EMPTY);
  return h;
}

function times(pids: readonly (number | undefined)[]): ThreadTimes {
  const out = { cpuNs: 0, waitNs: 0 };
  for (const pid of pids) {
    const t = threadTimes(pid);
    out.cpuNs += t.cpuNs;
    out.waitNs += t.waitNs;
  }
  return out;
}

function addTimes(into: { cpuMs: number; waitMs: number }, after: ThreadTimes, before: ThreadTimes): void {
  into.cpuMs += (after.cpuNs - before.cpuNs) / 1e6;
  into.waitMs += (after.waitNs - before.waitNs) / 1e6;
}

/** One block: `count` pods at `rate` in the mode's namespace; adds what it measured to `into`. */
async function runBlock(target: Target, mode: Mode, rate: number, count: number, into: ModeResult): Promise<void> {
  const { trust } = target;
  const before = await webhookHistograms(trust);
  const oursBefore = mode.server?.spec.ours ? await ourScrape(mode.server) : undefined;
  const offset = mode.server?.spec.ours ? mode.server.logSize() : 0;
  const logFile = mode.server?.logFile();
  const serverPid = mode.server?.process()?.pid;
  const serverBefore = times([serverPid]);
  const cpBefore = times(target.controlPlane);
  const t0 = performance.now();
  const records = await createPods(trust, namespaceOf(mode.name), mode.pod, rate, count, mode.check);
  into.seconds += (performance.now() - t0) / 1000;
  addTimes(into.server, times([serverPid]), serverBefore);
  addTimes(into.controlPlane, times(target.controlPlane), cpBefore);
  const after = await webhookHistograms(trust);
  into.apiserver = add(into.apiserver, delta(sumOf(after, mode.webhooks), sumOf(before, mode.webhooks)));
  for (const r of records) {
    into.pods++;
    into.createMs.push(r.latencyMs);
    if (r.problem !== undefined) {
      into.failed++;
      if (into.problems.length < 5) into.problems.push(r.problem);
    }
  }
  if (mode.server?.spec.ours && oursBefore !== undefined && logFile !== undefined) {
    const oursAfter = await ourScrape(mode.server);
    into.ours ??= {};
    for (const [outcome, h] of oursAfter.durations) into.ours[outcome] = add(into.ours[outcome] ?? EMPTY, delta(h, oursBefore.durations.get(outcome)));
    const log = readOurLog(logFile, offset);
    into.log ??= { injected: [], skipped: [] };
    into.log.injected.push(...log.injected);
    into.log.skipped.push(...log.skipped);
  }
}

function shuffled<T>(xs: readonly T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

export interface RateOptions {
  rate: number;
  /** Pods per mode, split evenly over the rounds. */
  pods: number;
  rounds: number;
  log: (line: string) => void;
}

/** Every mode at one rate, interleaved: each round runs one block per mode, in a new random order. */
export async function runRate(target: Target, modes: readonly Mode[], o: RateOptions): Promise<ModeResult[]> {
  const results = new Map(modes.map((m) => [m.name, emptyResult(m.name, o.rate)]));
  const ports = new Set(modes.flatMap((m) => (m.server !== undefined ? [m.server.spec.port] : [])));
  const sampler = sampleConnections(ports);
  for (let round = 0; round < o.rounds; round++) {
    const count = Math.floor(o.pods / o.rounds) + (round < o.pods % o.rounds ? 1 : 0);
    const order = shuffled(modes);
    for (const m of order) await runBlock(target, m, o.rate, count, results.get(m.name)!);
    o.log(`${o.rate}/s round ${round + 1}/${o.rounds}: ${order.map((m) => m.name).join(', ')}`);
  }
  const conns = sampler.stop();
  for (const m of modes) if (m.server !== undefined) results.get(m.name)!.connections = conns.get(m.server.spec.port);
  return modes.map((m) => results.get(m.name)!);
}

export interface ColdResult extends ModeResult {
  /** Spawn to /readyz 200, ms, per start. */
  readyMs: number[];
}

/**
 * The first `pods` pods after a fresh start of each server, `runs` times, servers taking turns:
 * stop, start, wait for `/readyz` (polled every 50 ms: the most favourable probe), then create.
 */
export async function runCold(target: Target, modes: readonly Mode[], o: RateOptions & { runs: number }): Promise<ColdResult[]> {
  const results = new Map<string, ColdResult>(modes.map((m) => [m.name, { ...emptyResult(m.name, o.rate), readyMs: [] }]));
  for (let run = 0; run < o.runs; run++) {
    for (const m of shuffled(modes)) {
      const server = m.server!;
      await server.stop();
      const r = results.get(m.name)!;
      r.readyMs.push(await server.start());
      await runBlock(target, m, o.rate, o.pods, r);
    }
    o.log(`cold run ${run + 1}/${o.runs} done`);
  }
  return modes.map((m) => results.get(m.name)!);
}
