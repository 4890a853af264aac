/**
 * @module bench/lib/types
 * The shape of one benchmark run's results (written as JSON next to the fixtures and rendered
 * into bench/RESULTS.md), shared by the runner and the report.
 */
import type { FixtureName } from '../fixtures.js';
import type { BenchEnv } from './env.js';
import type { FixedRateResult, ThroughputResult } from './load.js';
import type { CliResult, F3Result, Timing } from './micro.js';
import type { ColdStart } from './servers.js';
import type { IstioResults } from './istio.js';

export interface Settings {
  pairs: number;
  warmupS: number;
  durationS: number;
  connections: number;
  rate: number;
  coldReps: number;
  peprRate: number;
  /** Our variants measured (ours, and ours-nocache unless --no-nocache). */
  ours: ServerName[];
  oursFlags: string[];
  command: string;
  tools: { wrk?: string; h2load?: string; taskset: boolean; notes: string[] };
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

/** The servers a round measures, in the order they run. */
export type ServerName = 'anchor' | 'ours' | 'ours-nocache' | 'pepr' | 'istio';

export const SERVER_LABELS: Record<ServerName, string> = {
  anchor: 'anchor',
  ours: 'ours, result cache on (replica pods)',
  'ours-nocache': 'ours, cache off (every pod new)',
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
  throughput?: Rounds<ThroughputResult>;
  latency?: Rounds<FixedRateResult>;
  /** Median over rounds of ours / Pepr RPS, for each of our variants. */
  oursOverPepr: Partial<Record<ServerName, number>>;
  error?: string;
}

export interface TargetCheck {
  metric: string;
  target: string;
  measured: string;
  met: boolean | undefined;
}

export interface BenchResults {
  env: BenchEnv;
  settings: Settings;
  fixtures: FixtureCheck[];
  cold?: { anchor: ColdStart[]; ours: ColdStart[] };
  throughput?: Partial<Record<FixtureName, Rounds<ThroughputResult>>>;
  latency?: Partial<Record<FixtureName, Rounds<FixedRateResult>>>;
  /** The same rate with arrivals spread out (one-connection h2load processes, staggered). */
  paced?: Partial<Record<FixtureName, Rounds<FixedRateResult>>>;
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
