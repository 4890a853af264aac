/**
 * @module bench/stages
 * Where one cache-miss injection's time goes, stage by stage (inject/stages.ts), in-process, for
 * the fixtures F1-F3 as the webhook sees them (status signing on). With `--baseline DIR` the same
 * is measured for another checkout of this repository (a `git worktree` of an older commit), in
 * alternating rounds in separate processes, and each stage's ratio is printed: the before/after
 * profile of a change. Stage times are wall-clock (hrtime around each stage call), so run it on
 * a quiet machine and read the medians of several rounds.
 *
 *   npx tsx bench/stages.ts [--rounds 3] [--iterations 3000] [--baseline /tmp/base]
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { reviewBodies, type FixtureName } from './fixtures.js';
import { median } from './lib/stats.js';
import { recordLoad } from './lib/quiet.js';

recordLoad();

const STAGES = ['readPod', 'decide', 'strip', 'select', 'render', 'merge', 'postProcess', 'order', 'annotate', 'patch'] as const;
const FIXTURES: readonly FixtureName[] = ['F1', 'F2', 'F3'];
type Profile = Record<string, number[]>; // fixture -> µs per stage (STAGES order), then the total

const argv = process.argv.slice(2);
const flag = (name: string): string | undefined => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const here = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Measure the checkout at `root` in this process: µs per stage per fixture. */
async function measure(root: string, iterations: number): Promise<Profile> {
  const { defaultConfig } = (await import(resolve(root, 'src/profiles/index.ts'))) as typeof import('../src/profiles/index.js');
  const { StatusKeys } = (await import(resolve(root, 'src/inject/status-mac.ts'))) as typeof import('../src/inject/status-mac.js');
  const S = (await import(resolve(root, 'src/inject/stages.ts'))) as typeof import('../src/inject/stages.js');
  const bodies = await reviewBodies();
  const config = defaultConfig();
  const keys = new StatusKeys();
  keys.rotate(Buffer.alloc(32, 7));
  const out: Profile = {};
  for (const f of FIXTURES) {
    const pod = (JSON.parse(bodies[f].toString()) as { request: { object: unknown } }).request.object;
    const ctx = { namespace: 'shop', mode: 'webhook' as const, statusKeys: keys };
    const total = new Array<number>(STAGES.length).fill(0);
    const warm = Math.ceil(iterations / 5);
    for (let it = 0; it < warm + iterations; it++) {
      const t: bigint[] = [process.hrtime.bigint()];
      const lap = <T>(v: T): T => (t.push(process.hrtime.bigint()), v);
      const read = lap(S.readPod(pod, ctx, config));
      const decided = lap(S.decideStage(read));
      if (!decided.decision.inject) throw new Error(`${f} is not injected: ${decided.decision.reason}`);
      const stripped = lap(S.strip(decided));
      const selected = lap(S.select(stripped));
      const rendered = lap(S.render(selected));
      const merged = lap(S.merge(rendered));
      const processed = lap(S.postProcess(merged));
      const ordered = lap(S.order(processed));
      const annotated = lap(S.annotate(ordered));
      lap(S.patch(annotated));
      if (it >= warm) for (let i = 0; i < STAGES.length; i++) total[i] += Number(t[i + 1] - t[i]);
    }
    const perStage = total.map((ns) => ns / iterations / 1000);
    out[f] = [...perStage, perStage.reduce((a, b) => a + b, 0)];
  }
  return out;
}

function child(root: string, iterations: number): Profile {
  const text = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', root, '--iterations', String(iterations)], {
    cwd: here,
    encoding: 'utf8',
  });
  return JSON.parse(text) as Profile;
}

async function main(): Promise<void> {
  const iterations = Number(flag('--iterations') ?? 3000);
  const childRoot = flag('--child');
  if (childRoot !== undefined) {
    process.stdout.write(JSON.stringify(await measure(childRoot, iterations)));
    return;
  }
  const rounds = Number(flag('--rounds') ?? 3);
  const baseline = flag('--baseline');
  const trees = baseline === undefined ? [here] : [resolve(baseline), here];
  const runs = trees.map(() => [] as Profile[]);
  for (let r = 0; r < rounds; r++) {
    // Alternate which tree goes first, so drift on a shared machine falls on both.
    const order = r % 2 === 0 ? trees.map((_, i) => i) : trees.map((_, i) => i).reverse();
    for (const i of order) runs[i].push(child(trees[i], iterations));
  }
  const med = (i: number, f: string, s: number) => median(runs[i].map((p) => p[f][s]));
  const names = [...STAGES, 'total'];
  process.stdout.write(`Node ${process.version}; µs per injection, median of ${rounds} rounds of ${iterations} (wall-clock per stage)\n\n`);
  process.stdout.write(`| Fixture | Tree | ${names.join(' | ')} |\n|---|---|${names.map(() => '---:').join('|')}|\n`);
  for (const f of FIXTURES) {
    trees.forEach((tree, i) => {
      const label = trees.length === 1 ? 'this' : i === 0 ? 'baseline' : 'this';
      process.stdout.write(`| ${f} | ${label} | ${names.map((_, s) => med(i, f, s).toFixed(1)).join(' | ')} |\n`);
    });
    if (trees.length === 2)
      process.stdout.write(`| ${f} | this / baseline | ${names.map((_, s) => `${(med(1, f, s) / med(0, f, s)).toFixed(2)}x`).join(' | ')} |\n`);
  }
  if (baseline !== undefined) process.stdout.write(`\nbaseline: ${resolve(baseline)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`stages failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
