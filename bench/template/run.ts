/**
 * @module bench/template/run
 * Template engine benchmark (not a test): renders a small template and a large, realistic proxy
 * sidecar template (about the size of Istio's 25 KB injection template) with our engine and,
 * when `gotemplate-ref` is on PATH, with Go's own text/template + Sprig on the same template
 * and JSON data, and reports microseconds per render and the ratio ours/Go.
 *
 *   npx tsx bench/template/run.ts [--quick] [--write]     (or: npm run bench:template)
 *
 * Method: parse once; warm up; calibrate a batch of renders to about BATCH_MS. Then ROUNDS
 * rounds, each timing one batch of ours and, right after, one `gotemplate-ref -bench N` run of
 * Go (its mean over N renders after one parse, N calibrated to about BATCH_MS). Reported: the
 * median per-render time of each side and the median of the per-round ratios, which stays
 * meaningful when other load on the machine drifts (pairs are measured back to back). Both
 * sides are checked to produce the same bytes first, so the comparison is between equal work.
 * `--write` records the results in bench/template/RESULTS.md.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTemplate } from '../../src/template/index.js';
import { sprigFuncs } from '../../src/template/funcs/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');
const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
const BATCH_MS = QUICK ? 60 : 250;
const ROUNDS = QUICK ? 3 : 11;
const WARM_MS = QUICK ? 500 : 2000;
const ORACLE = process.env.GOTEMPLATE_REF ?? 'gotemplate-ref';

interface Workload {
  name: string;
  template: string;
  data: string;
}

const WORKLOADS: Workload[] = [
  { name: 'small container snippet', template: join(HERE, 'small.tpl'), data: join(HERE, 'small.json') },
  { name: 'large proxy sidecar', template: join(HERE, 'sidecar.tpl'), data: join(HERE, 'sidecar-data.json') },
];

interface Row {
  workload: string;
  templateBytes: number;
  outputBytes: number;
  parseUs: number;
  oursUs: number;
  oursSpread: string;
  goUs?: number;
  ratio?: number;
  identical?: boolean;
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

function spread(xs: number[]): string {
  return `${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}`;
}

/** Warm fn up for WARM_MS and return how many calls make a batch of about BATCH_MS. */
function calibrate(fn: () => void): number {
  const start = performance.now();
  let n = 0;
  while (performance.now() - start < WARM_MS) {
    fn();
    n++;
  }
  const perCallMs = (performance.now() - start) / Math.max(n, 1);
  return Math.max(10, Math.round(BATCH_MS / perCallMs));
}

/** Microseconds per call over one batch. */
function batch(fn: () => void, iterations: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1000 / iterations;
}

function oracleAvailable(): boolean {
  const r = spawnSync(ORACLE, [], { encoding: 'utf8' });
  return !r.error;
}

function goRender(w: Workload): string {
  const r = spawnSync(ORACLE, [w.template, w.data], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${ORACLE} failed on ${w.template}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Go's mean microseconds per render over n renders (one process, one parse). */
function goBench(w: Workload, n: number): number {
  const r = spawnSync(ORACLE, ['-bench', String(n), w.template, w.data], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${ORACLE} -bench failed: ${r.stdout}${r.stderr}`);
  return Number(r.stdout.trim());
}

function firstDifference(a: string, b: string): string {
  const la = a.split('\n');
  const lb = b.split('\n');
  for (let i = 0; i < Math.max(la.length, lb.length); i++) {
    if (la[i] !== lb[i]) return `line ${i + 1}: ours ${JSON.stringify(la[i])} vs Go ${JSON.stringify(lb[i])}`;
  }
  return 'same lines, different bytes';
}

const funcs = sprigFuncs();
const withGo = oracleAvailable();
const loadBefore = loadavg()[0]!;
const rows: Row[] = [];
for (const w of WORKLOADS) {
  const text = readFileSync(w.template, 'utf8');
  const data: unknown = JSON.parse(readFileSync(w.data, 'utf8'));
  const template = parseTemplate('t', text, { funcs });
  const output = template.execute(data);
  const parseOnce = (): void => void parseTemplate('t', text, { funcs });
  const parseIterations = calibrate(parseOnce);
  const parseUs = median(Array.from({ length: 5 }, () => batch(parseOnce, parseIterations)));
  const renderOnce = (): void => void template.execute(data);
  const iterations = calibrate(renderOnce);
  const row: Row = {
    workload: w.name,
    templateBytes: Buffer.byteLength(text),
    outputBytes: Buffer.byteLength(output),
    parseUs,
    oursUs: 0,
    oursSpread: '',
  };
  const ours: number[] = [];
  const go: number[] = [];
  const ratios: number[] = [];
  let goN = 0;
  if (withGo) {
    const goOutput = goRender(w);
    row.identical = goOutput === output;
    if (!row.identical) row.note = `output differs from Go's at ${firstDifference(output, goOutput)}`;
    goN = Math.max(100, Math.round((BATCH_MS * 1000) / Math.max(goBench(w, 200), 0.01)));
  }
  for (let r = 0; r < ROUNDS; r++) {
    const o = batch(renderOnce, iterations);
    ours.push(o);
    if (withGo) {
      const g = goBench(w, goN);
      go.push(g);
      ratios.push(o / g);
    }
  }
  row.oursUs = median(ours);
  row.oursSpread = spread(ours);
  if (withGo) {
    row.goUs = median(go);
    row.ratio = median(ratios);
  }
  rows.push(row);
  process.stderr.write(`measured: ${w.name}\n`);
}
const loadAfter = loadavg()[0]!;

const table = [
  '| workload | template | output | our parse µs | our render µs (median; range) | Go render µs (median) | ours / Go (median of pairs) | same bytes as Go |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map((r) =>
    [
      '',
      r.workload,
      `${(r.templateBytes / 1024).toFixed(1)} KB`,
      `${(r.outputBytes / 1024).toFixed(1)} KB`,
      fmt(r.parseUs),
      `${fmt(r.oursUs)} (${r.oursSpread})`,
      fmt(r.goUs),
      r.ratio === undefined ? 'n/a' : `${r.ratio.toFixed(2)}×`,
      r.identical === undefined ? 'n/a' : r.identical ? 'yes' : 'NO',
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
  `Ours: sprigFuncs(), template parsed once, ${WARM_MS} ms warm-up, ${ROUNDS} batches of ~${BATCH_MS} ms`,
  `Go: ${withGo ? `${ORACLE} (Go 1.19 text/template + Sprig 3.2.3), \`-bench N\` (~${BATCH_MS} ms), one run after each of our batches` : 'gotemplate-ref not on PATH: no Go comparison'}`,
  `Command: \`${command}\``,
  '',
  table,
  ...(notes.length > 0 ? ['', ...notes] : []),
  ...(Math.max(loadBefore, loadAfter) > cpus().length
    ? ['', `The machine was busy (load ${Math.max(loadBefore, loadAfter).toFixed(1)} on ${cpus().length} vCPU): absolute times are inflated and noisy; the ratio of back-to-back pairs is the figure to use.`]
    : []),
].join('\n');
process.stdout.write(`${report}\n`);

if (args.has('--write')) {
  const doc = `# Template engine benchmark results

Rendering time of our Go text/template engine against Go's own text/template + Sprig on the
same template and JSON data, measured in the same run. The large template
(\`bench/template/sidecar.tpl\`, our own text) is a mesh proxy sidecar the size of Istio's
injection template; it uses only Sprig functions so Go's reference can render it too. The
ratio is what matters: absolute numbers depend on the machine.

${report}
`;
  writeFileSync(join(HERE, 'RESULTS.md'), doc);
  process.stderr.write(`wrote ${relative(process.cwd(), join(HERE, 'RESULTS.md'))}\n`);
}
