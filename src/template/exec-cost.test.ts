/**
 * What a builtin copies counts against the step budget: a template that copies a list or a
 * string per element (quadratic work) stops with Go's step error instead of blocking the
 * process, while functions that only look at their arguments (`len`, `index`) stay one step,
 * so linear templates over large pods still render.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TemplateError } from '../errors.js';
import { templateFuncs } from './funcs/index.js';
import { parseTemplate } from './index.js';

const funcs = templateFuncs();
const render = (text: string, data: unknown, maxSteps?: number) =>
  parseTemplate('t', text, { funcs }).execute(data, maxSteps === undefined ? {} : { maxSteps });
const items = (n: number) => Array.from({ length: n }, (_, i) => `name-${i}`);

function stepError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof TemplateError, String(err));
    return err.message;
  }
  assert.fail('expected the step limit');
}

test('append per element over 40,000 items stops at the step limit (it copies the list each time)', () => {
  const t = '{{ $l := list }}{{ range .items }}{{ $l = append $l . }}{{ end }}{{ len $l }}';
  assert.equal(render(t, { items: items(100) }), '100', 'small lists are fine');
  assert.match(
    stepError(() => render(t, { items: items(40_000) })),
    /exceeded maximum number of execution steps \(10000000\)/,
  );
  // The limit scales with the budget: the same template passes with room for n²/2 copies.
  assert.equal(render(t, { items: items(2_000) }, 5_000_000), '2000');
  assert.match(
    stepError(() => render(t, { items: items(2_000) }, 1_000_000)),
    /execution steps \(1000000\)/,
  );
});

test('growing a string per element stops at the step limit too', () => {
  const t = '{{ $s := "" }}{{ range .items }}{{ $s = printf "%s,%s" $s . }}{{ end }}{{ len $s }}';
  assert.match(
    stepError(() => render(t, { items: items(40_000) })),
    /execution steps/,
  );
  assert.match(
    stepError(() => render('{{ $s := "x" }}{{ range .items }}{{ $s = cat $s $s }}{{ end }}', { items: items(64) })),
    /execution steps|output|Invalid string length/,
  );
});

test('lookups stay one step: len and index of a 40,000-item list in a loop over it render', () => {
  const t = '{{ $all := .items }}{{ range $i, $x := .items }}{{ if eq $i (sub (len $all) 1) }}{{ index $all $i }}{{ end }}{{ end }}';
  assert.equal(render(t, { items: items(40_000) }), 'name-39999');
  assert.equal(render('{{ join "," .items | len }}', { items: items(40_000) }).length > 0, true);
});
