/**
 * Property tests for the engine as a whole: whatever text and data users give it, parsing and
 * rendering end, and the only thing that escapes is a TemplateError of the right phase.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { templateData, templateText } from '../../test/support/template-arbitraries.js';
import { TemplateError } from '../errors.js';
import { parseTemplate, type Template } from './index.js';
import { goFunc } from './value.js';

/** Fragments that make up templates: delimiters, keywords, operands, and broken pieces. */
const FRAGMENTS = [
  '{{',
  '}}',
  '{{- ',
  ' -}}',
  '{{-',
  '-}}',
  ' ',
  '\n',
  '\t',
  'x',
  'é',
  '😀',
  '.',
  '.a',
  '.b.c',
  '.l',
  '.m',
  '$',
  '$x',
  '$y',
  '$x := ',
  '$x = ',
  '$i, $v := ',
  ':=',
  '=',
  '|',
  '(',
  ')',
  ',',
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
  '"',
  "'",
  '`',
  '/*',
  '*/',
  '{{/* c */}}',
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
  'urlquery ',
  'call ',
  'f ',
  '{{if .a}}',
  '{{else}}',
  '{{end}}',
  '{{range .l}}',
  '{{range $i, $v := .m}}',
  '{{with .b}}',
  '{{define "d"}}',
  '{{template "d" .}}',
  '{{.}}',
  '{{$}}',
];

const tokenText = templateText(FRAGMENTS);

const jsonData = templateData;

const funcs = {
  f: goFunc(['string'], (s: string, ...rest: unknown[]) => `${s}${rest.length}`, 'interface {}'),
};

function parseOutcome(text: string): Template | undefined {
  try {
    return parseTemplate('t', text, { funcs });
  } catch (err) {
    assert.ok(err instanceof TemplateError, `parse threw ${String(err)} for ${JSON.stringify(text)}`);
    assert.equal(err.code, 'SI_TEMPLATE_PARSE');
    return undefined;
  }
}

function renderOutcome(t: Template, data: unknown, text: string): void {
  try {
    const out = t.execute(data, { maxSteps: 20_000, maxDepth: 50, maxOutput: 100_000 });
    assert.equal(typeof out, 'string');
  } catch (err) {
    assert.ok(err instanceof TemplateError, `execute threw ${err instanceof Error ? err.stack : String(err)} for ${JSON.stringify(text)}`);
    assert.equal(err.code, 'SI_TEMPLATE_EXEC');
  }
}

test('any string parses or fails with a parse TemplateError', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (text) => {
      parseOutcome(text);
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(
      fc.string({ maxLength: 60 }).map((s) => `{{${s}}}`),
      (text) => {
        parseOutcome(text);
      },
    ),
    { numRuns: 2000 },
  );
});

test('strings of template tokens parse or fail with a parse TemplateError', () => {
  fc.assert(
    fc.property(tokenText, (text) => {
      parseOutcome(text);
    }),
    { numRuns: 3000 },
  );
});

test('parsed random templates render any JSON data or fail with an exec TemplateError, and terminate', () => {
  let rendered = 0;
  fc.assert(
    fc.property(tokenText, jsonData, (text, data) => {
      const t = parseOutcome(text);
      if (t === undefined) return;
      rendered++;
      renderOutcome(t, data, text);
      renderOutcome(t, null, text);
    }),
    { numRuns: 4000 },
  );
  assert.ok(rendered > 200, `only ${rendered} random templates parsed; the generator no longer exercises execution`);
});
