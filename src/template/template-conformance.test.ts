/**
 * @module template/template-conformance.test
 * The golden conformance suite: every case in testdata/template/cases/<topic>.yaml is rendered
 * by our engine (template name `t`, Sprig function map, data decoded from the case's JSON) and
 * compared with what Go 1.19 text/template + Sprig 3.2.3 produced for the same bytes
 * (testdata/template/expected/<topic>.json). Go is not needed here; the expectations are
 * regenerated with `npx tsx scripts/gen-template-goldens.ts` (needs `gotemplate-ref`), or by
 * running this test with UPDATE_GOLDEN=1.
 *
 * Policy when Go fails:
 * - we must fail too, in the same phase (Go's Parse -> our parseTemplate, Go's Execute -> our
 *   execute), with a TemplateError whose code is SI_TEMPLATE_PARSE or SI_TEMPLATE_EXEC;
 * - the message must equal Go's exactly (`template: t:LINE:COL: executing "t" at <NODE>: ...`),
 *   except for cases marked `match: prefix`: those are errors whose text is a Go runtime,
 *   reflect or type-assertion panic raised inside a function (`runtime error: integer divide by
 *   zero`, `reflect: call of reflect.Value.Type on zero Value`, `interface conversion: ...`).
 *   That text describes Go's internals, not the template, so only the prefix up to and
 *   including `error calling NAME: ` must match (location, context and failing function).
 *   The generator warns when such text appears in a case not marked `prefix`.
 * Cases marked `match: deviation` are deliberate, documented differences (their `why` says
 * which): the case holds our own behaviour under `ours`, and Go's stays in the expectation file.
 * Go's partial output before an execution error is not compared (our API returns no output
 * when execution fails).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTemplate } from './index.js';
import { sprigFuncs } from './funcs/index.js';
import { TemplateError } from '../errors.js';
import {
  REGEN_COMMAND,
  caseHash,
  generateGoldens,
  goErrorPrefix,
  listTopics,
  loadCases,
  loadExpected,
  type ConformanceCase,
  type Expectation,
} from '../../test/support/template-conformance.js';

if (process.env.UPDATE_GOLDEN === '1') generateGoldens();

const funcs = sprigFuncs();
const topics = listTopics();
const corpus = topics.map((topic) => ({ topic, cases: loadCases(topic), expected: loadExpected(topic) }));

type Outcome = { kind: 'output'; output: string } | { kind: 'error'; phase: 'parse' | 'exec'; error: unknown };

function render(c: ConformanceCase): Outcome {
  const data: unknown = JSON.parse(c.dataJson);
  let template;
  try {
    template = parseTemplate('t', c.template, { funcs });
  } catch (error) {
    return { kind: 'error', phase: 'parse', error };
  }
  try {
    return { kind: 'output', output: template.execute(data) };
  } catch (error) {
    return { kind: 'error', phase: 'exec', error };
  }
}

function describeError(err: unknown): string {
  return err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err);
}

function check(c: ConformanceCase, want: Expectation): void {
  const where = `template ${JSON.stringify(c.template)} data ${c.dataJson}`;
  const got = render(c);
  if (c.match === 'deviation' && c.ours) {
    // A documented difference from Go (see the case's `why`): hold us to our own behaviour.
    if (c.ours.output !== undefined) {
      assert.equal(got.kind, 'output', `expected our documented output, got ${got.kind === 'error' ? describeError(got.error) : ''}\n${where}`);
      assert.equal(got.kind === 'output' ? got.output : undefined, c.ours.output, `output differs from our documented deviation\n${where}`);
    } else {
      assert.equal(got.kind, 'error', `expected our documented error ${JSON.stringify(c.ours.error)}\n${where}`);
      assert.ok(got.kind === 'error' && got.error instanceof TemplateError, `expected a TemplateError\n${where}`);
      assert.equal(got.error.message, c.ours.error, `error differs from our documented deviation\n${where}`);
    }
    return;
  }
  if (want.error === undefined) {
    if (got.kind === 'error') {
      assert.fail(
        `Go renders ${JSON.stringify(want.output)} but our ${got.phase === 'parse' ? 'parse' : 'execute'} failed: ${describeError(got.error)}\n${where}`,
      );
    }
    assert.equal(got.output, want.output, `output differs from Go's\n${where}`);
    return;
  }
  if (got.kind === 'output') {
    assert.fail(`Go fails (${want.phase}) with ${JSON.stringify(want.error)} but we rendered ${JSON.stringify(got.output)}\n${where}`);
  }
  assert.ok(got.error instanceof TemplateError, `expected a TemplateError, got ${describeError(got.error)}\n${where}`);
  assert.equal(got.phase, want.phase, `Go fails in ${want.phase}, we failed in ${got.phase}: ${got.error.message}\n${where}`);
  assert.equal(got.error.code, want.phase === 'parse' ? 'SI_TEMPLATE_PARSE' : 'SI_TEMPLATE_EXEC', `error code for a ${want.phase} failure\n${where}`);
  if (c.match === 'prefix') {
    const prefix = goErrorPrefix(want.error);
    assert.ok(prefix.length > 0, `no Go prefix found in ${JSON.stringify(want.error)}`);
    assert.ok(
      got.error.message.startsWith(prefix) && got.error.message.length > prefix.length,
      `error message must start with Go's ${JSON.stringify(prefix)} (Go's full message: ${JSON.stringify(want.error)}), got ${JSON.stringify(got.error.message)}\n${where}`,
    );
  } else {
    assert.equal(got.error.message, want.error, `error message differs from Go's\n${where}`);
  }
}

for (const { topic, cases, expected } of corpus) {
  describe(topic, () => {
    for (const c of cases) {
      test(`${topic}/${c.name}`, { timeout: 10_000 }, () => {
        const want = expected?.cases[c.name];
        if (want === undefined) {
          assert.fail(`no Go expectation for ${topic}/${c.name}: run ${REGEN_COMMAND}`);
        }
        if (want.sha256 !== caseHash(c)) {
          assert.fail(`stale golden: ${topic}/${c.name} changed since its expectation was generated: run ${REGEN_COMMAND}`);
        }
        check(c, want);
      });
    }
    test(`${topic}: every expectation belongs to a case`, () => {
      assert.ok(expected, `testdata/template/expected/${topic}.json is missing: run ${REGEN_COMMAND}`);
      const names = new Set(cases.map((c) => c.name));
      const orphans = Object.keys(expected.cases).filter((n) => !names.has(n));
      assert.deepEqual(orphans, [], `expectations without a case (renamed or removed): run ${REGEN_COMMAND}`);
    });
  });
}

test('the corpus is large enough to mean something', () => {
  const total = corpus.reduce((n, t) => n + t.cases.length, 0);
  assert.ok(total >= 300, `only ${total} cases`);
});

// Every function the product promises from Go and Sprig (template-functions.md, when the shared
// checkout is present) is exercised by at least one case. `required` is Helm's, not Sprig's:
// Go's oracle does not know it, so the function helper's own tests cover it.
const FUNCTIONS_DOC = join(dirname(fileURLToPath(import.meta.url)), '../../../shared/conformance/template-functions.md');
const NOT_IN_SPRIG = new Set(['required']);

test('every Go built-in and Sprig function in template-functions.md has a case', {
  skip: !existsSync(FUNCTIONS_DOC) && 'shared conformance checkout absent',
}, () => {
  const doc = readFileSync(FUNCTIONS_DOC, 'utf8');
  const names: string[] = [];
  for (const para of doc.split(/\n\s*\n/)) {
    const m = /^([A-Z][A-Za-z -]+?)(?: \([^)]*\))?: ([\s\S]*)$/.exec(para.trim());
    if (!m || m[1] === 'Injector' || m[1].startsWith('Not provided')) continue;
    names.push(...m[2].split(/\s+/).filter((w) => /^[A-Za-z][A-Za-z0-9]*$/.test(w)));
  }
  assert.ok(names.length > 100, `parsed only ${names.length} function names from ${FUNCTIONS_DOC}`);
  const templates = corpus.flatMap((t) => t.cases.map((c) => c.template)).join('\n');
  const missing = names.filter((n) => !NOT_IN_SPRIG.has(n) && !new RegExp(`(?<![\\w.$])${n}(?![\\w])`).test(templates));
  assert.deepEqual(missing, [], 'functions with no conformance case');
});
