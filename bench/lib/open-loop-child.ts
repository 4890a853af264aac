/**
 * @module bench/lib/open-loop-child
 * The fixed-rate generator for a list of bodies (h2load sends one body only): the open-loop
 * client of test/support/load-client.ts in a process of its own, so the harness can pin it to the
 * generator's core as it does wrk and h2load, and its timers share no event loop with the
 * harness. Request i carries body i mod N. Latency counts from each request's scheduled time
 * (a stall of the server, or of this process, is not hidden); the achieved rate counts answers
 * within the measured window only. Warm-up run, then a line
 * `measuring`, the measured run, a line `measured`, and one line of JSON (OpenLoopOutput).
 *
 *   node --import tsx bench/lib/open-loop-child.ts '{"port":8443,"path":"/inject","listFile":"f1-new.list","rate":1000,"connections":10,"warmupS":1,"durationS":3}'
 */
import { readFileSync } from 'node:fs';
import { percentiles, runFixedRate, type LoadRequest } from '../../test/support/load-client.js';

export interface OpenLoopInput {
  port: number;
  path: string;
  listFile: string;
  rate: number;
  connections: number;
  warmupS: number;
  durationS: number;
}

export interface OpenLoopOutput {
  sent: number;
  completed: number;
  /** Requests answered as expected per second, within the measured run. */
  achievedRps: number;
  /** Requests answered after the measured run ended (a backlog). */
  late: number;
  failed: number;
  problems: string[];
  bodies: number;
  p50: number;
  p90: number;
  p99: number;
  'p99.9': number;
  max: number;
}

async function main(): Promise<void> {
  const input = JSON.parse(process.argv[2] ?? '') as OpenLoopInput;
  const bodies = readFileSync(input.listFile, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((f) => readFileSync(f));
  if (bodies.length === 0) throw new Error(`no bodies listed in ${input.listFile}`);
  const next = (i: number): LoadRequest => ({
    kind: 'valid',
    label: 'bench',
    path: input.path,
    headers: { 'Content-Type': 'application/json' },
    body: bodies[i % bodies.length],
    check: (status) => (status === 200 ? undefined : `HTTP ${status}`),
  });
  // The measured run goes on from the body after the warm-up's last, so the bodies it opens
  // with were not just seen (a server's recent-item caches would hit on them).
  let offset = 0;
  const from = (i: number): LoadRequest => next(i + offset);
  const base = { port: input.port, connections: input.connections, rate: input.rate, next: from };
  if (input.warmupS > 0) offset = (await runFixedRate({ ...base, durationMs: input.warmupS * 1000 })).sent;
  process.stdout.write('measuring\n');
  // The achieved rate counts answers within the measured window only: an overloaded server's
  // backlog, answered after it, must not count as keeping up (its latencies do count).
  const windowEnd = performance.now() + input.durationS * 1000;
  let inWindow = 0;
  const s = await runFixedRate({
    ...base,
    durationMs: input.durationS * 1000,
    onRecord: (r) => void (r.problem === undefined && r.endedAt <= windowEnd && inWindow++),
  });
  process.stdout.write('measured\n');
  const p = percentiles(s.validLatencies, [50, 90, 99, 99.9]);
  const out: OpenLoopOutput = {
    sent: s.sent,
    completed: s.completed,
    achievedRps: inWindow / input.durationS,
    late: s.completed - inWindow - s.byKind.valid.failed,
    failed: s.byKind.valid.failed,
    problems: s.problems.slice(0, 5),
    bodies: bodies.length,
    p50: p.p50,
    p90: p.p90,
    p99: p.p99,
    'p99.9': p['p99.9'],
    max: p.max,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`open-loop-child failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
