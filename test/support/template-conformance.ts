/**
 * @module test/support/template-conformance
 * The golden conformance corpus of the Go text/template engine: loading the hand-written cases
 * (`testdata/template/cases/<topic>.yaml`), the expectations Go itself produced
 * (`testdata/template/expected/<topic>.json`), and regenerating those expectations with the
 * `gotemplate-ref` oracle (Go 1.19 text/template + Sprig 3.2.3). Lives under test/support so the
 * test (no Go needed) and the generator script share one definition of a case and its hash.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { isPlainObject } from '../../src/util/json.js';

/** The command that rewrites every expectation file; named in every stale-golden failure. */
export const REGEN_COMMAND = 'npx tsx scripts/gen-template-goldens.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CASES_DIR = join(ROOT, 'testdata/template/cases');
const EXPECTED_DIR = join(ROOT, 'testdata/template/expected');

/**
 * How an error message is compared. `exact`: our message equals Go's. `prefix`: only Go's
 * location and call prefix (`template: t:LINE:COL: executing "t" at <NODE>: error calling F: `)
 * must match, for messages whose tail is the text of a Go runtime, reflect or type-assertion
 * panic inside a function, which means nothing outside Go (each such case says why in `why`).
 */
type ErrorMatch = 'exact' | 'prefix' | 'deviation';

/**
 * A deliberate, documented difference from Go (`match: deviation`): what our engine does
 * instead. Go's expectation is still recorded, so the difference stays visible in review.
 */
interface Deviation {
  readonly output?: string;
  readonly error?: string;
}

export interface ConformanceCase {
  readonly topic: string;
  readonly name: string;
  readonly template: string;
  /** The exact JSON text both sides decode (Go with encoding/json, we with JSON.parse). */
  readonly dataJson: string;
  readonly match: ErrorMatch;
  readonly why?: string;
  /** Our behaviour, for `match: deviation`. */
  readonly ours?: Deviation;
}

/** What Go did with one case. Exactly one of `output` and `error` is set. */
export interface Expectation {
  readonly sha256: string;
  readonly output?: string;
  readonly error?: string;
  /** Whether Go failed in Parse or in Execute. */
  readonly phase?: 'parse' | 'exec';
}

export interface ExpectedFile {
  readonly topic: string;
  readonly generatedBy: string;
  readonly oracle: string;
  readonly cases: Record<string, Expectation>;
}

const CASE_KEYS = new Set(['name', 'template', 'templateFile', 'data', 'json', 'dataFile', 'match', 'why', 'ours']);
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9-]*$/;

/** The hash that ties an expectation to the exact template and data it was produced from. */
export function caseHash(c: Pick<ConformanceCase, 'template' | 'dataJson'>): string {
  return createHash('sha256').update(c.template).update('\u0000').update(c.dataJson).digest('hex');
}

export function listTopics(): string[] {
  return readdirSync(CASES_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .sort();
}

/** Read and validate one topic's cases; a malformed entry throws naming the file and entry. */
export function loadCases(topic: string): ConformanceCase[] {
  const file = join(CASES_DIR, `${topic}.yaml`);
  const doc: unknown = parseYaml(readFileSync(file, 'utf8'));
  if (!Array.isArray(doc)) throw new Error(`${file}: expected a YAML list of cases`);
  const seen = new Set<string>();
  return doc.map((entry: unknown, i): ConformanceCase => {
    const where = `${file}: entry ${i + 1}`;
    if (!isPlainObject(entry)) throw new Error(`${where}: expected a mapping`);
    for (const key of Object.keys(entry)) {
      if (!CASE_KEYS.has(key)) throw new Error(`${where}: unknown key "${key}"`);
    }
    const { name, templateFile, dataFile, data, json, match, why, ours } = entry as Record<string, unknown>;
    let { template } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || !NAME_RE.test(name)) throw new Error(`${where}: name must match ${NAME_RE}`);
    if (seen.has(name)) throw new Error(`${where}: duplicate name "${name}"`);
    seen.add(name);
    if (templateFile !== undefined) {
      if (template !== undefined || typeof templateFile !== 'string') throw new Error(`${where} (${name}): give template or templateFile (a path)`);
      template = readFileSync(join(CASES_DIR, templateFile), 'utf8');
    }
    if (typeof template !== 'string') throw new Error(`${where} (${name}): template must be a string`);
    if ([data, json, dataFile].filter((x) => x !== undefined).length > 1) throw new Error(`${where} (${name}): give one of data, json, dataFile`);
    let dataJson = 'null';
    if (dataFile !== undefined) {
      if (typeof dataFile !== 'string') throw new Error(`${where} (${name}): dataFile must be a path`);
      const text = readFileSync(join(CASES_DIR, dataFile), 'utf8');
      JSON.parse(text); // must be valid JSON
      dataJson = text;
    } else if (json !== undefined) {
      if (typeof json !== 'string') throw new Error(`${where} (${name}): json must be a string of JSON text`);
      JSON.parse(json); // must be valid JSON
      dataJson = json;
    } else if (data !== undefined) {
      dataJson = JSON.stringify(data);
    }
    if (match !== undefined && match !== 'exact' && match !== 'prefix' && match !== 'deviation') {
      throw new Error(`${where} (${name}): match must be exact, prefix or deviation`);
    }
    if (match !== undefined && match !== 'exact' && typeof why !== 'string') throw new Error(`${where} (${name}): match: ${match} needs a why`);
    let deviation: Deviation | undefined;
    if (match === 'deviation') {
      const o = isPlainObject(ours) ? ours : {};
      const hasOutput = typeof o.output === 'string';
      const hasError = typeof o.error === 'string';
      if (hasOutput === hasError) throw new Error(`${where} (${name}): match: deviation needs ours: {output} or ours: {error}`);
      deviation = hasOutput ? { output: o.output as string } : { error: o.error as string };
    } else if (ours !== undefined) {
      throw new Error(`${where} (${name}): ours is only for match: deviation`);
    }
    return {
      topic,
      name,
      template,
      dataJson,
      match: (match ?? 'exact') as ErrorMatch,
      ...(typeof why === 'string' ? { why } : {}),
      ...(deviation ? { ours: deviation } : {}),
    };
  });
}

function expectedPath(topic: string): string {
  return join(EXPECTED_DIR, `${topic}.json`);
}

export function loadExpected(topic: string): ExpectedFile | undefined {
  const file = expectedPath(topic);
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as ExpectedFile;
}

/**
 * Go's location prefix of an error message: `template: t:1:5: executing "t" at <.x>: ` for
 * execution errors (plus `error calling NAME: ` when a function failed), `template: t:1: ` for
 * parse errors.
 */
export function goErrorPrefix(message: string): string {
  const m = /^template: [^:]+:\d+(?::\d+)?: (?:executing "(?:[^"\\]|\\.)*" at <.*?>: (?:error calling \w+: )?)?/s.exec(message);
  return m ? m[0] : '';
}

/** Go messages that carry panic text from Go's runtime or reflect package (see ErrorMatch). */
export const GO_PANIC_TEXT = /error calling \w+: (?:runtime error: |reflect[:.]|interface conversion: )/;

/** Run the oracle on one case. Throws when the oracle itself is unusable. */
function runOracle(c: ConformanceCase, bin = 'gotemplate-ref'): Expectation {
  const dir = mkdtempSync(join(tmpdir(), 'tpl-golden-'));
  try {
    writeFileSync(join(dir, 't.tpl'), c.template);
    writeFileSync(join(dir, 'data.json'), c.dataJson);
    const r = spawnSync(bin, [join(dir, 't.tpl'), join(dir, 'data.json')], { timeout: 30_000 });
    if (r.error) throw new Error(`cannot run ${bin}: ${r.error.message}`);
    const sha256 = caseHash(c);
    const stdout = r.stdout;
    const text = new TextDecoder('utf-8', { fatal: true });
    let out: string;
    try {
      out = text.decode(stdout);
    } catch {
      throw new Error(`${c.topic}/${c.name}: Go's output is not valid UTF-8, which a JavaScript string cannot reproduce; change the case`);
    }
    if (r.status === 0) return { sha256, output: out };
    if (r.status !== 3) throw new Error(`${c.topic}/${c.name}: ${bin} exited ${r.status}: ${r.stderr.toString()}`);
    // Parse errors print "ERROR: msg\n"; execution errors print the partial output, "\nERROR: msg\n".
    if (out.startsWith('ERROR: ')) return { sha256, error: out.slice(7).replace(/\n$/, ''), phase: 'parse' };
    const at = out.indexOf('\nERROR: ');
    if (at < 0) throw new Error(`${c.topic}/${c.name}: unexpected oracle output ${JSON.stringify(out)}`);
    return { sha256, error: out.slice(at + 8).replace(/\n$/, ''), phase: 'exec' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface GenerateSummary {
  topic: string;
  cases: number;
  errors: number;
  changed: number;
  /** Annotation problems worth a look: panic text compared exactly, `prefix` on a success. */
  warnings: string[];
}

/** Rewrite the expectation files of the given topics (all by default) from the oracle. */
export function generateGoldens(topics: readonly string[] = listTopics(), bin = 'gotemplate-ref'): GenerateSummary[] {
  const summaries: GenerateSummary[] = [];
  for (const topic of topics) {
    const cases = loadCases(topic);
    const old = loadExpected(topic);
    const expected: Record<string, Expectation> = {};
    let errors = 0;
    let changed = 0;
    const warnings: string[] = [];
    for (const c of cases) {
      const e = runOracle(c, bin);
      expected[c.name] = e;
      if (e.error !== undefined) errors++;
      if (c.match === 'exact' && e.error !== undefined && GO_PANIC_TEXT.test(e.error)) {
        warnings.push(`${topic}/${c.name}: Go's message is panic text; consider match: prefix (${e.error})`);
      }
      if (c.match === 'prefix' && e.error === undefined) warnings.push(`${topic}/${c.name}: match: prefix but Go succeeds`);
      const prev = old?.cases[c.name];
      if (!prev || JSON.stringify(prev) !== JSON.stringify(e)) changed++;
    }
    const file: ExpectedFile = {
      topic,
      generatedBy: REGEN_COMMAND,
      oracle: 'gotemplate-ref: Go 1.19 text/template + Sprig 3.2.3 TxtFuncMap, data decoded by encoding/json',
      cases: expected,
    };
    writeFileSync(expectedPath(topic), `${JSON.stringify(file, null, 2)}\n`);
    summaries.push({ topic, cases: cases.length, errors, changed, warnings });
  }
  return summaries;
}
