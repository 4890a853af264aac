/**
 * @module bench/template/render-cpu
 * The render stage's CPU cost inside one injection, before against after a change, in the same
 * run: each tree (a checkout of the baseline, and this one) is built with tsc into its dist/
 * (the code that ships: no tsx wrappers) and timed in its own child process, the order
 * alternating between pairs. Per fixture pod (F1, F2 of bench/fixtures.ts, default config,
 * namespace `shop`, webhook mode): injectPod whole, the render stage (template data, execute,
 * parseOverlay) and template execution alone, in CPU µs per call (process.cpuUsage; median of
 * batches; then the median over pairs of each tree's median).
 *
 *   npx tsx bench/template/render-cpu.ts --base DIR [--pairs 4] [--ms 100] [--batches 7] [--no-build] [--src]
 *
 * `--base DIR`: the baseline tree (e.g. `git archive main | tar -x -C DIR`, with node_modules
 * linked). `--src` times src/ through tsx instead of dist/ (to see what tsx adds).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reviewBodies } from '../fixtures.js';
import { median } from '../lib/stats.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const argv = process.argv.slice(2);
const opt = (flag: string, fallback: string): string => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1]! : fallback);
const BASE = argv.includes('--base') ? resolve(opt('--base', '')) : undefined;
const PAIRS = Number(opt('--pairs', '4'));
const SRC = argv.includes('--src');
if (BASE === undefined) throw new Error('--base DIR is required (the baseline tree)');

const trees: Record<string, string> = { before: BASE, after: ROOT };
if (!SRC && !argv.includes('--no-build')) {
  for (const dir of Object.values(trees)) {
    const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tsc failed in ${dir}: ${r.stdout}${r.stderr}`);
  }
}

const bodies = await reviewBodies();
const pods = Object.fromEntries((['F1', 'F2'] as const).map((f) => [f, JSON.parse(bodies[f].toString()).request.object]));
const podsFile = join(mkdtempSync(join(tmpdir(), 'render-cpu-')), 'pods.json');
writeFileSync(podsFile, JSON.stringify(pods));

function child(dir: string): Record<string, number[]> {
  const args = [join(HERE, 'render-cpu-child.mjs'), dir, podsFile, opt('--ms', '100'), opt('--batches', '7'), opt('--warm', '500')];
  const r = spawnSync(process.execPath, SRC ? ['--import', 'tsx', ...args, 'src'] : args, { encoding: 'utf8', cwd: dir, maxBuffer: 16 << 20 });
  if (r.status !== 0) throw new Error(`child for ${dir} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, number[]>;
}

const meds: Record<string, Record<string, number[]>> = { before: {}, after: {} };
const ratios: Record<string, number[]> = {};
for (let p = 0; p < PAIRS; p++) {
  const order = p % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  const got: Record<string, Record<string, number[]>> = {};
  for (const t of order) got[t] = child(trees[t]!);
  for (const k of Object.keys(got.after!)) {
    for (const t of order) (meds[t]![k] ??= []).push(median(got[t]![k]!));
    (ratios[k] ??= []).push(median(got.after![k]!) / median(got.before![k]!));
  }
  process.stderr.write(`pair ${p + 1} of ${PAIRS}\n`);
}

console.log(`| measure (CPU µs per call, ${SRC ? 'src via tsx' : 'built dist'}) | before | after | after / before (median of pairs) |`);
console.log('|---|---|---|---|');
for (const k of Object.keys(ratios)) {
  console.log(`| ${k} | ${median(meds.before![k]!).toFixed(1)} | ${median(meds.after![k]!).toFixed(1)} | ${median(ratios[k]!).toFixed(2)}x |`);
}
