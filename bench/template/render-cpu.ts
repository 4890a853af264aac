/**
 * @module bench/template/render-cpu
 * The render stage's CPU cost inside one injection, before against after a change, in the same
 * run: render-cpu-child.ts is bundled with esbuild against each tree's src/ (a checkout of the
 * baseline, and this one), as the shipped CLI is bundled (no tsx wrappers), and each bundle is
 * timed in its own child process, the order alternating between pairs. Per case (F1, F2 of
 * bench/fixtures.ts with the built-in config, F1 with Istio's chart config when
 * ../shared/conformance/istio is there; namespace `shop`, webhook mode): injectPod, the stages
 * up to select with and without render, and render and template execution alone, in CPU µs
 * per call (process.cpuUsage; median of batches; then the median over pairs of each tree's
 * median, and the median of the per-pair ratios).
 *
 *   npx tsx bench/template/render-cpu.ts --base DIR [--pairs 4] [--ms 100] [--batches 7] [--warm 500] [--inject-only] [--single-threaded-gc]
 *
 * `--base DIR`: the baseline tree, e.g. `git archive main | tar -x -C DIR` plus
 * `ln -s $PWD/node_modules DIR/node_modules`.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { reviewBodies } from '../fixtures.js';
import { median } from '../lib/stats.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
const argv = process.argv.slice(2);
const opt = (flag: string, fallback: string): string => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1]! : fallback);
const BASE = argv.includes('--base') ? resolve(opt('--base', '')) : undefined;
const PAIRS = Number(opt('--pairs', '4'));
if (BASE === undefined) throw new Error('--base DIR is required (the baseline tree)');
/** `--single-threaded-gc`: V8 collects on the main thread, so CPU time stops depending on how busy its helper threads were. */
const NODE_FLAGS = argv.includes('--single-threaded-gc') ? ['--single-threaded-gc'] : [];
const ISTIO_DIR = resolve(ROOT, '../shared/conformance/istio/') + '/';

const trees: Record<string, string> = { before: BASE, after: ROOT };
const bundles: Record<string, string> = {};
for (const [label, dir] of Object.entries(trees)) {
  // Two directories deep, like the sources, so the bundle finds defaults/ as src/ does.
  const work = join(dir, '.bench-tmp', 'render-cpu');
  mkdirSync(work, { recursive: true });
  copyFileSync(join(HERE, 'render-cpu-child.ts'), join(work, 'child.ts'));
  bundles[label] = join(work, 'child.mjs');
  await build({
    entryPoints: [join(work, 'child.ts')],
    outfile: bundles[label],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    banner: { js: "import { createRequire as __siCreateRequire } from 'node:module'; const require = __siCreateRequire(import.meta.url);" },
  });
}

const bodies = await reviewBodies();
const pods = Object.fromEntries((['F1', 'F2'] as const).map((f) => [f, JSON.parse(bodies[f].toString()).request.object]));
const podsFile = join(mkdtempSync(join(tmpdir(), 'render-cpu-')), 'pods.json');
writeFileSync(podsFile, JSON.stringify(pods));

function child(label: string): Record<string, number[]> {
  const args = [
    bundles[label]!,
    podsFile,
    opt('--ms', '100'),
    opt('--batches', '7'),
    opt('--warm', '500'),
    ...(argv.includes('--inject-only') ? ['injectPod'] : []),
  ];
  const r = spawnSync(process.execPath, [...NODE_FLAGS, ...args], {
    encoding: 'utf8',
    cwd: trees[label],
    maxBuffer: 16 << 20,
    env: { ...process.env, SI_ISTIO_CONFORMANCE_DIR: ISTIO_DIR },
  });
  if (r.status !== 0) throw new Error(`child for ${trees[label]} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, number[]>;
}

const meds: Record<string, Record<string, number[]>> = { before: {}, after: {} };
const ratios: Record<string, number[]> = {};
for (let p = 0; p < PAIRS; p++) {
  const order = p % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  const got: Record<string, Record<string, number[]>> = {};
  for (const t of order) got[t] = child(t);
  for (const k of Object.keys(got.after!)) {
    for (const t of order) (meds[t]![k] ??= []).push(median(got[t]![k]!));
    (ratios[k] ??= []).push(median(got.after![k]!) / median(got.before![k]!));
  }
  process.stderr.write(
    `pair ${p + 1} of ${PAIRS}: ${Object.keys(got.after!)
      .filter((k) => k.endsWith('injectPod'))
      .map((k) => `${k} ${median(got.before![k]!).toFixed(0)} -> ${median(got.after![k]!).toFixed(0)}`)
      .join(', ')}\n`,
  );
}

console.log('| measure (CPU µs per call, esbuild bundle) | before | after | after / before (median of pairs) |');
console.log('|---|---|---|---|');
for (const k of Object.keys(ratios)) {
  console.log(`| ${k} | ${median(meds.before![k]!).toFixed(1)} | ${median(meds.after![k]!).toFixed(1)} | ${median(ratios[k]!).toFixed(2)}x |`);
}
