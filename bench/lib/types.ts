/**
 * @module bench/lib/types
 * The shape of one benchmark run's results (written as JSON next to the fixtures and rendered
 * into bench/RESULTS.md), shared by the runner and the report.
 */
import type { FixtureName, VariantSet } from '../fixtures.js';
import type { BenchEnv } from './env.js';
import type { FixedRateResult, ThroughputResult } from './results.js';
import type { CliResult, F3Result, Timing } from './micro.js';
import type { ColdStart } from './servers.js';

export interface Settings {
  pairs: number;
  warmupS: number;
  durationS: number;
  connections: number;
  rate: number;
  coldReps: number;
  peprRate: number;
  /** Our variants measured (ours, and ours-new unless --no-every-pod-new). */
  ours: ServerName[];
  /** Bodies per variant set for the every-pod-new rows (`--variants`, default 512). */
  variants?: number;
  oursFlags: string[];
  command: string;
  tools: { wrk?: string; h2load?: string; vegeta?: string; taskset: boolean; notes: string[] };
}

export interface FixtureCheck {
  name: FixtureName;
  bytes: number;
  status: number;
  allowed: boolean;
  patchOps: number;
  patchBytes: number;
  expected: string;
  ok: boolean;
}

/** A variant set (bench/fixtures.ts), each body sent once before measuring and its answer checked. */
export interface VariantCheck {
  set: VariantSet;
  /** What the bodies are and how they differ. */
  describe: string;
  count: number;
  bytesMin: number;
  bytesMedian: number;
  bytesMax: number;
  /** Bodies answered HTTP 200, allowed, with a patch and their own uid. */
  ok: number;
  /** The first few that were not, with why. */
  failures: string[];
  /** Median patch operations per answer. */
  patchOps: number;
  /** How many different patches the bodies got (distinct workloads: one each; one DaemonSet: the same). */
  distinctPatches: number;
}

/**
 * Every pod new (issue 18): the anchor and ours, both sent the same
 * sequence of distinct bodies (a variant set, cycled), so no cache inside the server can hit on a
 * repeated body and the anchor's cost is for the same bytes.
 */
export interface NewPodsResults {
  sets: VariantCheck[];
  /** Max throughput on F1-new / F2-new (wrk cycling the bodies): anchor and ours-new. */
  throughput?: Partial<Record<FixtureName, Rounds<ThroughputResult>>>;
  /** Max throughput on F1-daemonset: informational (no goal). */
  daemonSet?: Rounds<ThroughputResult>;
  /** Fixed rate on F1-new / F2-new (vegeta, or without it the Node open loop in a pinned child; the same for both). */
  latency?: Partial<Record<FixtureName, Rounds<FixedRateResult>>>;
}

/** The servers a round measures, in the order they run. */
export type ServerName = 'anchor' | 'ours' | 'ours-new' | 'pepr' | 'istio';

export const SERVER_LABELS: Record<ServerName, string> = {
  anchor: 'anchor',
  ours: 'ours (replica pods)',
  'ours-new': 'ours (every pod new)',
  pepr: 'Pepr 1.1.4',
  istio: "Istio's injector (pkg/kube/inject, Go)",
};

/** One measurement per server per round; the order rotates between rounds. */
export interface Rounds<T> {
  rounds: Partial<Record<ServerName, T>>[];
  /** The order each round measured the servers in (it rotates). */
  orders?: ServerName[][];
  /** Median over rounds of (server / anchor) RPS, or (server p99 - anchor p99) ms. */
  vsAnchor: Partial<Record<ServerName, number>>;
  anchorSpread: number;
  flagged: boolean;
}

export interface PeprResults {
  version: string;
  dir: string;
  installSeconds?: number;
  coldStartMs: number[];
  idleRss: (number | undefined)[];
  peakRss?: number;
  /** Replica pods: the F1 body repeated, to the anchor, ours (cache on) and Pepr. */
  throughput?: Rounds<ThroughputResult>;
  latency?: Rounds<FixedRateResult>;
  /** Every pod new: the variant set in turn, the same sequence to the anchor, ours-new and Pepr (each body checked with both first). */
  newPods?: { set: VariantSet; checks: Partial<Record<ServerName, VariantCheck>>; throughput?: Rounds<ThroughputResult>; latency?: Rounds<FixedRateResult> };
  /** Median over rounds of ours / Pepr RPS: ours from replica pods, ours-new from every pod new. */
  oursOverPepr: Partial<Record<ServerName, number>>;
  error?: string;
}

export interface TargetCheck {
  metric: string;
  target: string;
  measured: string;
  met: boolean | undefined;
  /** A row without a goal, shown for information. */
  informational?: boolean;
}

export interface BenchResults {
  env: BenchEnv;
  settings: Settings;
  fixtures: FixtureCheck[];
  cold?: { anchor: ColdStart[]; ours: ColdStart[] };
  /** Replica pods: the fixture's one body repeated, anchor and ours (result cache on). */
  throughput?: Partial<Record<FixtureName, Rounds<ThroughputResult>>>;
  /** Replica pods at a fixed rate (h2load, one body): anchor and ours. */
  latency?: Partial<Record<FixtureName, Rounds<FixedRateResult>>>;
  /** The same rate with arrivals spread out (one-connection h2load processes, staggered). */
  paced?: Partial<Record<FixtureName, Rounds<FixedRateResult>>>;
  /** Every pod new: distinct bodies to the anchor and ours. */
  newPods?: NewPodsResults;
  peakRss?: Partial<Record<ServerName, number>>;
  /** F3: in-process timings and HTTPS to the cache-off server (one injection, not a cache hit). */
  f3?: F3Result & { httpAnchor?: Timing };
  cli?: { m200: CliResult; m1000: CliResult };
  pepr?: PeprResults;
  /** Ours beside Istio's own webhook handler, both with Istio's config (bench/lib/istio.ts). */
  istio?: IstioResults;
  targets: TargetCheck[];
  notes: string[];
}

/** One comparison of the section: the servers measured together, in the same rounds, and what every one of them is sent. */
export interface IstioComparison {
  fixture: FixtureName;
  /** Sent in turn, the same sequence to every server of the comparison; absent: the fixture's one body, repeated. */
  set?: VariantSet;
  servers: ServerName[];
  /** Requests/s of its fixed-rate run. */
  rate: number;
  throughput?: Rounds<ThroughputResult>;
  latency?: Rounds<FixedRateResult>;
}

export interface IstioResults {
  version: string;
  /** Patch operations each server answered per fixture's one body (both must inject). */
  patchOps: Partial<Record<FixtureName, Partial<Record<ServerName, number>>>>;
  /** Every body of each variant set sent once to ours-new and to Istio before measuring. */
  variantChecks: Partial<Record<VariantSet, Partial<Record<ServerName, VariantCheck>>>>;
  comparisons: IstioComparison[];
  /** Median over rounds of ours / Istio max RPS: every pod new (cache off, its comparison) and replica pods (cache on). */
  oursOverIstio: Partial<Record<FixtureName, { everyPodNew: number; replicaPods: number }>>;
  error?: string;
}
