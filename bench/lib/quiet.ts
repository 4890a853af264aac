/**
 * @module bench/lib/quiet
 * Quiet-machine discipline (issue 37). A benchmark run beside a test suite, a build or another
 * benchmark measures the machine, not the code: issue 26's runs at load average 12 to 19 on 2
 * cores had every call wait 20 to 40 ms for a CPU. So every benchmark records the load average at
 * its start and end, and a goal is called met or missed only when the machine was quiet at the
 * start: a 1-minute load average of at most 0.75 per core (1.5 on 2 cores). The start decides,
 * because by the end the run's own processes have raised the load. On a busy machine the numbers
 * are still printed, with the verdict "not judged" and why.
 */
import { cpus, loadavg } from 'node:os';

/** The 1-minute load average per core above which a machine counts as busy. */
const BUSY_LOAD_PER_CORE = 0.75;

export interface Quiet {
  /** Whether goals may be judged. */
  quiet: boolean;
  /** The 1-minute load average at the start, and the limit it was held to. */
  load: number;
  limit: number;
  cores: number;
}

/** The machine's state from the load average (1, 5, 15 minutes) at a run's start. */
export function quietness(loadStart: readonly number[], cores: number = cpus().length): Quiet {
  const limit = BUSY_LOAD_PER_CORE * Math.max(1, cores);
  const load = loadStart[0] ?? Number.NaN;
  return { quiet: Number.isFinite(load) && load <= limit, load, limit, cores };
}

/** One sentence on the machine, for every report; `goals`: whether the report judges any. */
export function quietLine(q: Quiet, goals = true): string {
  const load = `load average ${q.load.toFixed(2)} ${q.quiet ? '≤' : '>'} ${q.limit} on ${q.cores} cores`;
  if (q.quiet) return `quiet at the start (${load})${goals ? ': goals are judged' : ''}`;
  const what = goals ? 'no goal is called met or missed' : 'these numbers measure the machine, not the code';
  return `**busy at the start** (${load}): ${what}; run again with nothing else on the machine (no test suite, no build, no other benchmark)`;
}

/** A goal's status: `met` / `missed` only on a quiet machine; `n/a` when nothing was measured. */
export function verdict(met: boolean | undefined, q: Quiet): 'met' | 'missed' | 'not judged (busy machine)' | 'n/a' {
  if (met === undefined) return 'n/a';
  if (!q.quiet) return 'not judged (busy machine)';
  return met ? 'met' : 'missed';
}

/** Rounded to two places, as the reports print it. */
function loadNow(): number[] {
  return loadavg().map((x) => Math.round(x * 100) / 100);
}

/**
 * For the benchmarks without goals: the load at the start is taken now, and when the process
 * exits, both loads and whether the machine was quiet are printed on stderr, so a number copied
 * from the output keeps its context.
 */
export function recordLoad(): void {
  // A benchmark's own child processes (`--child`) run inside the parent's record.
  if (process.argv.includes('--child')) return;
  const start = loadNow();
  process.once('exit', () => {
    process.stderr.write(`load average at start ${start.join(' ')}, at end ${loadNow().join(' ')}: ${quietLine(quietness(start), false)}\n`);
  });
}
