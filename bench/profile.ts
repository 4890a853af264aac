/**
 * @module bench/profile
 * Where the built server spends its CPU under load: starts `serve` with `--cpu-prof`, drives one
 * fixture with the benchmark's max-throughput load for a while, stops it (the profile is written
 * at exit) and prints the top functions by self time and the top source files by self time,
 * with their share of all samples. Used to explain a missed target precisely (file/function).
 *
 *   npx tsx bench/profile.ts [--fixture F1] [--seconds 10] [--top 30] [--no-build] [--ours-flag=--log-level=warn]
 *     --fixture F1-new | F2-new | F1-daemonset: the variant set's bodies in turn (--variants N,
 *     default 512), as the every-pod-new rows of `npm run bench` send them
 *   npx tsx bench/profile.ts --startup      (cold start: spawn to the first answer)
 *
 * Also works on any .cpuprofile: npx tsx bench/profile.ts --analyze FILE
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildProject, REPO_ROOT } from '../test/support/server-process.js';
import { DEFAULT_VARIANTS, serverStatusKeys, VARIANT_SETS, writeFixtures, writeVariants, type FixtureName, type VariantSet } from './fixtures.js';
import { maxThroughput, WEBHOOK_PATH, type Bodies } from './lib/load.js';
import { startServer, writeCertificate } from './lib/servers.js';
import { ensureTools } from './lib/tools.js';
import { recordLoad } from './lib/quiet.js';

recordLoad();

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const argv = process.argv.slice(2);
const opt = (flag: string, fallback: string): string => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : fallback);

function where(url: string): string {
  if (url === '') return '(native)';
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  return path.startsWith(REPO_ROOT) ? relative(REPO_ROOT, path) : path;
}

/** Self time per function and per file, as shares of all sampled time. */
export function analyze(profile: CpuProfile, top: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const perFn = new Map<string, number>();
  const perFile = new Map<string, number>();
  for (const [id, t] of self) {
    const n = byId.get(id);
    if (!n) continue;
    const file = where(n.callFrame.url);
    const fn = `${n.callFrame.functionName || '(anonymous)'}  ${file}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
    perFn.set(fn, (perFn.get(fn) ?? 0) + t);
    perFile.set(file, (perFile.get(file) ?? 0) + t);
  }
  // Inclusive time: each sample counts once for every distinct function on its stack.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: ProfileNode): string =>
    `${n.callFrame.functionName || '(anonymous)'}  ${where(n.callFrame.url)}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ''}`;
  const inclusive = new Map<string, number>();
  for (const [id, t] of self) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (!n || !n.callFrame.url.includes('/dist/')) continue;
      const k = label(n);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + t);
    }
  }
  const rows = (m: Map<string, number>): string[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, t]) => `${((t / total) * 100).toFixed(1).padStart(5)} %  ${(t / 1000).toFixed(0).padStart(6)} ms  ${k}`);
  return [
    `total sampled ${(total / 1000).toFixed(0)} ms`,
    '',
    ...stages(byId, parent, self),
    '',
    'Top functions by self time:',
    ...rows(perFn),
    '',
    'Top files by self time:',
    ...rows(perFile),
    '',
    'Top project functions (dist/) by inclusive time:',
    ...rows(inclusive),
  ].join('\n');
}

/**
 * The request's stages outside the core (and the core's own hot-path checks): inclusive time of
 * the functions that make each stage, as a share of the non-idle time. A sample counts once per
 * stage; stages nest (the core is inside the handler), so they do not add up to 100 %.
 * "Outside project code" is every non-idle sample with no project function on its stack: TLS,
 * the HTTP parser, the event loop, GC.
 */
const STAGES: [string, string[]][] = [
  ['admission handler, all of it', ['handleAdmission']],
  ['  JSON parse with its guards', ['parseJsonGuarded']],
  ['  review validation', ['validateReview']],
  ['  injection core (injectPod)', ['injectPod']],
  ['    status HMAC signing (signStatus)', ['signStatus']],
  ['    status verification (verifyStatus)', ['verifyStatus']],
  ['    "current injection" check', ['isCurrentInjection']],
  ['  patch JSON (patchJson)', ['patchJson']],
  ['  answer serialisation (serializeReview)', ['serializeReview']],
  ['  log line (pino)', ['LOG']],
  ['metrics (request, inFlight; prom-client inc/observe)', ['request', 'inFlight', 'inc', 'incWithoutExemplar', 'observe', 'setValue']],
  ['log batch written to stderr (flush)', ['flush']],
  ['body read (readBody)', ['readBody']],
  ['response write (send: headers, TLS encrypt, socket write)', ['send']],
];

function stages(byId: Map<number, ProfileNode>, parent: Map<number, number>, self: Map<number, number>): string[] {
  let busy = 0;
  const per = new Map<string, number>();
  let outside = 0;
  for (const [id, t] of self) {
    const leaf = byId.get(id);
    if (leaf === undefined || leaf.callFrame.functionName === '(idle)') continue;
    busy += t;
    const names = new Set<string>();
    let ours = false;
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (!n) continue;
      if (n.callFrame.url.includes('/dist/')) {
        ours = true;
        names.add(n.callFrame.functionName);
      }
    }
    if (!ours) outside += t;
    for (const [label, fns] of STAGES) if (fns.some((f) => names.has(f))) per.set(label, (per.get(label) ?? 0) + t);
  }
  const pct = (t: number): string => `${((t / busy) * 100).toFixed(1).padStart(5)} %`;
  return [
    `Stages, inclusive, as shares of the non-idle time (${(busy / 1000).toFixed(0)} ms):`,
    ...STAGES.map(([label]) => `${pct(per.get(label) ?? 0)}  ${label}`),
    `${pct(outside)}  outside project code (TLS, HTTP parser, event loop, GC)`,
  ];
}

async function main(): Promise<void> {
  const top = Number(opt('--top', '30'));
  if (argv.includes('--analyze')) {
    process.stdout.write(`${analyze(JSON.parse(readFileSync(opt('--analyze', ''), 'utf8')) as CpuProfile, top)}\n`);
    return;
  }
  const fixture = opt('--fixture', 'F1') as FixtureName | VariantSet;
  const seconds = Number(opt('--seconds', '10'));
  if (!argv.includes('--no-build')) buildProject();
  const work = join(REPO_ROOT, '.bench-tmp', 'profile');
  const profDir = join(work, 'cpuprof');
  rmSync(profDir, { recursive: true, force: true });
  mkdirSync(profDir, { recursive: true });
  const certs = await writeCertificate(join(work, 'tls'));
  const fx = await writeFixtures(join(work, 'fixtures'), await serverStatusKeys(certs.key));
  const flags = argv.filter((a) => a.startsWith('--ours-flag=')).map((a) => a.slice('--ours-flag='.length));
  const body = readFileSync(fx.reviews.F1);
  const server = await startServer({ kind: 'ours', certs, flags, nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] }, body);
  if (argv.includes('--startup')) {
    // Cold start only: the profile covers spawn to the first answer (and the shutdown).
    process.stdout.write(`cold start ${server.readyMs?.toFixed(0)} ms under --cpu-prof\n`);
    await server.stop(15_000);
    const startup = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (startup === undefined) throw new Error(`no profile written in ${profDir}`);
    process.stdout.write(`${analyze(JSON.parse(readFileSync(join(profDir, startup), 'utf8')) as CpuProfile, top)}\n`);
    return;
  }
  const tools = ensureTools(false);
  const bodies: Bodies = (VARIANT_SETS as readonly string[]).includes(fixture)
    ? writeVariants(join(work, 'fixtures'), Number(opt('--variants', String(DEFAULT_VARIANTS))))[fixture as VariantSet]
    : fx.reviews[fixture as FixtureName];
  const r = await maxThroughput(tools, { name: 'ours', port: server.port, pid: server.pid, path: WEBHOOK_PATH }, bodies, {
    connections: 10,
    warmupS: 1,
    durationS: seconds,
    workDir: work,
  });
  await server.stop(15_000);
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no profile written in ${profDir}`);
  process.stdout.write(`${fixture}: ${r.rps.toFixed(0)} requests/s under --cpu-prof (cpu ${r.serverCpu?.toFixed(2)}); profile ${join(profDir, file)}\n\n`);
  process.stdout.write(`${analyze(JSON.parse(readFileSync(join(profDir, file), 'utf8')) as CpuProfile, top)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`profile failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
