/**
 * @module bench/compare-core
 * Before and after of a change to the injection core, in one process: the core built in another
 * checkout (a `git worktree` of the older commit, `npm run build` run in it) and this one's, each
 * with its own module graph and built-in config, given the same pods. Passes over the pods
 * alternate between the two (the order flips every pass), and each pass's CPU time per pod is
 * kept, so a slow stretch of a shared machine lands on both; printed are the minimum, the first
 * quartile and the median per side. This is the steadier measure where the HTTPS comparison
 * (compare-builds.ts) is dominated by noise; it leaves out what the server adds around the core.
 *
 *   npx tsx bench/compare-core.ts --base /tmp/base [--sets F1-new,F1-daemonset,F2-new,F3] [--passes 15]
 *
 * The pods: a variant set's 512 pods (fixtures.ts), or F3 (2,000 env vars) 64 times. Each set
 * runs in a process of its own, so one set's state (a render memo standing aside after a set of
 * distinct workloads) does not carry into the next.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../test/support/server-process.js';
import { podF3, VARIANT_SETS, variantPod, type VariantSet } from './fixtures.js';
import { option } from './lib/args.js';
import { recordLoad } from './lib/quiet.js';

recordLoad();

const argv = process.argv.slice(2);
const opt = (name: string, fallback?: string): string => option(argv, name, fallback);
const base = opt('--base');
const passes = Number(opt('--passes', '15'));
const sets = opt('--sets', [...VARIANT_SETS, 'F3'].join(',')).split(',');
for (const s of sets)
  if (s !== 'F3' && !(VARIANT_SETS as readonly string[]).includes(s)) throw new Error(`unknown set ${s}: use ${[...VARIANT_SETS, 'F3'].join(', ')}`);
const child = argv.includes('--child');
if (!child) {
  for (const set of sets) {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', new URL(import.meta.url).pathname, '--child', '--base', base, '--passes', String(passes), '--sets', set],
      { stdio: 'inherit' },
    );
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  process.exit(0);
}

type InjectPod = (pod: unknown, ctx: { namespace: string; mode: 'webhook' }, config: unknown) => unknown;
interface Side {
  name: 'before' | 'after';
  inject: InjectPod;
  config: unknown;
}

async function load(name: Side['name'], root: string): Promise<Side> {
  const dist = (p: string) => pathToFileURL(join(root, 'dist', p)).href;
  const { injectPod } = (await import(dist('inject/index.js'))) as { injectPod: InjectPod };
  const { defaultConfig } = (await import(dist('profiles/index.js'))) as { defaultConfig: () => unknown };
  return { name, inject: injectPod, config: defaultConfig() };
}

const sides = [await load('before', base), await load('after', REPO_ROOT)];
const ctx = { namespace: 'default', mode: 'webhook' } as const;
const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))];

for (const set of sets) {
  const pods = set === 'F3' ? Array.from({ length: 64 }, () => podF3()) : Array.from({ length: 512 }, (_, i) => variantPod(set as VariantSet, i));
  // Warm both up (the JIT, and each side's caches as a running server's would be).
  for (const s of sides) for (let r = 0; r < 3; r++) for (const p of pods) s.inject(p, ctx, s.config);
  const times = new Map<Side['name'], number[]>(sides.map((s) => [s.name, []]));
  for (let k = 0; k < passes; k++) {
    for (const s of k % 2 === 0 ? sides : [...sides].reverse()) {
      const start = process.cpuUsage();
      for (const p of pods) s.inject(p, ctx, s.config);
      const used = process.cpuUsage(start);
      times.get(s.name)!.push((used.user + used.system) / pods.length);
    }
  }
  const row = (name: Side['name']) => {
    const xs = times.get(name)!;
    return `${name.padEnd(6)} min ${quantile(xs, 0).toFixed(1)}, p25 ${quantile(xs, 0.25).toFixed(1)}, median ${quantile(xs, 0.5).toFixed(1)} µs CPU per pod`;
  };
  const ratio = quantile(times.get('after')!, 0.25) / quantile(times.get('before')!, 0.25);
  console.log(`${set} (${pods.length} pods, ${passes} passes each):\n  ${row('before')}\n  ${row('after')}\n  after / before at p25: ${ratio.toFixed(2)}x`);
}
