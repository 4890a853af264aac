/**
 * @module scripts/fuzz-template-vs-go
 * Differential fuzzing of our template engine against Go's (the `gotemplate-ref` oracle):
 * random templates built from a grammar of actions, pipelines, Go built-ins and Sprig functions,
 * rendered on random JSON data by both sides; every disagreement (output, error phase or error
 * message) is printed with its template and data, ready to become a conformance case in
 * testdata/template/cases/. Needs Go's oracle; not part of the test suite.
 *
 *   npx tsx scripts/fuzz-template-vs-go.ts [--runs N] [--seed S] [--oracle PATH]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseTemplate } from '../src/template/index.js';
import { sprigFuncs } from '../src/template/funcs/index.js';
import { GO_PANIC_TEXT, goErrorPrefix } from '../test/support/template-conformance.js';

const argv = process.argv.slice(2);
const opt = (name: string, def: string): string => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : def;
};
const RUNS = Number(opt('--runs', '2000'));
const SEED = Number(opt('--seed', String(Date.now() % 100000)));
const ORACLE = opt('--oracle', process.env.GOTEMPLATE_REF ?? 'gotemplate-ref');

// Functions whose results are deterministic in Go (no map-order output such as keys/values),
// with the argument counts worth generating (min, max).
const ARITY: Record<string, readonly number[]> = {
  len: [1, 1],
  index: [1, 3],
  print: [0, 3],
  println: [0, 2],
  eq: [2, 3],
  ne: [2, 2],
  lt: [2, 2],
  le: [2, 2],
  gt: [2, 2],
  ge: [2, 2],
  and: [1, 3],
  or: [1, 3],
  not: [1, 1],
  html: [1, 2],
  js: [1, 2],
  urlquery: [1, 2],
  slice: [1, 3],
  default: [1, 2],
  empty: [1, 1],
  coalesce: [1, 3],
  ternary: [3, 3],
  quote: [0, 2],
  squote: [1, 2],
  upper: [1, 1],
  lower: [1, 1],
  title: [1, 1],
  trim: [1, 1],
  trimAll: [2, 2],
  trimPrefix: [2, 2],
  trunc: [2, 2],
  abbrev: [2, 2],
  repeat: [2, 2],
  replace: [3, 3],
  contains: [2, 2],
  hasPrefix: [2, 2],
  nospace: [1, 1],
  cat: [0, 3],
  indent: [2, 2],
  nindent: [2, 2],
  plural: [3, 3],
  wrap: [2, 2],
  snakecase: [1, 1],
  camelcase: [1, 1],
  kebabcase: [1, 1],
  substr: [3, 3],
  split: [2, 2],
  splitList: [2, 2],
  splitn: [3, 3],
  join: [2, 2],
  sortAlpha: [1, 1],
  atoi: [1, 1],
  int: [1, 1],
  int64: [1, 1],
  float64: [1, 1],
  toString: [1, 1],
  toStrings: [1, 1],
  toJson: [1, 1],
  toPrettyJson: [1, 1],
  toRawJson: [1, 1],
  fromJson: [1, 1],
  regexMatch: [2, 2],
  regexFind: [2, 2],
  regexReplaceAll: [3, 3],
  regexSplit: [3, 3],
  add: [0, 3],
  add1: [1, 1],
  sub: [2, 2],
  div: [2, 2],
  mod: [2, 2],
  mul: [1, 3],
  max: [1, 3],
  min: [1, 3],
  floor: [1, 1],
  ceil: [1, 1],
  round: [2, 3],
  b64enc: [1, 1],
  b64dec: [1, 1],
  sha256sum: [1, 1],
  adler32sum: [1, 1],
  list: [0, 3],
  first: [1, 1],
  rest: [1, 1],
  last: [1, 1],
  initial: [1, 1],
  append: [2, 2],
  prepend: [2, 2],
  concat: [0, 3],
  reverse: [1, 1],
  uniq: [1, 1],
  without: [1, 3],
  has: [2, 2],
  compact: [1, 1],
  until: [1, 1],
  untilStep: [3, 3],
  seq: [1, 3],
  dict: [0, 4],
  get: [2, 2],
  set: [3, 3],
  unset: [2, 2],
  hasKey: [2, 2],
  pluck: [2, 3],
  pick: [1, 3],
  omit: [1, 3],
  merge: [1, 3],
  mergeOverwrite: [1, 3],
  deepCopy: [1, 1],
  dig: [3, 4],
  kindOf: [1, 1],
  kindIs: [2, 2],
  typeOf: [1, 1],
  typeIs: [2, 2],
  deepEqual: [2, 2],
  semverCompare: [2, 2],
};
const FUNCS = Object.keys(ARITY);

const FORMATS = [
  '"%v"',
  '"%s"',
  '"%d"',
  '"%q"',
  '"%x"',
  '"%5.2f"',
  '"%T"',
  '"%+v"',
  '"%#v"',
  '"%v-%v"',
  '"%[2]v"',
  '"%e"',
  '"%g"',
  '"%t"',
  '"%c"',
  '"%-4s|"',
  '"%05d"',
];
const KEYS = ['a', 'b', 'c', 'l', 'm', 'n', 's'];

const scalar = fc.oneof(
  fc.constantFrom('', 'x', 'A b', 'é', '1', '2.5', 'true', '-', ',', 'a,b', '{"k":1}', '1.2.3', '<&>'),
  fc.constantFrom(0, 1, -1, 2, 3, 0.5, -2.5, 1e6, 1e21, 1e-7, 100, 15020),
  fc.boolean(),
  fc.constant(null),
);
const jsonData: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('list'), tie('map')),
  list: fc.array(tie('value'), { maxLength: 3 }),
  map: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
})).value;
const data = fc.dictionary(fc.constantFrom(...KEYS), jsonData, { minKeys: 2, maxKeys: 6 });

const constOperand = fc.constantFrom('1', '-2', '0', '3', '1.5', '1e6', '"s"', '""', '"a,b"', '"1.2.3"', 'true', 'false', 'nil', "'c'", '"%v"', '"^a"');
const field = fc
  .tuple(fc.constantFrom('.', '$.'), fc.constantFrom(...KEYS), fc.option(fc.constantFrom(...KEYS), { nil: undefined }))
  .map(([root, a, b]) => (b === undefined ? `${root}${a}` : `${root}${a}.${b}`).replace('$..', '$.'));

function pipeline(depth: number, vars: readonly string[]): fc.Arbitrary<string> {
  const operand: fc.Arbitrary<string> = fc.oneof(
    { weight: 3, arbitrary: constOperand },
    { weight: 4, arbitrary: field },
    { weight: 1, arbitrary: fc.constantFrom('.', '$', ...vars) },
    { weight: depth > 0 ? 2 : 0, arbitrary: fc.constant(null).chain(() => pipeline(depth - 1, vars).map((p) => `(${p})`)) },
  );
  const call = (later: boolean): fc.Arbitrary<string> =>
    fc.constantFrom(...FUNCS).chain((f) => {
      // A later pipeline stage receives the previous value as its last argument.
      const [lo = 0, hi = 0] = ARITY[f]!;
      const d = later ? 1 : 0;
      return fc.array(operand, { minLength: Math.max(0, lo - d), maxLength: Math.max(0, hi - d) }).map((a) => [f, ...a].join(' '));
    });
  const printf = (later: boolean): fc.Arbitrary<string> =>
    fc.tuple(fc.constantFrom(...FORMATS), fc.array(operand, { maxLength: later ? 1 : 2 })).map(([f, a]) => ['printf', f, ...a].join(' '));
  const first = fc.oneof({ weight: 4, arbitrary: call(false) }, { weight: 1, arbitrary: printf(false) }, { weight: 2, arbitrary: operand });
  const later = fc.oneof({ weight: 4, arbitrary: call(true) }, { weight: 1, arbitrary: printf(true) });
  return fc.tuple(first, fc.array(later, { maxLength: 2 })).map(([f, rest]) => [f, ...rest].join(' | '));
}

function body(depth: number, vars: readonly string[]): fc.Arbitrary<string> {
  const item: fc.Arbitrary<string> = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom('x', ' ', '\n', '[', ']', ';') },
    { weight: 5, arbitrary: pipeline(1, vars).map((p) => `{{${p}}}`) },
    {
      weight: depth > 0 ? 2 : 0,
      arbitrary: fc.tuple(fc.constantFrom('if', 'with', 'range'), pipeline(1, vars), fc.boolean()).chain(([kw, p, withElse]) => {
        const inner = kw === 'range' ? [...vars, '$i', '$e'] : vars;
        const head = kw === 'range' && p.length % 2 === 0 ? `range $i, $e := ${p}` : `${kw} ${p}`;
        return fc
          .tuple(body(depth - 1, kw === 'range' && head.includes(':=') ? inner : vars), body(depth - 1, vars))
          .map(([a, b]) => `{{${head}}}${a}${withElse ? `{{else}}${b}` : ''}{{end}}`);
      }),
    },
    { weight: 1, arbitrary: pipeline(1, vars).map((p) => `{{$v := ${p}}}{{$v}}`) },
  );
  return fc.array(item, { minLength: 1, maxLength: 3 }).map((xs) => xs.join(''));
}

interface Result {
  output?: string;
  error?: string;
  phase?: 'parse' | 'exec';
}

const dir = mkdtempSync(join(tmpdir(), 'tpl-fuzz-'));
function runGo(template: string, json: string): Result | undefined {
  writeFileSync(join(dir, 't.tpl'), template);
  writeFileSync(join(dir, 'd.json'), json);
  const r = spawnSync(ORACLE, [join(dir, 't.tpl'), join(dir, 'd.json')], { timeout: 20_000 });
  let out: string;
  try {
    out = new TextDecoder('utf-8', { fatal: true }).decode(r.stdout);
  } catch {
    return undefined; // invalid UTF-8 from Go: not comparable
  }
  if (r.status === 0) return { output: out };
  if (r.status !== 3) return undefined;
  if (out.startsWith('ERROR: ')) return { error: out.slice(7).replace(/\n$/, ''), phase: 'parse' };
  const at = out.indexOf('\nERROR: ');
  return { error: out.slice(at + 8).replace(/\n$/, ''), phase: 'exec' };
}

const funcs = sprigFuncs();
function runOurs(template: string, json: string): Result {
  let t;
  try {
    t = parseTemplate('t', template, { funcs });
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e), phase: 'parse' };
  }
  try {
    return { output: t.execute(JSON.parse(json)) };
  } catch (e) {
    return { error: e instanceof Error ? `${e.constructor.name === 'TemplateError' ? '' : `[${e.constructor.name}] `}${e.message}` : String(e), phase: 'exec' };
  }
}

function agree(go: Result, ours: Result): boolean {
  if (go.error === undefined) return ours.output === go.output;
  if (ours.error === undefined || ours.phase !== go.phase) return false;
  if (GO_PANIC_TEXT.test(go.error)) return ours.error.startsWith(goErrorPrefix(go.error));
  return ours.error === go.error;
}

const samples = fc.sample(fc.tuple(body(2, []), data), { numRuns: RUNS, seed: SEED });
const seen = new Map<string, number>();
let compared = 0;
let mismatches = 0;
let goErrors = 0;
for (const [template, d] of samples) {
  const json = JSON.stringify(d);
  const go = runGo(template, json);
  if (go === undefined) continue;
  compared++;
  if (go.error !== undefined) goErrors++;
  const ours = runOurs(template, json);
  if (agree(go, ours)) continue;
  mismatches++;
  // Group by the shape of Go's result so one bug is printed once.
  const key =
    go.error !== undefined
      ? go.error
          .replace(/t:\d+:\d+/, '')
          .replace(/<.*?>/, '<>')
          .slice(0, 80)
      : `output of ${template.slice(0, 30)}`;
  const n = seen.get(key) ?? 0;
  seen.set(key, n + 1);
  if (n > 0) continue;
  console.log(`--- mismatch\n  template: ${JSON.stringify(template)}\n  json: ${json}`);
  console.log(`  go:   ${go.error !== undefined ? `ERROR(${go.phase}) ${go.error}` : JSON.stringify(go.output)}`);
  console.log(`  ours: ${ours.error !== undefined ? `ERROR(${ours.phase}) ${ours.error}` : JSON.stringify(ours.output)}`);
}
rmSync(dir, { recursive: true, force: true });
console.log(`seed ${SEED}: ${compared} compared (${goErrors} where Go fails), ${mismatches} mismatches, ${seen.size} distinct`);
process.exitCode = mismatches > 0 ? 1 : 0;
