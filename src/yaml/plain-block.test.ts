/**
 * The one-pass reader must give exactly what the library path (parseYamlDocument) gives, or
 * nothing: on every YAML document of testdata, examples and (when present) Istio's conformance
 * inputs and goldens, on the overlays the built-in, example and Istio templates render for real
 * pods, on generated block documents full of YAML 1.1 traps, and on all of these mutated. Where
 * it answers, the library must succeed with a value equal in every respect (types, prototypes,
 * key order). It must take the overlays it exists for (not a vacuous pass), and leave each class
 * of YAML outside its subset to the library.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { readPlainBlockYaml, MAX_NESTING } from './plain-block.js';
import { parseYamlDocument } from './read.js';
import { readManifest } from '../manifest-io/documents.js';
import { podTemplates } from '../manifest-io/index.js';
import type { LoadedConfig } from '../config/types.js';
import { loadConfig } from '../profiles/index.js';
import { readPod, select } from '../inject/stages.js';
import { stripPod } from '../inject/strip.js';
import { templateData } from '../inject/data.js';
import type { InjectionContext } from '../inject/types.js';
import { defaultConfigWith, deploymentTemplate, replicaSetPod, WEBHOOK } from '../../test/support/inject-fixtures.js';
import { istioChartConfig, istioChartPresent } from '../../test/support/istio-chart.js';
import { casePods, istioCases, istioInjectDataPresent } from '../../test/support/istio-conformance.js';
import type { JsonObject, JsonValue } from '../util/json.js';
import { LINE_MUTATIONS, mutateLine, yamlFiles } from '../../test/support/yaml-mutations.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHARED_ISTIO = join(ROOT, '..', 'shared', 'conformance', 'istio');

/** The texts of a file's YAML documents (as `inject -f` splits them), and the whole file. */
function documentTexts(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  try {
    return [
      text,
      ...readManifest(text, file)
        .filter((d) => d.format === 'yaml')
        .map((d) => d.text),
    ];
  } catch {
    return [text];
  }
}

/** What the library path gives: the value, or the error. */
function library(text: string): { value: JsonValue } | { error: Error } {
  try {
    return { value: parseYamlDocument(text).value };
  } catch (err) {
    return { error: err as Error };
  }
}

/**
 * The reader's answer is undefined, or the library's value exactly: same types and prototypes
 * (deepStrictEqual), same key order (the JSON text). Returns whether the reader answered.
 */
function agrees(text: string): boolean {
  const fast = readPlainBlockYaml(text);
  if (fast === undefined) return false;
  const lib = library(text);
  if ('error' in lib) assert.fail(`the reader took text the library refuses (${lib.error.message}):\n${text}`);
  assert.deepStrictEqual(fast, lib.value, `values differ for:\n${text}`);
  assert.equal(JSON.stringify(fast), JSON.stringify(lib.value), `key order differs for:\n${text}`);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Rendered overlays: what the templates really produce, before any YAML reader sees it.

/** The texts the selected (or all) templates of `config` render for `pod`, as injection renders them. */
function renderTexts(pod: unknown, ctx: InjectionContext, config: LoadedConfig, allTemplates = false): { name: string; text: string }[] {
  const read = readPod(pod, ctx, config);
  stripPod(read.work, config, []);
  const selected = select(read);
  const data = templateData(config, selected.hooks);
  const m = config.templateOptions.missingKey;
  const out: { name: string; text: string }[] = [];
  for (const name of allTemplates ? [...config.compiledTemplates.keys()] : selected.names) {
    try {
      out.push({ name, text: config.compiledTemplates.get(name)!.execute(data, m === 'default' ? undefined : { missingKey: m }) });
    } catch {
      // A template that fails for this pod renders nothing to read.
    }
  }
  return out;
}

function builtinOverlays(): string[] {
  const texts: string[] = [];
  const configs = [defaultConfigWith(), defaultConfigWith({ proxy: { logLevel: 'debug' } })];
  for (const config of configs) {
    for (const [pod, ctx] of [
      [replicaSetPod(), WEBHOOK],
      [deploymentTemplate(), { namespace: 'shop', mode: 'manual', owner: { kind: 'Deployment', name: 'shop', apiVersion: 'apps/v1' } }],
    ] as [JsonObject, InjectionContext][]) {
      for (const r of renderTexts(pod, ctx, config)) texts.push(r.text);
    }
  }
  return texts;
}

/** Overlays of Istio's templates for every input of Istio's injection tests, with each case's settings. */
function istioOverlays(): { name: string; text: string }[] {
  if (!istioChartPresent() || !istioInjectDataPresent()) return [];
  const configs = new Map<string, LoadedConfig>();
  const out: { name: string; text: string }[] = [];
  const seen = new Set<string>();
  for (const c of istioCases()) {
    if (c.expectedError !== undefined) continue;
    const key = JSON.stringify(c.options);
    let config = configs.get(key);
    if (config === undefined) configs.set(key, (config = istioChartConfig(c.options)));
    // Every template of the chart for the default settings; the selected ones for the others.
    const all = key === '{}';
    for (const { pod, ctx } of casePods(c)) {
      try {
        for (const r of renderTexts(pod, ctx, config, all)) {
          if (seen.has(r.text)) continue;
          seen.add(r.text);
          out.push(r);
        }
      } catch {
        // An input our injector refuses (bad annotations): nothing rendered.
      }
    }
  }
  return out;
}

/** Overlays of the examples' templates for the examples' apps. */
async function exampleOverlays(): Promise<string[]> {
  const texts: string[] = [];
  const dir = join(ROOT, 'examples');
  if (!existsSync(dir)) return texts;
  for (const name of readdirSync(dir)) {
    const configFile = join(dir, name, 'config.yaml');
    const appFile = join(dir, name, 'app.yaml');
    if (!existsSync(configFile) || !existsSync(appFile)) continue;
    const config = await loadConfig(configFile);
    for (const d of readManifest(readFileSync(appFile, 'utf8'), appFile)) {
      if (d.value === null) continue;
      for (const ref of podTemplates(d.value)) {
        const ctx: InjectionContext = {
          namespace: 'default',
          mode: 'manual',
          owner: { kind: ref.owner.kind, name: ref.owner.name, apiVersion: ref.owner.apiVersion },
        };
        try {
          for (const r of renderTexts(ref.template, ctx, config, true)) texts.push(r.text);
        } catch {
          // as above
        }
      }
    }
  }
  return texts;
}

const files = [...yamlFiles(join(ROOT, 'testdata'), true), ...yamlFiles(join(ROOT, 'examples'), true), ...yamlFiles(SHARED_ISTIO, true)];
const corpus = files.flatMap(documentTexts);
const builtin = builtinOverlays();
const istio = istioOverlays();

// ---------------------------------------------------------------------------------------------
// Mutations: line-level edits that take a document out of the subset or keep it in, and
// character-level ones that hit every rule at once.

/** Characters whose insertion tests a rule each. */
const INSERTS = [
  ' ',
  '  ',
  '\t',
  '#',
  ' #',
  ':',
  ': ',
  '-',
  '- ',
  '"',
  "'",
  '\\',
  '\n',
  '[',
  ']',
  '{',
  '}',
  ',',
  '|',
  '>',
  '&',
  '*',
  '!',
  '?',
  '%',
  '@',
  '`',
  'x',
  '0',
  '\r',
  '\u0085',
  '\u2028',
  '\ufeff',
  '\u0007',
  '\ud800',
  'é',
  '~',
];

function mutateChar(text: string, at: number, which: number, kind: number): string {
  const p = at % (text.length + 1);
  if (kind % 3 === 0) return text.slice(0, p) + INSERTS[which % INSERTS.length] + text.slice(p);
  if (kind % 3 === 1) return text.slice(0, p) + text.slice(p + 1 + (which % 3));
  // Move a line break: joins two lines and splits another.
  const nl = text.indexOf('\n', p);
  return nl === -1 ? text : `${text.slice(0, nl)} ${text.slice(nl + 1, nl + 1 + (which % 20))}\n${text.slice(nl + 1 + (which % 20))}`;
}

// ---------------------------------------------------------------------------------------------
// Generated block documents: a tree written in the styles templates use, with scalars and keys
// drawn from safe ones and YAML 1.1 traps.

const SAFE_SCALARS = [
  'abc',
  'x-y',
  'istio-proxy',
  '/etc/istio/proxy',
  '--flag',
  '-x',
  '--domain=a.b',
  '1337',
  '0',
  '-5',
  '15021',
  'true',
  'false',
  '2000m',
  '1024Mi',
  '15090,15021',
  '$(POD_NAMESPACE).svc',
  'a:b',
  'http://x:80/p',
  'kubernetes://apis/v1',
  "it's",
  'a b  c',
  'a#b',
  'é',
  'docker.io/istio/proxyv2:1.24.2',
  '"quoted"',
  "'single'",
  "'q''s'",
  '""',
  "''",
  '"a\\"b"',
  '"\\u00e9"',
  '"a\\nb"',
  '"\\/"',
  '"\\\\"',
  '"-p"',
  '"*"',
  '"on"',
  '"1.0"',
  '[a, b]',
  '[NET_ADMIN, NET_RAW]',
  '{}',
  '[]',
  '{a: b, c: 1}',
  '["x", 2, \'y\']',
  '[ALL]',
  'v # comment',
  '"x"   # comment',
  '[a] # c',
];
const TRICKY_SCALARS = [
  'on',
  'On',
  'No',
  'yes',
  'Y',
  'y',
  'n',
  'off',
  'True',
  'FALSE',
  '0x1F',
  '1e3',
  '012',
  '0644',
  '0o17',
  '1_000',
  '.5',
  '1.5',
  '-1.5',
  '+1',
  '-0',
  '00',
  '12345678901234567890',
  '9007199254740993',
  '1234567890123456',
  '.inf',
  '-.Inf',
  '.NaN',
  '~',
  'null',
  'Null',
  '2001-12-14',
  '2001-12-14T21:59:43Z',
  '1:20',
  '-',
  '- a',
  'a: b',
  'a:',
  '#x',
  'a #b',
  '"\\x41"',
  '"\\U0001F600"',
  '"\\N"',
  '"\\_"',
  '"\\e"',
  '"\\0"',
  '"\\a"',
  '"\\v"',
  '"\\ud800"',
  '"\\uDC00x"',
  '"\\t"',
  '"\\ "',
  '&a x',
  '*a',
  '!!str x',
  '!x y',
  '|',
  '>',
  '|+',
  '|2',
  '<<',
  '?',
  '? x',
  ': x',
  '%x',
  '@x',
  '`x',
  '{a: [1]}',
  '[a: b]',
  '[a, [b]]',
  '{a}',
  '[a,]',
  '[,]',
  '{a: }',
  '{a: 1, a: 2}',
  '"unterminated',
  "'unterminated",
  'x: y: z',
  '[a, #c]',
  '{on: 1}',
  '{"a": 1}',
  '[- a]',
  '[-]',
  '[a b]',
  '"a" x',
  "'''",
  '"',
  '= ',
  '=',
  '[a]x',
  '{a: b}}',
  '[~]',
  '[yes]',
  '[1.5]',
  '[0x1]',
  '"a"#c',
];
const KEYS = [
  'name',
  'image',
  'a',
  'b',
  'args',
  'env',
  'kubectl.kubernetes.io/default-container',
  'sidecar.istio.io/inject',
  '_k',
  'x-y',
  'k.8',
  'on',
  'Yes',
  'n',
  'null',
  'NULL',
  '123',
  '1.5',
  '<<',
  '"q"',
  "'q'",
  '? k',
  'a b',
  '__proto__',
  'constructor',
  'toString',
  'true',
  '~',
  '-k',
  'k#',
  'a:b',
  '.k',
  'é',
];

type Tree =
  | { t: 'scalar'; text: string; comment: boolean }
  | { t: 'block'; header: string; lines: string[]; extra: number }
  | { t: 'flowLines'; entries: [string, string][] }
  | { t: 'empty' }
  | { t: 'map'; entries: [string, Tree][]; step: number }
  | { t: 'seq'; items: Tree[]; indentless: boolean; compact: boolean; gap: number };

const scalarText = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...SAFE_SCALARS) },
  { weight: 2, arbitrary: fc.constantFrom(...TRICKY_SCALARS) },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9 :#'"\\-]{1,6}$/) },
);
const key = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...KEYS.slice(0, 11)) }, fc.constantFrom(...KEYS));
const { map: mapArb } = fc.letrec<{ tree: Tree; map: Tree; seq: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ t: fc.constant('scalar' as const), text: scalarText, comment: fc.boolean() }),
    fc.record({
      t: fc.constant('block' as const),
      header: fc.constantFrom('|', '|', '|-', '|-', '|+', '>', '|2', '| # c'),
      lines: fc.array(fc.constantFrom('x', 'a b', '  more', '', '#c', '   ', '  ', 'k: v', '- i', '"q"', 'x  '), { minLength: 0, maxLength: 4 }),
      extra: fc.integer({ min: -1, max: 2 }),
    }),
    fc.record({ t: fc.constant('flowLines' as const), entries: fc.array(fc.tuple(key, scalarText), { maxLength: 3 }) }),
    fc.constant({ t: 'empty' as const }),
    tie('map'),
    tie('seq'),
  ),
  map: fc.record({
    t: fc.constant('map' as const),
    entries: fc.array(fc.tuple(key, tie('tree')), { minLength: 1, maxLength: 4 }),
    step: fc.integer({ min: 1, max: 4 }),
  }),
  seq: fc.record({
    t: fc.constant('seq' as const),
    items: fc.array(tie('tree'), { minLength: 1, maxLength: 3 }),
    indentless: fc.boolean(),
    compact: fc.boolean(),
    gap: fc.integer({ min: 1, max: 3 }),
  }),
}));

/** Write `value` after `prefix` (`key:` or `-` at column `col`); `child` is the column of its block content. */
function writeValue(prefix: string, value: Tree, col: number, child: number, out: string[]): void {
  const pad = (n: number) => ' '.repeat(Math.max(0, n));
  switch (value.t) {
    case 'scalar':
      out.push(`${prefix} ${value.text}${value.comment ? ' # note' : ''}`);
      return;
    case 'block':
      out.push(`${prefix} ${value.header}`);
      for (const l of value.lines) out.push(l === '' ? '' : pad(child + value.extra) + l);
      return;
    case 'flowLines':
      out.push(`${prefix} {`);
      for (const [k, v] of value.entries) out.push(`${pad(child)}${k}: ${v},`);
      out.push(`${pad(child - 2)}}`);
      return;
    case 'empty':
      out.push(prefix);
      return;
    case 'map':
      out.push(prefix);
      writeMap(value, child, out);
      return;
    case 'seq':
      out.push(prefix);
      // An indentless sequence sits at its key's column.
      writeSeq(value, value.indentless && prefix.endsWith(':') ? col : child, out);
  }
}

function writeMap(map: Extract<Tree, { t: 'map' }>, col: number, out: string[]): void {
  for (const [k, v] of map.entries) writeValue(`${' '.repeat(col)}${k}:`, v, col, col + map.step, out);
}

function writeSeq(seq: Extract<Tree, { t: 'seq' }>, col: number, out: string[]): void {
  const dash = `${' '.repeat(col)}-${' '.repeat(seq.gap)}`;
  for (const item of seq.items) {
    if (seq.compact && item.t === 'map') {
      // `- key: value`, the other keys under the first.
      const keysAt = col + 1 + seq.gap;
      item.entries.forEach(([k, v], i) => writeValue(`${i === 0 ? dash : ' '.repeat(keysAt)}${k}:`, v, keysAt, keysAt + item.step, out));
    } else {
      writeValue(dash.trimEnd(), item, col, col + 1 + seq.gap, out);
    }
  }
}

/** A generated document, with comment and blank lines dropped in. */
const documentArb = fc
  .record({
    root: mapArb,
    rootCol: fc.constantFrom(0, 0, 0, 2),
    decor: fc.array(fc.tuple(fc.nat(), fc.constantFrom('', '  ', '# c', '  # c', '      # deep', '    ')), { maxLength: 3 }),
    finalNewline: fc.boolean(),
  })
  .map(({ root, rootCol, decor, finalNewline }) => {
    const lines: string[] = [];
    writeMap(root as Extract<Tree, { t: 'map' }>, rootCol, lines);
    for (const [at, line] of decor) lines.splice(at % (lines.length + 1), 0, line);
    return lines.join('\n') + (finalNewline ? '\n' : '');
  });

// ---------------------------------------------------------------------------------------------

describe('readPlainBlockYaml', () => {
  it('agrees with the library on every YAML file and document of testdata, examples and Istio', (t) => {
    assert.ok(corpus.length >= 80, `${corpus.length} documents`);
    const taken = corpus.filter(agrees).length;
    t.diagnostic(`took ${taken} of ${corpus.length} documents`);
    assert.ok(taken > 0);
  });

  it("takes the built-in template's rendered overlay, and agrees", (t) => {
    assert.ok(builtin.length >= 4);
    for (const text of builtin) assert.equal(agrees(text), true, `not taken:\n${text}`);
    t.diagnostic(`${builtin.length} overlays of ~${builtin[0].length} bytes`);
  });

  it("takes Istio's rendered overlays (the sidecar template's at least), and agrees", {
    skip: istio.length === 0 ? 'Istio conformance data not found' : false,
  }, (t) => {
    let taken = 0;
    const bailed = new Map<string, number>();
    for (const r of istio) {
      if (agrees(r.text)) taken++;
      else bailed.set(r.name, (bailed.get(r.name) ?? 0) + 1);
    }
    t.diagnostic(`took ${taken} of ${istio.length} distinct overlays; left to the library: ${JSON.stringify(Object.fromEntries(bailed))}`);
    assert.ok(
      istio.some((r) => r.name === 'sidecar' && readPlainBlockYaml(r.text) !== undefined),
      "no sidecar overlay of Istio's taken",
    );
    assert.ok(taken >= istio.length * 0.9, `took only ${taken} of ${istio.length}`);
  });

  it("agrees on the examples' rendered overlays", async (t) => {
    const texts = await exampleOverlays();
    const taken = texts.filter(agrees).length;
    t.diagnostic(`took ${taken} of ${texts.length}`);
  });

  it('agrees with the library on every overlay and corpus document mutated line by line', (t) => {
    let taken = 0;
    let total = 0;
    const sources = [
      ...builtin.slice(0, 1),
      ...istio.slice(0, 3).map((r) => r.text),
      ...corpus.filter((c) => readPlainBlockYaml(c) !== undefined).slice(0, 40),
    ];
    for (const text of sources) {
      const lines = text.split('\n').length;
      for (let at = 0; at < lines; at += 1 + (lines >> 3)) {
        for (let m = 0; m < LINE_MUTATIONS.length; m++) {
          total++;
          if (agrees(mutateLine(text, at, m))) taken++;
        }
      }
    }
    t.diagnostic(`took ${taken} of ${total} mutated documents`);
    assert.ok(taken > 500, `${taken} mutated documents taken`);
  });

  it('property: agrees on overlays with random character and line edits', () => {
    const sources = [...builtin.slice(0, 1), ...istio.slice(0, 4).map((r) => r.text)];
    fc.assert(
      fc.property(fc.nat(), fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.boolean()), { minLength: 1, maxLength: 3 }), (src, edits) => {
        let text = sources[src % sources.length];
        for (const [at, which, kind, line] of edits) text = line ? mutateLine(text, at, which) : mutateChar(text, at, which, kind);
        agrees(text);
      }),
      { numRuns: 600 },
    );
  });

  it('property: agrees on generated block documents mixing safe scalars and YAML 1.1 traps', (t) => {
    let taken = 0;
    let runs = 0;
    fc.assert(
      fc.property(documentArb, (text) => {
        runs++;
        if (agrees(text)) taken++;
      }),
      { numRuns: 2500 },
    );
    t.diagnostic(`took ${taken} of ${runs} generated documents`);
    assert.ok(taken > runs / 20, `took only ${taken} of ${runs}`);
  });

  it('property: agrees on generated documents with only safe scalars and keys, and takes most of them', (t) => {
    const safeTree = fc.letrec<{ tree: Tree; map: Tree }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small' },
        fc.record({ t: fc.constant('scalar' as const), text: fc.constantFrom(...SAFE_SCALARS), comment: fc.boolean() }),
        fc.record({
          t: fc.constant('block' as const),
          header: fc.constantFrom('|', '|-'),
          lines: fc.array(fc.constantFrom('x', 'a b', '  more', '#c', 'k: v'), { minLength: 1, maxLength: 3 }),
          extra: fc.constant(0),
        }),
        fc.record({
          t: fc.constant('flowLines' as const),
          entries: fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS.slice(0, 11)), fc.constantFrom('x', '"y"', '1', "'z'")), {
            maxLength: 3,
            selector: (e) => e[0],
          }),
        }),
        fc.constant({ t: 'empty' as const }),
        tie('map'),
        fc.record({
          t: fc.constant('seq' as const),
          items: fc.array(tie('tree'), { minLength: 1, maxLength: 3 }),
          indentless: fc.boolean(),
          compact: fc.boolean(),
          gap: fc.integer({ min: 1, max: 2 }),
        }),
      ),
      map: fc.record({
        t: fc.constant('map' as const),
        entries: fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS.slice(0, 11)), tie('tree')), { minLength: 1, maxLength: 4, selector: (e) => e[0] }),
        step: fc.integer({ min: 1, max: 4 }),
      }),
    })).map;
    let taken = 0;
    let runs = 0;
    fc.assert(
      fc.property(safeTree, (root) => {
        const lines: string[] = [];
        writeMap(root as Extract<Tree, { t: 'map' }>, 0, lines);
        runs++;
        if (agrees(`${lines.join('\n')}\n`)) taken++;
      }),
      { numRuns: 1000 },
    );
    t.diagnostic(`took ${taken} of ${runs} generated documents`);
    // Only the empty items of a non-compact sequence (`-` alone, a map or list under it) leave the subset.
    assert.ok(taken > runs / 2, `took only ${taken} of ${runs}`);
  });

  it('reads what it takes exactly as the library does: hand-written cases', () => {
    for (const text of [
      '',
      '\n# only a comment\n\n',
      'a: 1\nb: -2\nc: 0\nd: true\ne: false\nf: "1"\ng: \'x\'\nh:\ni: 2000m\nj: 1:20\nk: a:b\n',
      'a:\n- x\n- k: v\n  j:\n  - 1\n  l: w\nb: 1\n',
      'a:\n  - x\n  -   k: v\n      j: [1, "2", \'3\']\n',
      '# lead\nspec:\n  containers:\n  - name: a\n    args: ["-c", x]\n    command:\n      - -c\n      - |\n        echo "hi"\n          more\n\n        end\n',
      'a: |-\n  x\n  y\n\nb: |\n    deep\n\n\nc: 1\n',
      'a: |\n  x\n#  not a comment: ends the block\nb: 1\n',
      'a: |\n  x',
      'a: |-\n  x\n\n',
      'a: |\n  x\n \n  y\n  \n',
      'metadata:\n  annotations: {\n    istio.io/rev: "default",\n    a.b/c: x,\n  }\nspec: {}\n',
      'a: {\n\n  k: v\n}\nb: [\n  1,\n  2 ]\n',
      "a: \"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u20AC\"\nb: 'it''s'\n",
      'a: x # c\nb: "y"  # c\nc: [1] # c\nd: # c\n  e: 1\n',
      'a:\n  # between\n  b: 1\n    # deeper\n# shallower\n  c: 2\n',
      'constructor: 1\ntoString: x\nhasOwnProperty: [a]\n',
      '  a: 1\n  b:\n  - x\n',
      'a: $(POD_NAMESPACE).svc\nb: kubernetes://apis/apps\nc: 15090,15021\nd: a[b]{c}\ne: it\'s "q"\n',
      'a:\n- b\n-  "c" \n- - d\n',
    ]) {
      const fast = readPlainBlockYaml(text);
      const lib = library(text);
      if (fast === undefined) {
        // The last case (`- - d`) and any the reader leaves alone go to the library.
        continue;
      }
      assert.ok(!('error' in lib), text);
      assert.deepStrictEqual(fast, lib.value, text);
      assert.equal(JSON.stringify(fast), JSON.stringify(lib.value), text);
    }
    // The accepted ones above are really taken (not only compared when taken).
    assert.deepStrictEqual(readPlainBlockYaml('a:\n- x\n- k: v\n  j:\n  - 1\n  l: w\nb: 1\n'), { a: ['x', { k: 'v', j: [1], l: 'w' }], b: 1 });
    assert.deepStrictEqual(readPlainBlockYaml('a: |-\n  x\n  y\n\nb: |\n    deep\n\n\nc: 1\n'), { a: 'x\ny', b: 'deep\n', c: 1 });
    assert.deepStrictEqual(readPlainBlockYaml('metadata:\n  annotations: {\n    istio.io/rev: "default",\n  }\n'), {
      metadata: { annotations: { 'istio.io/rev': 'default' } },
    });
    assert.deepStrictEqual(readPlainBlockYaml('a: x # c\nd: # c\n  e: 1\n'), { a: 'x', d: { e: 1 } });
    // A block scalar ending the text without a line break has none to keep, as in go-yaml.
    assert.deepStrictEqual(readPlainBlockYaml('a: |\n  x'), { a: 'x' });
    assert.equal(readPlainBlockYaml('\n# only a comment\n\n'), null);
    assert.equal(readPlainBlockYaml(''), null);
  });

  it('leaves each class of YAML outside its subset to the library', () => {
    const deep = `${Array.from({ length: MAX_NESTING + 1 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} 1\n`;
    const cases: [string, string][] = [
      ['a tab', 'a:\n\tb: 1\n'],
      ['a tab in a value', 'a: b\tc\n'],
      ['CR', 'a: 1\r\nb: 2\r\n'],
      ['a BOM', '\ufeffa: 1\n'],
      ['NEL (a YAML 1.1 line break the library reports)', 'a: b\u0085c\n'],
      ['LS', 'a: "b\u2028c"\n'],
      ['a raw control character', 'a: "b\u0007"\n'],
      ['a lone surrogate', 'a: b\ud800\n'],
      ['a document start', '---\na: 1\n'],
      ['a document end', 'a: 1\n...\n'],
      ['a directive', '%YAML 1.1\n---\na: 1\n'],
      ['an anchor', 'a: &x 1\nb: 2\n'],
      ['an alias', 'a: *x\n'],
      ['a tag', 'a: !!str 1\n'],
      ['a local tag', 'a: !foo x\n'],
      ['a folded block scalar', 'a: >\n  x\n'],
      ['a kept block scalar', 'a: |+\n  x\n\nb: 1\n'],
      ['an indentation indicator', 'a: |2\n   x\n'],
      ['a comment after a block header', 'a: | # c\n  x\n'],
      ['leading blank lines in a block scalar', 'a: |\n\n  x\n'],
      ['a blank line longer than the block indentation', 'a: |\n  x\n    \n  y\n'],
      ['an empty block scalar', 'a: |\nb: 1\n'],
      ['a multi-line plain scalar', 'a: b\n  c\n'],
      ['a multi-line plain scalar in a list', 'a:\n- b\n  c\n'],
      ['a multi-line double-quoted scalar', 'a: "b\n  c"\n'],
      ['a multi-line single-quoted scalar', "a: 'b\n  c'\n"],
      ['a plain scalar on the line after its key', 'a:\n  b\n'],
      ['a multi-line flow list broken after an entry', 'a: [b\n  , c]\n'],
      ['a nested flow collection', 'a: [b, [c]]\n'],
      ['a comment in a flow collection', 'a: [b, # c\n  d]\n'],
      ['a pair in a flow list', 'a: [b: c]\n'],
      ['a flow map without a value', 'a: {b}\n'],
      ['a quoted key in a flow map', 'a: {"b": 1}\n'],
      ['a duplicate key in a flow map', 'a: {b: 1, b: 2}\n'],
      ['an empty flow entry', 'a: [b,,c]\n'],
      ['text after a flow collection', 'a: [b] c\n'],
      ['a comment without a space', 'a: "b"#c\n'],
      ['a duplicate key', 'a: 1\nb: 2\na: 3\n'],
      ['a duplicate key in a nested map', 'a:\n  b: 1\n  b: 1\n'],
      ['a quoted key', '"a": 1\n'],
      ['a single-quoted key', "'a': 1\n"],
      ['an explicit key', '? a\n: 1\n'],
      ['a merge key', 'a: 1\n<<: {b: 2}\n'],
      ['a key YAML 1.1 reads as a boolean', 'on: 1\n'],
      ['a key y', 'y: 1\n'],
      ['a key that is a number', '123: a\n'],
      ['a null key', 'null: a\n'],
      ['a __proto__ key', '__proto__: {a: 1}\n'],
      ['a key with a space', 'a b: 1\n'],
      ['a key with a space before its colon', 'a : 1\n'],
      ['yes', 'a: yes\n'],
      ['No', 'a: No\n'],
      ['on', 'a: on\n'],
      ['True', 'a: True\n'],
      ['y', 'a: y\n'],
      ['null', 'a: null\n'],
      ['~', 'a: ~\n'],
      ['a float', 'a: 1.5\n'],
      ['an exponent', 'a: 1e3\n'],
      ['.5', 'a: .5\n'],
      ['.inf', 'a: .inf\n'],
      ['a hex integer', 'a: 0x1F\n'],
      ['an octal integer', 'a: 0644\n'],
      ['an integer with underscores', 'a: 1_000\n'],
      ['a signed integer', 'a: +1\n'],
      ['a long integer', 'a: 1234567890123456\n'],
      ['a plain <<', 'a: <<\n'],
      ['\\x', 'a: "\\x41"\n'],
      ['\\U', 'a: "\\U0001F600"\n'],
      ['\\N', 'a: "\\N"\n'],
      ['\\_', 'a: "\\_"\n'],
      ['\\e', 'a: "\\e"\n'],
      ['\\0', 'a: "\\0"\n'],
      ['\\a', 'a: "\\a"\n'],
      ['\\v', 'a: "\\v"\n'],
      ['\\ (escaped space)', 'a: "\\ "\n'],
      ['a surrogate \\u', 'a: "\\ud83d\\ude00"\n'],
      ['an unclosed quote', 'a: "b\n'],
      ['text after a quoted scalar', 'a: "b" c\n'],
      ['a mapping in a value', 'a: b: c\n'],
      ['a value ending with a colon', 'a: b:\n'],
      ['a sequence in a value', 'a: - b\n'],
      ['a lone dash value', 'a: -\n'],
      ['an indicator starting a value', 'a: @b\n'],
      ['a `?` starting a value', 'a: ?b\n'],
      ['an empty sequence item', 'a:\n-\n  b: 1\n'],
      ['a comment as a sequence item', 'a:\n- # c\n  b\n'],
      ['a nested sequence on one line', 'a:\n- - b\n'],
      ['a sequence at the root', '- a\n- b\n'],
      ['a scalar at the root', 'hello\n'],
      ['a flow map at the root', '{a: 1}\n'],
      ['bad indentation', 'a:\n    b: 1\n  c: 2\n'],
      ['a line deeper than its map', 'a: 1\n  b: 2\n'],
      ['a dash at a map column', 'a: 1\n- b\n'],
      ['a key at a sequence column', 'a:\n  - b\n  c: 1\n'],
      ['a line left of the root', '  a: 1\nb: 2\n'],
      ['too deep', deep],
    ];
    for (const [rule, text] of cases) {
      assert.equal(readPlainBlockYaml(text), undefined, `${rule}: ${JSON.stringify(text)}`);
    }
  });
});
