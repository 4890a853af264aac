/** The public API: parse once, render many; template sets; options; nothing but TemplateError escapes. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TemplateError } from '../errors.js';
import { parseTemplate, parseTemplateSet, formatValue, sprintf, isTrue } from './index.js';

test('a template knows its set: definedTemplates, has, executeTemplate, lookup', () => {
  const t = parseTemplate('main', '{{define "b"}}B{{.}}{{end}}{{define "a"}}A{{template "b" .}}{{end}}main:{{template "a" 1}}');
  assert.equal(t.name, 'main');
  assert.deepEqual(t.definedTemplates(), ['a', 'b', 'main']);
  assert.ok(t.has('a') && !t.has('c'));
  assert.equal(t.execute(null), 'main:AB1');
  assert.equal(t.executeTemplate('b', 2), 'B2');
  assert.equal(t.lookup('a')?.execute(3), 'AB3');
  assert.equal(t.lookup('zz'), undefined);
  assert.throws(
    () => t.executeTemplate('zz', {}),
    (err: unknown) =>
      err instanceof TemplateError && err.code === 'SI_TEMPLATE_EXEC' && err.message === 'template: no template "zz" associated with template "main"',
  );
});

test("callsAny: a function called anywhere in the set's trees, never a name in a comment or text", () => {
  const names = new Set(['set', 'merge']);
  assert.equal(parseTemplate('t', '{{/* must be set by user */}}set merge {{ "set" }} {{ .set }} {{ $set := 1 }}').callsAny(names), false);
  for (const text of [
    '{{ set .Values "a" 1 }}',
    '{{ $_ := 1 | merge (dict) }}',
    '{{ if true }}{{ else }}{{ with (set (dict) "a" 1) }}{{ end }}{{ end }}',
    '{{ range $i, $x := list (merge (dict) (dict)) }}{{ end }}',
    '{{ define "d" }}{{ (set (dict) "a" 1).a }}{{ end }}x',
    '{{ template "t2" (set (dict) "a" 1) }}{{ define "t2" }}{{ end }}',
  ]) {
    assert.equal(
      parseTemplate('t', text, {
        funcs: {
          set: { params: [], variadic: 'interface {}', call: () => ({}) },
          merge: { params: [], variadic: 'interface {}', call: () => ({}) },
          dict: { params: [], call: () => ({}) },
          list: { params: [], variadic: 'interface {}', call: () => [] },
        },
      }).callsAny(names),
      true,
      text,
    );
  }
  const set = parseTemplateSet(
    [
      ['a', 'plain'],
      ['b', '{{ printf "%v" (set) }}'],
    ],
    { funcs: { set: { params: [], call: () => 1 } } },
  );
  assert.equal(set.callsAny(names), true);
  assert.equal(set.callsAny(new Set(['printf'])), true);
  assert.equal(set.callsAny(new Set(['unset'])), false);
});

test('parseTemplateSet: texts share defines; a later non-empty definition replaces an earlier one', () => {
  const set = parseTemplateSet([
    ['helpers', '{{define "greet"}}hello {{.}}{{end}}{{define "x"}}old{{end}}'],
    ['override', '{{define "x"}}new{{end}}{{define "greet"}}   {{end}}'],
    ['main', '{{template "greet" "you"}}/{{template "x"}}'],
  ]);
  assert.deepEqual(set.definedTemplates(), ['greet', 'helpers', 'main', 'override', 'x']);
  assert.equal(set.executeTemplate('main', {}), 'hello you/new');
  assert.throws(
    () =>
      parseTemplateSet([
        ['ok', 'x'],
        ['bad', '\n{{if}}'],
      ]),
    (err: unknown) => err instanceof TemplateError && err.code === 'SI_TEMPLATE_PARSE' && err.message === 'template: bad:2: missing value for if',
  );
});

test('errors inside a define name the text they were parsed from and the executing template', () => {
  const set = parseTemplateSet([
    ['lib', '{{define "f"}}\n{{.a.b}}{{end}}'],
    ['main', '{{template "f" .}}'],
  ]);
  assert.throws(
    () => set.executeTemplate('main', { a: 1 }),
    (err: unknown) =>
      err instanceof TemplateError && err.message === 'template: lib:2:4: executing "f" at <.a.b>: can\'t evaluate field b in type interface {}',
  );
});

test('custom delimiters', () => {
  const t = parseTemplate('t', '{{.x}} [[- .x -]] [[/* c */]][[if .x]]yes[[end]]', { leftDelim: '[[', rightDelim: ']]' });
  assert.equal(t.execute({ x: 1 }), '{{.x}}1yes');
});

test('options are validated', () => {
  const t = parseTemplate('t', 'x');
  assert.throws(() => t.execute({}, { missingKey: 'nope' as never }), TemplateError);
  assert.throws(() => t.execute({}, { maxDepth: -1 }), TemplateError);
  assert.throws(() => parseTemplate('t', 42 as never), TemplateError);
});

test('parse errors are TemplateError with SI_TEMPLATE_PARSE, even for absurd nesting', () => {
  const deep = '{{' + '('.repeat(50_000) + '1' + ')'.repeat(50_000) + '}}';
  assert.throws(
    () => parseTemplate('t', deep),
    (err: unknown) => err instanceof TemplateError && err.code === 'SI_TEMPLATE_PARSE',
  );
  assert.equal(parseTemplate('t', '{{' + '('.repeat(100) + '1' + ')'.repeat(100) + '}}').execute({}), '1');
});

test('helpers re-exported for the function libraries', () => {
  assert.equal(formatValue({ b: [1, 2.5], a: null }), 'map[a:<nil> b:[1 2.5]]');
  assert.equal(sprintf('%05.1f|%q', [3.14159, 'x']), '003.1|"x"');
  assert.equal(isTrue([]), false);
});

test('engines: compiled by default, the interpreter on request, the same answers; an unknown engine is a parse error', () => {
  const text = '{{define "x"}}[{{.}}]{{end}}{{range $i, $v := .}}{{template "x" $v}}{{end}}';
  const compiled = parseTemplate('t', text);
  const reference = parseTemplate('t', text, { engine: 'interpreter' });
  assert.equal(compiled.engine, 'compiled');
  assert.equal(reference.engine, 'interpreter');
  assert.equal(compiled.lookup('x')?.engine, 'compiled');
  assert.equal(compiled.execute([1, 'a']), '[1][a]');
  assert.equal(reference.execute([1, 'a']), '[1][a]');
  assert.equal(
    parseTemplateSet([
      ['a', '{{template "b" .}}'],
      ['b', '<{{.}}>'],
    ]).engine,
    'compiled',
  );
  assert.equal(
    parseTemplateSet([
      ['a', '{{template "b" .}}'],
      ['b', '<{{.}}>'],
    ]).executeTemplate('a', 7),
    '<7>',
  );
  assert.throws(
    () => parseTemplate('t', '{{', { engine: 'jit' as never }),
    (err: unknown) =>
      err instanceof TemplateError && err.code === 'SI_TEMPLATE_PARSE' && err.message === 'template: unknown engine "jit": use compiled or interpreter',
  );
});

test('a template too deeply nested for the compiler is rendered by the interpreter, with the same result', () => {
  // Parenthesised expressions nested about as deep as the parser accepts (it stops near 1,800):
  // compiling them recursively may exhaust the stack; whichever engine renders, the output is the same.
  let expr = '.';
  for (let i = 0; i < 1000; i++) expr = `(print ${expr})`;
  const t = parseTemplate('t', `{{${expr}}}`);
  assert.ok(t.engine === 'compiled' || t.engine === 'interpreter');
  assert.equal(t.execute('x'), 'x');
});
