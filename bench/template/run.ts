/**
 * @module bench/template/run
 * Template engine benchmark (not a test). In the same run, for each workload: the compiled
 * engine (what the product uses) against the reference interpreter, and, when
 * `gotemplate-ref` is on PATH, against Go's own text/template + Sprig on the same text and JSON.
 *
 *   npx tsx bench/template/run.ts [--quick] [--write]     (or: npm run bench:template)
 *
 * Workloads (workloads.ts): a small snippet and a large proxy sidecar template (Sprig only, so
 * Go renders them too); the built-in template and Istio's sidecar template (when
 * ../shared/conformance/istio is present) on the template data one injection of the benchmark's
 * F1 pod hands the engine; and the whole injection core (injectPod) for F1 and F2.
 *
 * Method: each engine is timed in its own child process, as a server runs only one: in one
 * process the two engines would share the JIT's type feedback of every function they both call
 * (Sprig functions, Go struct views), which measures neither as deployed. PAIRS pairs of
 * children, the order alternating; each child warms up, calibrates a batch to about BATCH_MS
 * and times BATCHES batches per workload in CPU time (process.cpuUsage, which other processes
 * on a busy machine do not inflate). Reported: each engine's median, and the median over pairs
 * of the compiled/interpreter ratio of the pair's medians. Outputs are checked to be the same
 * bytes in the parent first. `--write` records the results in bench/template/RESULTS.md.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TemplateEngine } from '../../src/template/index.js';
import { buildWorkloads } from './workloads.js';
import { quietLine, quietness } from '../lib/quiet.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');
const SELF = fileURLToPath(import.meta.url);
const argv = process.argv.slice(2);
const args = new Set(argv);
const QUICK = args.has('--quick');
const BATCH_MS = QUICK ? 60 : 200;
const BATCHES = QUICK ? 5 : 9;
const PAIRS = QUICK ? 2 : 4;
const WARM_MS = QUICK ? 400 : 1500;
const ORACLE = process.env.GOTEMPLATE_REF ?? 'gotemplate-ref';
const ENGINES: readonly TemplateEngine[] = ['interpreter', 'compiled'];

function fmt(x: number | undefined): string {
  return x === undefined ? 'n/a' : x >= 100 ? x.toFixed(0) : x.toFixed(1);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const spread = (xs: number[]): string => `${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}`;

/** Warm fn up for WARM_MS and return how many calls make a batch of about BATCH_MS. */
function calibrate(fn: () => unknown): number {
  const start = performance.now();
  let n = 0;
  while (performance.now() - start < WARM_MS) {
    fn();
    n++;
  }
  return Math.max(5, Math.round(BATCH_MS / ((performance.now() - start) / Math.max(n, 1))));
}

/** CPU microseconds (user + system, this process) per call over one batch. */
function batch(fn: () => unknown, iterations: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < iterations; i++) fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / iterations;
}

// ---- child: one engine, every workload -----------------------------------------------------

const childAt = argv.indexOf('--child');
if (childAt >= 0) {
  const engine = argv[childAt + 1] as TemplateEngine;
  const times: Record<string, number[]> = {};
  for (const w of buildWorkloads()) {
    const n = calibrate(w.run[engine]);
    times[w.name] = Array.from({ length: BATCHES }, () => batch(w.run[engine], n));
  }
  process.stdout.write(JSON.stringify(times));
  process.exit(0);
}

// ---- parent ----------------------------------------------------------------------------------

const withGo = !spawnSync(ORACLE, [], { encoding: 'utf8' }).error;

function goRender(w: { template: string; data: string }): string {
  const r = spawnSync(ORACLE, [w.template, w.data], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${ORACLE} failed on ${w.template}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

function goBench(w: { template: string; data: string }, n: number): number {
  const r = spawnSync(ORACLE, ['-bench', String(n), w.template, w.data], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${ORACLE} -bench failed: ${r.stdout}${r.stderr}`);
  return Number(r.stdout.trim());
}

function child(engine: TemplateEngine): Record<string, number[]> {
  const r = spawnSync(process.execPath, [...process.execArgv, SELF, '--child', engine, ...(QUICK ? ['--quick'] : [])], {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
    cwd: ROOT,
  });
  if (r.status !== 0) throw new Error(`the ${engine} child failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, number[]>;
}

interface Row {
  workload: string;
  templateBytes?: number;
  outputBytes: number;
  parseUs?: Record<TemplateEngine, number>;
  us: Record<TemplateEngine, number>;
  spread: Record<TemplateEngine, string>;
  ratio: number;
  goUs?: number;
  sameAsGo?: boolean;
}

const loadBefore = loadavg()[0]!;
const workloads = buildWorkloads();
const rows: Row[] = [];
for (const w of workloads) {
  const output = w.run.interpreter();
  if (w.run.compiled() !== output) throw new Error(`${w.name}: the compiled engine's output differs from the interpreter's`);
  const row: Row = {
    workload: w.name,
    templateBytes: w.templateBytes,
    outputBytes: Buffer.byteLength(output),
    us: { compiled: 0, interpreter: 0 },
    spread: { compiled: '', interpreter: '' },
    ratio: 0,
  };
  if (w.parse !== undefined) {
    const parse = w.parse;
    row.parseUs = { compiled: 0, interpreter: 0 };
    for (const e of ENGINES) row.parseUs[e] = median(Array.from({ length: 3 }, () => batch(parse[e], calibrate(parse[e]))));
  }
  if (withGo && w.go !== undefined) {
    row.sameAsGo = goRender(w.go) === output;
    const n = Math.max(100, Math.round((BATCH_MS * 1000) / Math.max(goBench(w.go, 200), 0.01)));
    row.goUs = median(Array.from({ length: 3 }, () => goBench(w.go!, n)));
  }
  rows.push(row);
}

const all: Record<TemplateEngine, Record<string, number[]>> = { compiled: {}, interpreter: {} };
const ratios: Record<string, number[]> = {};
for (let p = 0; p < PAIRS; p++) {
  const pair: Partial<Record<TemplateEngine, Record<string, number[]>>> = {};
  for (const e of p % 2 === 0 ? ENGINES : [...ENGINES].reverse()) pair[e] = child(e);
  for (const r of rows) {
    const c = pair.compiled![r.workload]!;
    const i = pair.interpreter![r.workload]!;
    (all.compiled[r.workload] ??= []).push(...c);
    (all.interpreter[r.workload] ??= []).push(...i);
    (ratios[r.workload] ??= []).push(median(c) / median(i));
  }
  process.stderr.write(`pair ${p + 1} of ${PAIRS} measured\n`);
}
for (const r of rows) {
  for (const e of ENGINES) {
    r.us[e] = median(all[e][r.workload]!);
    r.spread[e] = spread(all[e][r.workload]!);
  }
  r.ratio = median(ratios[r.workload]!);
}
const loadAfter = loadavg()[0]!;

// ---- report ----------------------------------------------------------------------------------

const table = [
  '| workload | template | output | parse µs (interpreter / compiled) | interpreter µs (median; range) | compiled µs (median; range) | compiled / interpreter (median of pairs) | Go µs | compiled / Go | same bytes as Go |',
  '|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) =>
    [
      '',
      r.workload,
      r.templateBytes === undefined ? '' : `${(r.templateBytes / 1024).toFixed(1)} KB`,
      `${(r.outputBytes / 1024).toFixed(1)} KB`,
      r.parseUs === undefined ? '' : `${fmt(r.parseUs.interpreter)} / ${fmt(r.parseUs.compiled)}`,
      `${fmt(r.us.interpreter)} (${r.spread.interpreter})`,
      `${fmt(r.us.compiled)} (${r.spread.compiled})`,
      `**${r.ratio.toFixed(2)}×**`,
      fmt(r.goUs),
      r.goUs === undefined ? 'n/a' : `${(r.us.compiled / r.goUs).toFixed(2)}×`,
      r.sameAsGo === undefined ? 'n/a' : r.sameAsGo ? 'yes' : 'NO',
      '',
    ]
      .join(' | ')
      .trim(),
  ),
].join('\n');

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const machine = `${cpu}, ${cpus().length} vCPU, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ${platform()} ${release()}`;
const command = `npx tsx ${relative(ROOT, SELF)}${QUICK ? ' --quick' : ''}`;
const report = [
  `Date: ${new Date().toISOString().slice(0, 10)}`,
  `Machine: ${machine}`,
  `Node: ${process.version}`,
  `Load average (1 min): ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`,
  `Method: each engine in its own child process, ${PAIRS} pairs (order alternating); per child ${WARM_MS} ms warm-up and ${BATCHES} batches of ~${BATCH_MS} ms per workload, CPU µs per call (process.cpuUsage); parse timed in the parent`,
  `Go: ${withGo ? `${ORACLE} (Go 1.19 text/template + Sprig 3.2.3), \`-bench N\` (~${BATCH_MS} ms), median of 3 (wall clock)` : 'gotemplate-ref not on PATH: no Go comparison'}`,
  `Command: \`${command}\``,
  '',
  table,
  '',
  `The machine was ${quietLine(quietness([loadBefore]), false)}.`,
].join('\n');
process.stdout.write(`${report}\n`);

if (args.has('--write')) {
  const doc = `# Template engine benchmark results

Rendering time of our Go text/template engine, compiled (the default: each template becomes
JavaScript closures at config load) against the reference interpreter (walks the parse tree on
every render) and against Go's own text/template + Sprig on the same template and JSON data.
The large template (\`bench/template/sidecar.tpl\`, our own text) is a mesh proxy sidecar the size
of Istio's injection template; it uses only Sprig functions so Go's reference can render it
too. The ratios are what matter: absolute numbers depend on the machine.

${report}
`;
  writeFileSync(join(HERE, 'RESULTS.md'), doc);
  process.stderr.write(`wrote ${relative(process.cwd(), join(HERE, 'RESULTS.md'))}\n`);
}
