/**
 * @module bench/json-guard
 * The webhook JSON guard's cost over JSON.parse alone, before and after, in the same process and
 * alternating: JSON.parse alone, the old guard (testing/json-guard-reference.ts: byte-at-a-time
 * depth scan), the guard with its JavaScript scan forced (as without WebAssembly), and the
 * guard. Median of `--rounds` rounds, CPU µs per call.
 *
 *   npx tsx bench/json-guard.ts [--rounds 9]
 */
import { reviewBodies } from './fixtures.js';
import { cpuUs, median } from './lib/stats.js';
import { exceedsDepthJs, parseJsonGuarded } from '../src/admission/json-guard.js';
import { referenceGuarded } from '../src/testing/json-guard-reference.js';
import { isUtf8 } from 'node:buffer';

const argv = process.argv.slice(2);
const ROUNDS = argv.includes('--rounds') ? Number(argv[argv.indexOf('--rounds') + 1]) : 9;


function perCall(fn: () => unknown, calls: number): number {
  const s = cpuUs();
  for (let i = 0; i < calls; i++) fn();
  return (cpuUs() - s) / calls;
}

/** The guard's steps with the JavaScript depth scan (the WebAssembly one's fallback). */
function guardJs(body: Buffer, max = 1000): boolean {
  if (!isUtf8(body)) return false;
  const text = body.toString('utf8');
  if (exceedsDepthJs(body, max)) return false;
  JSON.parse(text);
  return true;
}

const bodies = await reviewBodies();
const rows: string[] = [];
for (const f of ['F1', 'F2', 'F3'] as const) {
  const body = bodies[f];
  const calls = Math.max(50, Math.round(2_000_000 / body.length));
  const kinds = {
    'JSON.parse alone': () => JSON.parse(body.toString('utf8')),
    'guard before (byte scan)': () => referenceGuarded(body),
    'guard, JS scan, no count': () => guardJs(body),
    'guard now': () => parseJsonGuarded(body),
  };
  const xs: Record<string, number[]> = {};
  for (let r = 0; r < ROUNDS; r++) {
    // Rotate the order each round: the machine is shared.
    const names = Object.keys(kinds) as (keyof typeof kinds)[];
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + r) % names.length];
      (xs[name] ??= []).push(perCall(kinds[name], calls));
    }
  }
  const parse = median(xs['JSON.parse alone']);
  for (const [name, v] of Object.entries(xs)) {
    const m = median(v);
    rows.push(`${f} (${body.length} B)  ${name.padEnd(26)} ${m.toFixed(1).padStart(7)} µs  ${name === 'JSON.parse alone' ? '' : `+${(m - parse).toFixed(1)} over the parse`}`);
  }
}
process.stdout.write(`Node ${process.version}; median of ${ROUNDS} rounds (order rotating); CPU µs per call\n\n${rows.join('\n')}\n`);
