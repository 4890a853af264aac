/**
 * The compiled engine against the reference interpreter: on every case of the template
 * conformance suite (testdata/template/cases, 800+ cases) and on random templates and data,
 * both must give the same bytes or the same error (class, code, message). The step budget must
 * match too: for each conformance case, the smallest `maxSteps` the interpreter renders with
 * is found by bisection, and the compiled engine must render with exactly that budget and
 * fail with the step error one below it. Output limits and missingkey modes are compared too.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { templateData, templateText } from '../../../test/support/template-arbitraries.js';
import { listTopics, loadCases } from '../../../test/support/template-conformance.js';
import { bothEngines, runEngine, stepsNeeded } from '../../../test/support/template-engines.js';
import { sprigFuncs, templateFuncs } from '../funcs/index.js';
import { goFunc, type FuncMap } from '../value.js';

const sprig = sprigFuncs();
const cases = listTopics().flatMap((topic) => loadCases(topic));

describe('compiled = interpreter on the conformance suite', () => {
  test('the suite is the whole corpus', () => {
    assert.ok(cases.length >= 800, `only ${cases.length} cases`);
  });

  for (const missingKey of ['default', 'zero', 'error'] as const) {
    test(`every case, missingkey=${missingKey}: same output or same error`, () => {
      let outputs = 0;
      for (const c of cases) {
        const data: unknown = JSON.parse(c.dataJson);
        // Data as decoded, and no data at all (nil dot), on one parse.
        const { compiled, interpreter } = bothEngines(c.template, [data, null], sprig, { missingKey });
        assert.deepEqual(compiled, interpreter, `${c.topic}/${c.name}: ${JSON.stringify(c.template)}`);
        if ('output' in compiled[0]) outputs++;
      }
      assert.ok(outputs > cases.length / 2, `only ${outputs} cases rendered`);
    });
  }

  test("every case: the same step count (the interpreter's exact budget renders, one less fails)", () => {
    let measured = 0;
    for (const c of cases) {
      const data: unknown = JSON.parse(c.dataJson);
      const steps = stepsNeeded(c.template, data, sprig, 200_000);
      if (steps === undefined) continue;
      measured++;
      const at = bothEngines(c.template, [data], sprig, { maxSteps: steps });
      assert.deepEqual(at.compiled, at.interpreter, `${c.topic}/${c.name} at maxSteps=${steps}`);
      if (steps > 0) {
        const below = bothEngines(c.template, [data], sprig, { maxSteps: steps - 1 });
        assert.deepEqual(below.compiled, below.interpreter, `${c.topic}/${c.name} at maxSteps=${steps - 1}`);
        const o = below.compiled[0];
        assert.ok('message' in o && /execution steps/.test(o.message), `${c.topic}/${c.name}: expected the step error below ${steps}`);
      }
    }
    assert.ok(measured > cases.length / 2, `only ${measured} cases measured`);
  });

  test('every case: the same output limit behaviour', () => {
    for (const c of cases) {
      const data: unknown = JSON.parse(c.dataJson);
      const full = runEngine('interpreter', c.template, [data], sprig)[0];
      if (!('output' in full) || full.output.length === 0) continue;
      for (const maxOutput of [0, full.output.length >> 1, full.output.length - 1, full.output.length]) {
        const { compiled, interpreter } = bothEngines(c.template, [data], sprig, { maxOutput });
        assert.deepEqual(compiled, interpreter, `${c.topic}/${c.name} at maxOutput=${maxOutput}`);
      }
    }
  });

  test('nested {{template}} calls: the same depth limit and the same error', () => {
    const t = '{{define "r"}}{{if gt . 0}}x{{template "r" (sub . 1)}}{{end}}{{end}}{{template "r" .n}}';
    for (const [n, maxDepth] of [
      [10, 20],
      [30, 20],
      [20, 20],
      [19, 20],
      [400, 500],
      [600, 500],
    ] as const) {
      const { compiled, interpreter } = bothEngines(t, [{ n }], templateFuncs(), { maxDepth });
      assert.deepEqual(compiled, interpreter, `n=${n} maxDepth=${maxDepth}`);
    }
  });
});

// ---- random templates ------------------------------------------------------------------------

/** Fragments of templates: property.test.ts's set plus nested declarations, chains and calls. */
const FRAGMENTS = [
  '{{',
  '}}',
  '{{- ',
  ' -}}',
  ' ',
  '\n',
  'x',
  'é',
  '.',
  '.a',
  '.b.c',
  '.l',
  '.m',
  '.b.x.y',
  '$',
  '$x',
  '$y',
  '$x.c',
  '$x := ',
  '$x = ',
  '$y := ',
  '$i, $v := ',
  ':=',
  '=',
  '|',
  '(',
  ')',
  'if ',
  'else',
  'else if ',
  'else with ',
  'end',
  'range ',
  'with ',
  'break',
  'continue',
  'define "d"',
  'template "d"',
  'block "b" .',
  'nil',
  'true',
  'false',
  '0',
  '1',
  '-2',
  '1.5',
  '1e3',
  '0x1F',
  "'c'",
  '"s"',
  '`r`',
  '1i',
  'and ',
  'or ',
  'not ',
  'eq ',
  'ne ',
  'lt ',
  'le ',
  'len ',
  'index ',
  'slice ',
  'print ',
  'printf "%v %d" ',
  'println ',
  'html ',
  'js ',
  'call ',
  'f ',
  'g ',
  'default ',
  'list ',
  'dict ',
  'toJson ',
  'quote ',
  'upper ',
  'keys ',
  'hasKey ',
  'append ',
  'add ',
  'atoi ',
  'toString ',
  'ternary ',
  '{{if .a}}',
  '{{else}}',
  '{{end}}',
  '{{range .l}}',
  '{{range $i, $v := .m}}',
  '{{range $v := .l}}',
  '{{with .b}}',
  '{{with $x := .a}}',
  '{{define "d"}}',
  '{{template "d" .}}',
  '{{template "d" .l}}',
  '{{.}}',
  '{{$}}',
  '{{$x := .l}}',
  '{{$x = .m}}',
  '{{ and false ($z := 1) }}',
  '{{break}}',
  '{{continue}}',
  '({{.a}})',
  '(.b).c',
  '($x := 2)',
];

const tokenText = templateText(FRAGMENTS);

const jsonData = templateData;

const funcs: FuncMap = {
  ...templateFuncs(),
  f: goFunc(['string'], (s: string, ...rest: unknown[]) => `${s}${rest.length}`, 'interface {}'),
  g: goFunc(['int', 'float64'], (i: bigint, x: number) => `${i}:${x}`),
};

const limits = fc.record({
  missingKey: fc.constantFrom('default' as const, 'zero' as const, 'error' as const, 'invalid' as const),
  maxSteps: fc.integer({ min: 0, max: 300 }),
  maxDepth: fc.integer({ min: 0, max: 30 }),
  maxOutput: fc.integer({ min: 0, max: 2000 }),
});

test('random templates and data: the compiled engine agrees with the interpreter', () => {
  let rendered = 0;
  fc.assert(
    fc.property(tokenText, jsonData, limits, (text, data, options) => {
      const { compiled, interpreter } = bothEngines(text, [data, null], funcs, options);
      assert.deepEqual(compiled, interpreter);
      if ('output' in compiled[0]) rendered++;
    }),
    { numRuns: 4000 },
  );
  assert.ok(rendered > 200, `only ${rendered} random templates rendered; the generator no longer exercises execution`);
});

test('random templates, default limits: the compiled engine agrees with the interpreter', () => {
  fc.assert(
    fc.property(tokenText, jsonData, (text, data) => {
      const { compiled, interpreter } = bothEngines(text, [data], funcs, { maxSteps: 20_000, maxDepth: 50, maxOutput: 100_000 });
      assert.deepEqual(compiled, interpreter);
    }),
    { numRuns: 3000 },
  );
});
