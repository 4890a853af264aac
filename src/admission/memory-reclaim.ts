/**
 * @module admission/memory-reclaim
 * Give a body flood's memory back. When slow or greedy clients go away, the bodies they made the
 * webhook buffer (up to the body budget) and the ones it read and dropped (refused 413/503) are
 * garbage, but V8 collects only when JavaScript allocates again, and a webhook that is idle after
 * a flood allocates little: RSS stayed at the peak (73 MB -> 484 MB) and the replica stayed one
 * flood away from its memory limit. So after the budget drains from a large peak, and things have
 * been quiet for a moment, one full collection runs (at most one per `minIntervalMs`; it costs a
 * few milliseconds, rarely, and only after an event that already cost far more).
 *
 * `gc` is not exposed by default; the documented V8 flag is set at runtime and the function
 * taken from a fresh context (where the flag applies). If that fails, reclaiming is off and V8
 * collects in its own time.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from '../telemetry/log.js';

export interface Reclaimer {
  /** The body budget drained after holding `peak` bytes: collect once things are quiet. */
  drained(peak: number): void;
  /** Collections run so far (tests, metrics). */
  runs(): number;
  stop(): void;
}

let cachedGc: (() => void) | null | undefined;

function exposedGc(): (() => void) | null {
  if (cachedGc !== undefined) return cachedGc;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    cachedGc = typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    cachedGc = null;
  }
  return cachedGc;
}

export function memoryReclaimer(logger: Logger, options: { quietMs?: number; followUpMs?: number; minIntervalMs?: number; now?: () => number } = {}): Reclaimer {
  const quietMs = options.quietMs ?? 1000;
  const followUpMs = options.followUpMs ?? 3000;
  const minIntervalMs = options.minIntervalMs ?? 10_000;
  const now = options.now ?? (() => performance.now());
  let timer: NodeJS.Timeout | undefined;
  let last = -Infinity;
  let runs = 0;
  let peakSeen = 0;
  let rssAtStart = 0;

  // Two passes: the first, once the flood is over; the second a few seconds later, for what
  // connections still in the middle of closing held at the first (measured: the first pass alone
  // left most of the bodies alive).
  function collect(pass: 1 | 2): void {
    timer = undefined;
    const gc = exposedGc();
    if (gc === null) return;
    const before = process.memoryUsage.rss();
    gc();
    last = now();
    if (pass === 1) {
      timer = setTimeout(() => collect(2), followUpMs);
      timer.unref();
      rssAtStart = before;
      return;
    }
    runs++;
    logger.info({ bodyPeakBytes: peakSeen, rssBefore: rssAtStart, rssAfter: process.memoryUsage.rss() }, 'memory reclaimed after a body flood');
    peakSeen = 0;
  }

  return {
    drained(peak) {
      peakSeen = Math.max(peakSeen, peak);
      // Wait for quiet: a flood drains and refills; collect once after it is over.
      if (timer !== undefined) clearTimeout(timer);
      const wait = Math.max(quietMs, last + minIntervalMs - now());
      timer = setTimeout(() => collect(1), wait);
      timer.unref();
    },
    runs: () => runs,
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
