/**
 * @module bench/lib/results
 * What one measured run of a load tool gives, whichever tool ran it (wrk, h2load, vegeta, the
 * Node client): the leaf that the load drivers, the rounds and the reports all share.
 */
export interface ThroughputResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Non-2xx answers plus socket errors and timeouts. */
  errors: number;
  serverCpu: number | undefined;
  tool: string;
}

export interface FixedRateResult {
  targetRps: number;
  achievedRps: number;
  count: number;
  non200: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  serverCpu: number | undefined;
  tool: string;
}
