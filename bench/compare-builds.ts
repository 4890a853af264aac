/**
 * @module bench/compare-builds
 * Before and after of a change to the server, over HTTPS: the server built in another checkout
 * (a `git worktree` of the older commit, with `npm run build` run in it) against this one, and
 * the anchor, on the every-pod-new variant sets (fixtures.ts) or
 * on one fixture's body repeated (F1-F4; F4, the opted-out pod, is the path without injection).
 * Within a round the three alternate in rotating order on the same bodies; printed are the
 * requests/s of each round, the medians, and server CPU per request (the steadier figure on a
 * shared machine). Then cold start (spawn to the first answer), seven times each, alternating.
 * Needs wrk and a quiet machine; `npm run build` here first.
 *
 *   npx tsx bench/compare-builds.ts --base /tmp/base [--rounds 3] [--sets F1-new,F1-daemonset,F2-new,F4]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VARIANT_SETS, writeFixtures, writeVariants, type VariantSet } from './fixtures.js';
import { maxThroughput, WEBHOOK_PATH, type Bodies } from './lib/load.js';
import { startCommand, startServer, writeCertificate } from './lib/servers.js';
import { median } from './lib/stats.js';
import { ensureTools } from './lib/tools.js';
import { REPO_ROOT } from '../test/support/server-process.js';
import { option } from './lib/args.js';
import { recordLoad } from './lib/quiet.js';

recordLoad();

const argv = process.argv.slice(2);
const opt = (name: string, fallback?: string): string => option(argv, name, fallback);
const base = opt('--base');
const rounds = Number(opt('--rounds', '3'));
const SINGLE = ['F1', 'F2', 'F3', 'F4'] as const;
type Single = (typeof SINGLE)[number];
const sets = opt('--sets', VARIANT_SETS.join(',')).split(',') as (VariantSet | Single)[];
for (const s of sets)
  if (!(VARIANT_SETS as readonly string[]).includes(s) && !(SINGLE as readonly string[]).includes(s))
    throw new Error(`unknown set ${s}: use ${[...VARIANT_SETS, ...SINGLE].join(', ')}`);

const dir = join(REPO_ROOT, '.bench-tmp', 'compare-builds');
const certs = await writeCertificate(join(dir, 'certs'));
const variants = writeVariants(join(dir, 'variants'));
const fixtures = await writeFixtures(join(dir, 'fixtures'));
const bodiesOf = (set: VariantSet | Single): Bodies =>
  (SINGLE as readonly string[]).includes(set) ? fixtures.reviews[set as Single] : variants[set as VariantSet];
const tools = ensureTools(false);
if (!tools.wrk) throw new Error('wrk is needed (apt-get install wrk)');

type Who = 'anchor' | 'before' | 'after';
const ORDERS: Who[][] = [
  ['anchor', 'before', 'after'],
  ['after', 'anchor', 'before'],
  ['before', 'after', 'anchor'],
];
const serve = (root: string) => (port: number) => ({
  command: process.execPath,
  args: [
    join(root, 'dist', 'bin', 'sidecar-injector.mjs'),
    'serve',
    '--port',
    String(port),
    '--address',
    '127.0.0.1',
    '--tls-cert',
    certs.cert,
    '--tls-key',
    certs.key,
  ],
});

const results = new Map<string, { rps: number[]; cpuUs: number[] }>();
for (let r = 0; r < rounds; r++) {
  for (const set of sets) {
    const bodies = bodiesOf(set);
    const first = readFileSync(typeof bodies === 'string' ? bodies : bodies.files[0]);
    for (const who of ORDERS[r % ORDERS.length]) {
      const server =
        who === 'anchor' ? await startServer({ kind: 'anchor', certs }, first) : await startCommand(serve(who === 'before' ? base : REPO_ROOT), first);
      try {
        const t = await maxThroughput(tools, { name: who, port: server.port, pid: server.pid, path: WEBHOOK_PATH }, bodies, {
          connections: 10,
          warmupS: 1,
          durationS: 3,
          workDir: dir,
        });
        let e = results.get(`${set} ${who}`);
        if (e === undefined) results.set(`${set} ${who}`, (e = { rps: [], cpuUs: [] }));
        e.rps.push(Math.round(t.rps));
        if (t.serverCpu !== undefined) e.cpuUs.push(Math.round((t.serverCpu * 1e6) / t.rps));
      } finally {
        await server.stop();
      }
    }
  }
}
for (const set of sets) {
  const get = (who: Who) => results.get(`${set} ${who}`)!;
  const line = (who: Who) =>
    `${who.padEnd(6)} ${get(who).rps.join(' / ')} requests/s, median ${median(get(who).rps)}, ${median(get(who).cpuUs)} µs CPU per request`;
  console.log(`${set}:\n  ${line('anchor')}\n  ${line('before')}\n  ${line('after')}`);
  console.log(
    `  after / before ${(median(get('after').rps) / median(get('before').rps)).toFixed(2)}x; vs anchor ${(median(get('before').rps) / median(get('anchor').rps)).toFixed(3)}x -> ${(median(get('after').rps) / median(get('anchor').rps)).toFixed(3)}x`,
  );
}

const cold: Record<Who, number[]> = { anchor: [], before: [], after: [] };
const anchorCommand = (port: number) => ({
  command: process.execPath,
  args: [join(REPO_ROOT, 'bench', 'anchor.js'), '--port', String(port), '--cert', certs.cert, '--key', certs.key],
});
const body = readFileSync(fixtures.reviews.F1);
for (let i = 0; i < 7; i++) {
  for (const who of ORDERS[i % ORDERS.length]) {
    const server = await startCommand(who === 'anchor' ? anchorCommand : serve(who === 'before' ? base : REPO_ROOT), body);
    cold[who].push(Math.round(server.readyMs ?? Number.NaN));
    await server.stop();
  }
}
console.log(
  `cold start to the first answer (ms): ${(['anchor', 'before', 'after'] as const).map((w) => `${w} ${cold[w].join(' / ')}, median ${median(cold[w])}`).join('; ')}`,
);
