/**
 * @module template/funcs/strings.test
 * Sprig string functions through the template engine. Every expected value was produced by Go
 * 1.19 text/template + Sprig 3.2.3 (gotemplate-ref) for the same template. Where Go cuts a
 * UTF-8 character in half (trunc/substr count bytes), Go writes the invalid byte and we write
 * U+FFFD: the only deliberate difference.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sprigFuncs } from './index.js';
import { runCases } from '../../../test/support/template-funcs.js';
import { camelCase, kebabCase, snakeCase } from './case-convert.js';
import { goSliceString, goRepeat } from './strings.js';

describe('Sprig string functions match Go + Sprig', () => {
  runCases(sprigFuncs(), [
    {
      t: '{{ trunc 2 "héllo" }}|{{ trunc 5 "hello world" }}|{{ trunc -5 "hello world" }}|{{ trunc -20 "abc" }}|{{ trunc 0 "abc" }}',
      want: 'h\ufffd|hello|world|abc|',
    },
    {
      t: '{{ substr 1 3 "hello" }}|{{ substr -1 2 "héllo" }}|{{ substr 2 99 "hello" }}|{{ substr 2 -1 "hello" }}|{{ substr 3 3 "abc" }}',
      want: 'el|h\ufffd|llo|llo|',
    },
    { t: '{{ substr 5 2 "abc" }}', err: 'error calling substr: runtime error: slice bounds out of range [5:2]' },
    { t: '{{ substr -1 5 "abc" }}', err: 'error calling substr: runtime error: slice bounds out of range [:5] with length 3' },
    { t: '{{ substr -1 -2 "abc" }}', err: 'error calling substr: runtime error: slice bounds out of range [:-2]' },
    { t: '{{ substr 4 -1 "abc" }}', err: 'error calling substr: runtime error: slice bounds out of range [4:3]' },
    { t: '{{ trunc .n "abc" }}', data: '{"n":1}', err: 'wrong type for value; expected int; got float64' },
    {
      t: '{{ trim "  a b \\t\\n" }}|{{ trim "\\u00a0x\\u2003" }}|{{ trim "\\ufeffx" }}|{{ trimAll "$-" "$-a-$" }}|{{ trimAll "é" "ééxé" }}|{{ trimAll "" "ab" }}|{{ trimall "x" "xax" }}',
      want: 'a b|x|﻿x|a|x|ab|a',
    },
    { t: '{{ trimPrefix "a" "aab" }}|{{ trimSuffix "b" "abb" }}|{{ trimSuffix "" "ab" }}|{{ "-x-" | trimSuffix "-" }}', want: 'ab|ab|ab|-x' },
    {
      t: '{{ upper "straße ǆ ﬁ" }}|{{ lower "İSTANBUL ΣΑΣ ẞ" }}|{{ title "hello wORLD ǆx a_b a-b x\'y éa" }}|{{ untitle "Hello World ÉA" }}',
      want: "STRAßE Ǆ ﬁ|istanbul σασ ß|Hello WORLD ǅx A_b A-B X'Y Éa|hello world éA",
    },
    { t: '{{ repeat 3 "ab" }}|{{ repeat 0 "x" }}|{{ "ab" | repeat 2 }}', want: 'ababab||abab' },
    { t: '{{ repeat -1 "x" }}', err: 'error calling repeat: strings: negative Repeat count' },
    {
      t: '{{ nospace " a b\\tc\\n" }}|{{ nospace "é à" }}|{{ nospace "éà" }}|{{ initials "hello big world" }}|{{ initials "éa b" }}',
      want: 'abc|Ã©Ã|Ã©Ã|hbw|Ãb',
    },
    {
      t: '{{ abbrev 5 "hello world" }}|{{ abbrev 3 "hello" }}|{{ abbrev 20 "short" }}|{{ abbrevboth 5 10 "1234 5678 9123 4567" }}|{{ abbrevboth 0 6 "abcdefghijk" }}|{{ abbrevboth 10 8 "abcdefghijklmno" }}',
      want: 'he...|hello|short|...5678...|abc...|...klmno',
    },
    {
      t: '{{ contains "ll" "hello" }}|{{ contains "x" "hello" }}|{{ hasPrefix "he" "hello" }}|{{ hasSuffix "lo" "hello" }}|{{ "foobar" | contains "foo" }}',
      want: 'true|false|true|true|true',
    },
    {
      t: '{{ quote "a\\"b" 1 nil 2.5 (list 1) }}|{{ quote "é\\t\\u0007" }}|{{ quote }}|{{ squote "a\'b" 1 nil }}|{{ cat "a" 1 nil (list 1 2) "b" }}|{{ cat }}',
      want: '"a\\"b" "1" "2.5" "[1]"|"é\\t\\a"||\'a\'b\' \'1\'|a 1 [1 2] b|',
    },
    { t: '{{ indent 2 "a\\nb" }}|{{ nindent 2 "a\\nb" }}|{{ indent 0 "x" }}', want: '  a\n  b|\n  a\n  b|x' },
    { t: '{{ indent -1 "a" }}', err: 'error calling indent: strings: negative Repeat count' },
    {
      t: '{{ replace "a" "b" "aaa" }}|{{ replace "aa" "b" "aaa" }}|{{ replace "" "-" "ab😀" }}|{{ plural "one" "many" 1 }}|{{ plural "one" "many" 0 }}',
      want: 'bbb|ba|-a-b-😀-|one|many',
    },
    {
      t: '{{ wrap 5 "hello world foo bar" }}|{{ wrap 3 "aaaaaa bb cccc dd" }}|{{ wrapWith 5 "<br>" "helloworldfoo bar" }}|{{ wrap 0 "a b" }}|{{ wrap 4 "héllo wörld" }}',
      want: 'hello\nworld\nfoo\nbar|aaaaaa\nbb\ncccc\ndd|hello<br>world<br>foo<br>bar|a\nb|héllo\nwörld',
    },
    {
      t: '{{ snakecase "FirstName" }}|{{ snakecase "HTTPServer" }}|{{ snakecase "HTTP20xOK" }}|{{ snakecase "Bld4Floor3rd" }}|{{ kebabcase "GO PATH" }}|{{ kebabcase "a__b" }}|{{ camelcase "http_server" }}|{{ camelcase "_complex__case_" }}|{{ camelcase "_" }}|{{ camelcase "some words" }}',
      want: 'first_name|http_server|http_20x_ok|bld4_floor_3rd|go-path|a--b|HttpServer|_Complex_Case_|__|SomeWords',
    },
    { t: '{{ upper nil }}', err: 'cannot assign nil to string' },
    { t: '{{ repeat 2 nil }}', err: 'cannot assign nil to string' },
  ]);
});

describe('xstrings case conversion (values from Go)', () => {
  const cases: [string, string, string, string][] = [
    // input, snakecase, kebabcase, camelcase
    ['FirstName', 'first_name', 'first-name', 'Firstname'],
    ['NoHTTPS', 'no_https', 'no-https', 'Nohttps'],
    ['GO_PATH', 'go_path', 'go-path', 'GoPath'],
    ['http2xx', 'http_2xx', 'http-2xx', 'Http2xx'],
    ['Duration2m3s', 'duration_2m3s', 'duration-2m3s', 'Duration2m3s'],
    ['aB.C', 'a_b.c', 'a-b.c', 'Ab.c'],
    ['A1B', 'a1_b', 'a1-b', 'A1b'],
    ['x 1 y', 'x_1_y', 'x-1-y', 'X1Y'],
    ['Ab日本Cd', 'ab_日本_cd', 'ab-日本-cd', 'Ab日本cd'],
    ['αΒγ', 'α_βγ', 'α-βγ', 'Αβγ'],
    ['A  B', 'a__b', 'a--b', 'A B'],
    ['a!!b', 'a!!b', 'a!!b', 'A!!b'],
    ['aÉ', 'a_é', 'a-é', 'Aé'],
    ['', '', '', ''],
  ];
  for (const [input, snake, kebab, camel] of cases) {
    test(JSON.stringify(input), () => {
      assert.equal(snakeCase(input), snake);
      assert.equal(kebabCase(input), kebab);
      assert.equal(camelCase(input), camel);
    });
  }
  // Punctuation absorbs following connectors in xstrings ("._" stays "._"), so none is generated.
  test('every connector (-, _ or white space) becomes the target connector (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'B', '1', '-', '_', ' ', '\t', 'é', 'Σ', '日') }), (s) => {
        assert.doesNotMatch(kebabCase(s), /[_\s]/u);
        assert.doesNotMatch(snakeCase(s), /[-\s]/u);
      }),
    );
  });
});

describe('byte-indexed helpers', () => {
  test('goSliceString reports Go runtime panics', () => {
    assert.equal(goSliceString('héllo', 0n, 1n), 'h');
    assert.throws(() => goSliceString('abc', 0n, 4n), /slice bounds out of range \[:4\] with length 3/);
    assert.throws(() => goSliceString('abc', 2n, 1n), /slice bounds out of range \[2:1\]/);
  });
  test('repeat refuses results beyond the size limit instead of exhausting memory', () => {
    assert.throws(() => goRepeat('x', 1n << 40n), /limit is/);
  });
});
