/**
 * @module bench/template/run
 * Template engine benchmark (not a test). In the same run, for each workload: the compiled
 * engine (what the product uses) against the reference interpreter, and, when
 * `gotemplate-ref` is on PATH, against Go's own text/template + Sprig on the same text and JSON.
 *
 *   npx tsx bench/template/run.ts [--quick] [--write]     (or: npm run bench:template)
 *
 * Workloads: a small snippet and a large proxy sidecar template (Sprig only, so Go renders them
 * too); the built-in template and Istio's sidecar template (when ../shared/conformance/istio is
 * present) on the template data one injection of the benchmark's F1 pod hands the engine; and
 * the whole injection core (injectPod) for F1 and F2 with the built-in config on each engine.
 *
 * Method: parse once; warm up; calibrate a batch to about BATCH_MS. Then ROUNDS rounds, each
 * timing one batch of the interpreter, one of the compiled engine (the order alternates by
 * round) and, for the Go workloads, one `gotemplate-ref -bench N` run. Our batches are timed
 * in CPU time of this process (process.cpuUsage), which other processes on a busy machine do
 * not inflate; Go reports its own wall-clock mean. Reported: the median per-call time of each,
 * and the median of the per-round ratios (pairs are measured back to back). Every engine is checked
 * to produce the same bytes first. `--write` records the results in bench/template/RESULTS.md.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultConfig } from '../../src/config/load.js';
import type { LoadedConfig } from '../../src/config/types.js';
import { injectPod } from '../../src/inject/index.js';
import { istioChartConfig, istioChartPresent } from '../../src/testing/istio-chart.js';
import { parseTemplate, type TemplateEngine } from '../../src/template/index.js';
import { sprigFuncs } from '../../src/template/funcs/index.js';
import { podF1, podF2 } from '../fixtures.js';
import { captureRenders, withEngine } from './workloads.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');
const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
const BATCH_MS = QUICK ? 60 : 250;
const ROUNDS = QUICK ? 7 : 15;
const WARM_MS = QUICK ? 400 : 1500;
const ORACLE = process.env.GOTEMPLATE_REF ?? 'gotemplate-ref';

/** One thing to time on both engines. */
interface Workload {
  name: string;
  /** Per-engine call, and what it produces (compared across engines before timing). */
  run: Record<TemplateEngine, () => string>;
  templateBytes?: number;
  /** Microseconds to parse (and, for the compiled engine, compile) the template once. */
  parse?: Record<TemplateEngine, () => void>;
  /** Files for Go's oracle (template, JSON data), when Go can render this workload. */
  go?: { template: string; data: string };
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
  goRatio?: number;
  sameAsGo?: boolean;
  note?: string;
}

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
  return Math.max(10, Math.round(BATCH_MS / ((performance.now() - start) / Math.max(n, 1))));
}

/**
 * CPU microseconds (user + system, this process) per call over one batch. CPU time, not wall
 * time: on a shared machine another process taking the core inflates wall time but not this.
 */
function batch(fn: () => unknown, iterations: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < iterations; i++) fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / iterations;
}

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

// ---- workloads -------------------------------------------------------------------------------

const ENGINES: readonly TemplateEngine[] = ['interpreter', 'compiled'];
const workloads: Workload[] = [];
const sprig = sprigFuncs();

for (const [name, tpl, json] of [['small container snippet', 'small.tpl', 'small.json'], ['large proxy sidecar', 'sidecar.tpl', 'sidecar-data.json']] as const) {
  const template = join(HERE, tpl);
  const dataFile = join(HERE, json);
  const text = readFileSync(template, 'utf8');
  const data: unknown = JSON.parse(readFileSync(dataFile, 'utf8'));
  const compiled = parseTemplate('t', text, { funcs: sprig });
  const interpreter = parseTemplate('t', text, { funcs: sprig, engine: 'interpreter' });
  workloads.push({
    name,
    templateBytes: Buffer.byteLength(text),
    run: { compiled: () => compiled.execute(data), interpreter: () => interpreter.execute(data) },
    parse: {
      compiled: () => void parseTemplate('t', text, { funcs: sprig }),
      interpreter: () => void parseTemplate('t', text, { funcs: sprig, engine: 'interpreter' }),
    },
    go: { template, data: dataFile },
  });
}

const ctx = { namespace: 'shop', mode: 'webhook' as const };
const configs: [string, LoadedConfig][] = [['built-in', defaultConfig()]];
if (istioChartPresent()) configs.push(["Istio's", istioChartConfig()]);
for (const [label, config] of configs) {
  for (const r of captureRenders(config, podF1(), ctx)) {
    workloads.push({
      name: `${label} template "${r.template}", F1 pod data`,
      templateBytes: Buffer.byteLength(config.templates[r.template] ?? ''),
      run: { compiled: () => r.compiled.execute(r.data, r.options), interpreter: () => r.interpreter.execute(r.data, r.options) },
    });
  }
}
const builtin = { compiled: withEngine(defaultConfig(), 'compiled'), interpreter: withEngine(defaultConfig(), 'interpreter') };
for (const [name, pod] of [['injection core (injectPod), F1, built-in config', podF1()], ['injection core (injectPod), F2, built-in config', podF2()]] as const) {
  const once = (engine: TemplateEngine): string => JSON.stringify(injectPod(pod, ctx, builtin[engine]));
  workloads.push({ name, run: { compiled: () => once('compiled'), interpreter: () => once('interpreter') } });
}

// ---- measurement -----------------------------------------------------------------------------

const loadBefore = loadavg()[0]!;
const rows: Row[] = [];
for (const w of workloads) {
  const output = w.run.interpreter();
  const row: Row = {
    workload: w.name,
    templateBytes: w.templateBytes,
    outputBytes: Buffer.byteLength(output),
    us: { compiled: 0, interpreter: 0 },
    spread: { compiled: '', interpreter: '' },
    ratio: 0,
  };
  if (w.run.compiled() !== output) throw new Error(`${w.name}: the compiled engine's output differs from the interpreter's`);
  if (w.parse !== undefined) {
    const parse = w.parse;
    row.parseUs = { compiled: 0, interpreter: 0 };
    for (const e of ENGINES) {
      const n = calibrate(parse[e]);
      row.parseUs[e] = median(Array.from({ length: 3 }, () => batch(parse[e], n)));
    }
  }
  const iterations = { compiled: calibrate(w.run.compiled), interpreter: calibrate(w.run.interpreter) };
  const times: Record<TemplateEngine, number[]> = { compiled: [], interpreter: [] };
  const ratios: number[] = [];
  const go: number[] = [];
  const goRatios: number[] = [];
  let goN = 0;
  if (withGo && w.go !== undefined) {
    const goOutput = goRender(w.go);
    row.sameAsGo = goOutput === output;
    if (!row.sameAsGo) row.note = 'output differs from Go\'s';
    goN = Math.max(100, Math.round((BATCH_MS * 1000) / Math.max(goBench(w.go, 200), 0.01)));
  }
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ENGINES : [...ENGINES].reverse();
    for (const e of order) times[e].push(batch(w.run[e], iterations[e]));
    ratios.push(times.compiled[r]! / times.interpreter[r]!);
    if (goN > 0 && w.go !== undefined) {
      const g = goBench(w.go, goN);
      go.push(g);
      goRatios.push(times.compiled[r]! / g);
    }
  }
  for (const e of ENGINES) {
    row.us[e] = median(times[e]);
    row.spread[e] = spread(times[e]);
  }
  row.ratio = median(ratios);
  if (go.length > 0) {
    row.goUs = median(go);
    row.goRatio = median(goRatios);
  }
  rows.push(row);
  process.stderr.write(`measured: ${w.name}\n`);
}
const loadAfter = loadavg()[0]!;

// ---- report ----------------------------------------------------------------------------------

const table = [
  '| workload | template | output | parse µs (interpreter / compiled) | interpreter µs (median; range) | compiled µs (median; range) | compiled / interpreter (median of pairs) | Go µs | compiled / Go (median of pairs) | same bytes as Go |',
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
      r.goRatio === undefined ? 'n/a' : `${r.goRatio.toFixed(2)}×`,
      r.sameAsGo === undefined ? 'n/a' : r.sameAsGo ? 'yes' : 'NO',
      '',
    ].join(' | ').trim(),
  ),
].join('\n');
const notes = rows.filter((r) => r.note).map((r) => `- ${r.workload}: ${r.note}`);

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const machine = `${cpu}, ${cpus().length} vCPU, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ${platform()} ${release()}`;
const command = `npx tsx ${relative(ROOT, fileURLToPath(import.meta.url))}${QUICK ? ' --quick' : ''}`;
const report = [
  `Date: ${new Date().toISOString().slice(0, 10)}`,
  `Machine: ${machine}`,
  `Node: ${process.version}`,
  `Load average (1 min): ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`,
  `Method: template parsed once per engine, ${WARM_MS} ms warm-up, ${ROUNDS} rounds of one ~${BATCH_MS} ms batch per engine (order alternating); our times are CPU µs per call (process.cpuUsage)`,
  `Go: ${withGo ? `${ORACLE} (Go 1.19 text/template + Sprig 3.2.3), \`-bench N\` (~${BATCH_MS} ms) after each round` : 'gotemplate-ref not on PATH: no Go comparison'}`,
  `Command: \`${command}\``,
  '',
  table,
  ...(notes.length > 0 ? ['', ...notes] : []),
  ...(Math.max(loadBefore, loadAfter) > cpus().length
    ? ['', `The machine was busy (load ${Math.max(loadBefore, loadAfter).toFixed(1)} on ${cpus().length} vCPU): absolute times are inflated and noisy; the ratios of back-to-back pairs are the figures to use.`]
    : []),
].join('\n');
process.stdout.write(`${report}\n`);

if (args.has('--write')) {
  const doc = `# Template engine benchmark results

Rendering time of our Go text/template engine, compiled (the default: each template becomes
JavaScript closures at config load) against the reference interpreter (walks the parse tree on
every render) and against Go's own text/template + Sprig on the same template and JSON data,
measured in the same run. The large template (\`bench/template/sidecar.tpl\`, our own text) is a
mesh proxy sidecar the size of Istio's injection template; it uses only Sprig functions so Go's
reference can render it too. The ratios are what matter: absolute numbers depend on the machine.

${report}
`;
  writeFileSync(join(HERE, 'RESULTS.md'), doc);
  process.stderr.write(`wrote ${relative(process.cwd(), join(HERE, 'RESULTS.md'))}\n`);
}
