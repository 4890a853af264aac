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

export interface Settings {
  pairs: number;
  warmupS: number;
  durationS: number;
  connections: number;
  rate: number;
  coldReps: number;
  peprRate: number;
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

export interface ThroughputPair {
  anchor: ThroughputResult;
  ours: ThroughputResult;
  ratio: number;
}

export interface LatencyPair {
  anchor: FixedRateResult;
  ours: FixedRateResult;
  p99DiffMs: number;
}

export interface PerFixture<T> {
  pairs: T[];
  medianRatio?: number;
  medianP99DiffMs?: number;
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
  throughput: { anchor: ThroughputResult; ours: ThroughputResult; pepr: ThroughputResult; oursOverPepr: number; peprOverAnchor: number }[];
  latency: { anchor: FixedRateResult; ours: FixedRateResult; pepr: FixedRateResult }[];
  medianOursOverPepr: number;
  medianPeprOverAnchor: number;
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
  throughput?: Partial<Record<FixtureName, PerFixture<ThroughputPair>>>;
  latency?: Partial<Record<FixtureName, PerFixture<LatencyPair>>>;
  peakRss?: { anchor?: number; ours?: number };
  f3?: F3Result & { httpAnchor?: Timing };
  cli?: { m200: CliResult; m1000: CliResult };
  pepr?: PeprResults;
  targets: TargetCheck[];
  notes: string[];
}
