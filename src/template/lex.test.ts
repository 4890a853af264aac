/** The lexer's item stream: item kinds, values, positions and lines, as Go's lexer emits them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ItemType, itemString, lex } from './lex.js';

const kinds = (text: string, breakOK = true): string[] => lex(text, '', '', breakOK, breakOK).map((i) => `${ItemType[i.typ]}:${i.val}`);

test('text, actions and spaces', () => {
  assert.deepEqual(kinds('a{{.x | f $y}}b'), [
    'Text:a',
    'LeftDelim:{{',
    'Field:.x',
    'Space: ',
    'Pipe:|',
    'Space: ',
    'Identifier:f',
    'Space: ',
    'Variable:$y',
    'RightDelim:}}',
    'Text:b',
    'EOF:',
  ]);
});

test('trim markers remove the adjacent spaces, including newlines', () => {
  assert.deepEqual(kinds('a \n{{- 3 -}}\n\t b'), ['Text:a', 'LeftDelim:{{', 'Number:3', 'RightDelim:}}', 'Text:b', 'EOF:']);
  assert.deepEqual(kinds('{{-3}}'), ['LeftDelim:{{', 'Number:-3', 'RightDelim:}}', 'EOF:'], '"{{-3" is the number -3');
});

test('comments vanish; keywords and constants get their own kinds', () => {
  assert.deepEqual(kinds('{{/* x */}}{{if true}}{{else}}{{end}}'), [
    'LeftDelim:{{',
    'If:if',
    'Space: ',
    'Bool:true',
    'RightDelim:}}',
    'LeftDelim:{{',
    'Else:else',
    'RightDelim:}}',
    'LeftDelim:{{',
    'End:end',
    'RightDelim:}}',
    'EOF:',
  ]);
  assert.deepEqual(
    kinds('{{1.5 \'a\' "s" `r` nil . $}}').filter((k) => !k.startsWith('Space')),
    ['LeftDelim:{{', 'Number:1.5', "CharConstant:'a'", 'String:"s"', 'RawString:`r`', 'Nil:nil', 'Dot:.', 'Variable:$', 'RightDelim:}}', 'EOF:'],
  );
});

test('break and continue are plain identifiers when a function has that name', () => {
  assert.deepEqual(kinds('{{break}}', true)[1], 'Break:break');
  assert.deepEqual(kinds('{{break}}', false)[1], 'Identifier:break');
});

test('items carry their line; an error item ends the stream', () => {
  const items = lex('a\nb{{.x\n}}\n{{"open\n', '', '', true, true);
  assert.deepEqual(
    items.map((i) => i.line),
    [1, 2, 2, 2, 3, 3, 4, 4],
  );
  const last = items[items.length - 1];
  assert.equal(last.typ, ItemType.Error);
  assert.equal(last.val, 'unterminated quoted string');
});

test('custom delimiters', () => {
  assert.deepEqual(
    lex('{{x}}[[- .a -]] y', '[[', ']]', true, true).map((i) => i.val),
    ['{{x}}', '[[', '.a', ']]', 'y', ''],
  );
});

test('item rendering for error messages', () => {
  const [, id, , str] = lex('{{x "a very long string"}}', '', '', true, true);
  assert.equal(itemString(id), '"x"');
  assert.equal(itemString(str), '"\\"a very lo"...');
});
