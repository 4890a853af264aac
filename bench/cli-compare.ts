/**
 * @module bench/cli-compare
 * `inject -f` on the 1,000-document fixture by several builds of the CLI, alternating in each
 * round (the machine is shared): median wall time and median CPU time (user + system, read by
 * the child itself at exit) per build, and whether the outputs are the same bytes. A build is a
 * directory holding a built checkout (`dist/bin/sidecar-injector.mjs`, `defaults/`), e.g. an
 * older commit: `git archive C | tar -x -C DIR && ln -s $PWD/node_modules DIR && (cd DIR && npm run build)`.
 *
 *   npx tsx bench/cli-compare.ts [--rounds 5] [--manifest FILE] DIR [DIR...]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeFixtures } from './fixtures.js';
import { median } from './lib/stats.js';
import { recordLoad } from './lib/quiet.js';

recordLoad();

const argv = process.argv.slice(2);
const take = (flag: string): string | undefined => {
  const i = argv.indexOf(flag);
  return i === -1 ? undefined : argv.splice(i, 2)[1];
};
const rounds = Number(take('--rounds') ?? 5);
const work = mkdtempSync(join(tmpdir(), 'cli-compare-'));
const manifest = take('--manifest') ?? (await writeFixtures(join(work, 'fixtures'))).m1000;
const dirs = argv.map((d) => resolve(d));
if (dirs.length === 0) throw new Error('usage: cli-compare.ts [--rounds N] [--manifest FILE] DIR [DIR...]');

// Loaded before the CLI: reports this process's CPU time on stderr when it exits.
const CPU_HOOK = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\nCPU_US '+(u.user+u.system)+'\\n')})`;

const wall: number[][] = dirs.map(() => []);
const cpu: number[][] = dirs.map(() => []);
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < dirs.length; k++) {
    const i = (k + r) % dirs.length;
    const out = join(work, `out-${i}.yaml`);
    const s = performance.now();
    const p = spawnSync(process.execPath, ['--import', CPU_HOOK, join(dirs[i], 'dist/bin/sidecar-injector.mjs'), 'inject', '-f', manifest, '-o', out, '-q'], {
      encoding: 'utf8',
    });
    wall[i].push(performance.now() - s);
    const m = /CPU_US (\d+)/.exec(p.stderr);
    if (p.status !== 0 || m === null) throw new Error(`${dirs[i]} exited ${p.status}: ${p.stderr.slice(0, 2000)}`);
    cpu[i].push(Number(m[1]) / 1000);
  }
}
const first = readFileSync(join(work, 'out-0.yaml'));
process.stdout.write(`inject -f ${manifest}; ${rounds} rounds, order rotating; medians\n\n`);
dirs.forEach((d, i) => {
  const same = readFileSync(join(work, `out-${i}.yaml`)).equals(first);
  process.stdout.write(
    `${d}: wall ${(median(wall[i]) / 1000).toFixed(2)} s, CPU ${(median(cpu[i]) / 1000).toFixed(2)} s${i === 0 ? '' : same ? ', same bytes as the first' : ', output differs from the first'}\n`,
  );
});
rmSync(work, { recursive: true, force: true });
