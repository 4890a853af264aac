/**
 * @module cli/duration-flag
 * Every duration flag of the CLI parses through here: Go's `time.ParseDuration` grammar
 * (`1m30s`, `1.5h`, `500ms`; util/duration), as kubectl and Helm take durations. A bare number
 * is seconds, as kubectl's `--request-timeout` takes it, so scripts written when these flags
 * took seconds keep working. Values come back in milliseconds.
 */
import { InvalidArgumentError } from 'commander';
import { durationMs, formatDurationMs } from '../util/duration.js';

export interface DurationBounds {
  /** Smallest value allowed, ms (default 0). */
  minMs?: number;
  /** Largest value allowed, ms. */
  maxMs: number;
  /** Whole seconds only (a value written into a Kubernetes `...Seconds` field). */
  wholeSeconds?: boolean;
}

export const DURATION_HINT = 'a Go duration such as 30s, 1m30s, 1.5h or 500ms (a bare number is seconds)';

/** A commander argument parser for a duration flag within bounds. */
export function durationFlag(bounds: DurationBounds): (value: string) => number {
  return (value) => {
    const ms = durationMs(value);
    if (ms === undefined) throw new InvalidArgumentError(`expected ${DURATION_HINT}`);
    const min = bounds.minMs ?? 0;
    if (ms < min || ms > bounds.maxMs) throw new InvalidArgumentError(`expected a duration from ${formatDurationMs(min)} to ${formatDurationMs(bounds.maxMs)}`);
    if (bounds.wholeSeconds === true && ms % 1000 !== 0) throw new InvalidArgumentError('expected whole seconds (e.g. 5s or 1m)');
    return ms;
  };
}
