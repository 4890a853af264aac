/**
 * @module template/funcs/regex.test
 * Sprig regex functions with Go RE2 semantics: syntax, errors, FindAll/ReplaceAll/Split loops, Expand. Expected values are what Go 1.19 text/template + Sprig 3.2.3
 * (the gotemplate-ref oracle) printed for the same template and data, except the named groups Go 1.22 added (go-regexp.test.ts
 * compares the syntax with the Go that builds Istio's proxy).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sprigFuncs } from './index.js';
import { runCases } from '../../../test/support/template-funcs.js';
import { compileGo, findAll } from './regex.js';

describe('regex functions match Go + Sprig', () => {
  runCases(sprigFuncs(), [
    { t: '{{ regexMatch "^a.c$" "abc" }}|{{ regexMatch "(" "x" }}|{{ regexMatch "(?=a)" "a" }}|{{ regexMatch "\\\\d" "x1" }}', want: 'true|false|false|true' },
    {
      t: '{{ regexFind "[0-9]+" "ab123cd45" }}|{{ regexFind "z" "abc" }}|{{ regexFindAll "[0-9]" "a1b2c3" -1 }}|{{ regexFindAll "[0-9]" "a1b2c3" 2 }}|{{ regexFindAll "[0-9]" "a1b2c3" 0 }}|{{ typeOf (regexFindAll "x" "y" -1) }}',
      want: '123||[1 2 3]|[1 2]|[]|[]string',
    },
    {
      t: '{{ regexFindAll "a*" "baaab" -1 }}|{{ regexFindAll "" "abc" -1 }}|{{ regexFindAll "x*" "axxbx" -1 }}|{{ regexFindAll "a?" "aab" -1 }}|{{ regexFindAll "(?:)" "😀é" -1 }}|{{ regexFindAll "\\\\b" "ab cd" -1 }}',
      want: '[ aaa ]|[   ]|[ xx x]|[a a ]|[  ]|[   ]',
    },
    {
      t: '{{ regexReplaceAll "a(x*)b" "-ab-axxb-" "${1}W" }}|{{ regexReplaceAll "a(x*)b" "-ab-axxb-" "$1W" }}|{{ regexReplaceAll "(?P<n>x+)" "axxb" "[${n}]" }}|{{ regexReplaceAll "x" "xx" "$$" }}|{{ regexReplaceAll "(a)" "a" "$2|$-|${1" }}|{{ regexReplaceAll "(?P<1x>a)" "a" "[$1x|${1x}|$1]" }}|{{ regexReplaceAll "(a)(b)?" "a ab" "[$2]" }}',
      want: '-W-xxW-|---|a[xx]b|$$||$-|${1|[a|a|a]|[] [b]',
    },
    {
      t: '{{ regexReplaceAll "a*" "baaac" "-" }}|{{ regexReplaceAll "" "abc" "-" }}|{{ regexReplaceAll "x*" "axxbx" "-" }}|{{ regexReplaceAll "" "😀é" "-" }}|{{ regexReplaceAll "\\\\b" "ab cd" "|" }}',
      want: '-b-c-|-a-b-c-|-a-b-|-😀-é-||ab| |cd|',
    },
    { t: '{{ regexReplaceAllLiteral "a(x*)b" "-ab-axxb-" "${1}" }}|{{ regexReplaceAllLiteral "" "ab" "$" }}', want: '-${1}-${1}-|$a$b$' },
    {
      t: '{{ regexSplit "z+" "pizza" -1 }}|{{ regexSplit "z+" "pizza" 1 }}|{{ regexSplit "" "abc" -1 }}|{{ regexSplit "a" "" -1 }}|{{ regexSplit "" "" -1 }}|{{ regexSplit "z" "pizza" 0 }}|{{ regexSplit "a*" "abaabaccadaaae" 5 }}|{{ regexSplit "x*" "axxbx" -1 }}',
      want: '[pi a]|[pizza]|[a b c]|[]|[]|[]|[ b b c cadaaae]|[a b ]',
    },
    {
      t: '{{ regexFind "(?i)HELLO" "say hello" }}|{{ regexFind "a(?i)b" "aB" }}|{{ regexFind "a(?i:b)c" "aBc aBC" }}|{{ regexFind "(?i)(?-i)A" "a" }}|{{ regexFind "(?i)σ" "Σς" }}|{{ regexFindAll "(?i)k" "kK\\u212a" -1 }}|{{ regexFindAll "(?i:k)x" "kx Kx \\u212ax" -1 }}|{{ regexFindAll "(?i)\\\\w+" "ſk\\u212a" -1 }}|{{ regexFindAll "x(?i)[a-c]" "xA xb" -1 }}|{{ regexFindAll "(?i)\\\\bk\\\\b" "\\u212ak k" -1 }}',
      want: 'hello|aB|aBc||Σ|[k K K]|[kx Kx Kx]|[ſkK]|[xA xb]|[k k]',
    },
    {
      t: '{{ regexFind "(?s)a.b" "a\\nb" }}|{{ regexFind "a.b" "a\\nb" }}|{{ regexFindAll "." "a\\rb" -1 | len }}|{{ regexFindAll "(?m)^x" "x\\nx" -1 }}|{{ regexFindAll "^x" "x\\nx" -1 }}|{{ regexFindAll "(?m)$" "a\\r\\nb" -1 | len }}|{{ regexFind "\\\\Aab\\\\z" "ab" }}|{{ regexFind "x*?" "xx" }}|{{ regexFind "(?U)x*" "xx" }}|{{ regexFind "(?U)x*?" "xx" }}|{{ regexFind "^*a" "a" }}',
      want: 'a\nb||3|[x x]|[x]|2|ab|||xx|a',
    },
    {
      t: '{{ regexFind "[[:alpha:]]+" "12ab34" }}|{{ regexFind "[[:^digit:]]+" "12ab34" }}|{{ regexFind "(?i)[[:upper:]]+" "abC" }}|{{ regexFind "\\\\pL+" "12héllo" }}|{{ regexFind "\\\\p{Greek}+" "abcαβγ" }}|{{ regexFind "\\\\PL+" "ab12" }}|{{ regexFindAll "\\\\p{^Greek}" "aα" -1 }}|{{ regexFindAll "\\\\pC" "a\\u0001b" -1 | len }}|{{ regexFind "[\\\\P{Any}a]" "ba" }}',
      want: 'ab|ab|abC|héllo|αβγ|12|[a]|1|a',
    },
    {
      t: '{{ regexFind "\\\\Q.*\\\\E" "a.*b" }}|{{ regexFind "\\\\d+\\\\s\\\\w" "x 12 a" }}|{{ regexFindAll "\\\\s+" "a\\u000bb c\\u00a0d" -1 | len }}|{{ regexFind "[^a]+" "a\\nb" }}|{{ regexFind "\\\\x41\\\\x{42}\\\\101" "ABA" }}|{{ regexFind "a{2,3}" "aaaa" }}|{{ regexFind "a{,2}" "a{,2}" }}|{{ regexFind "[]a]" "]" }}|{{ regexFind "[a-]" "-" }}|{{ regexQuoteMeta "a.b*c[d]" }}',
      want: '.*|12 a|1|\nb|ABA|aaa|a{,2}|]|-|a\\.b\\*c\\[d\\]',
    },
    { t: '{{ regexFind "a(" "a" }}', err: 'error calling regexFind: regexp: Compile(`a(`): error parsing regexp: missing closing ): `a(`' },
    {
      t: '{{ regexFind "(?=a)" "a" }}',
      err: 'error calling regexFind: regexp: Compile(`(?=a)`): error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
    },
    // Go >= 1.22 (Istio's proxy is built with 1.26) takes (?<name>) and repeated names; ${n} is the first of them that took part.
    {
      t: '{{ regexFind "(?<n>a)" "a" }}|{{ regexReplaceAll "(?P<n>a)|(?P<n>b)" "abc" "[${n}]" }}|{{ regexReplaceAll "(?<n>a)(?P<n>b)?" "ab a" "<$n>" }}',
      want: 'a|[a][b]c|<a> <a>',
    },
    {
      t: '{{ regexFind "(?P<n>a)(?P<n>" "a" }}',
      err: 'error calling regexFind: regexp: Compile(`(?P<n>a)(?P<n>`): error parsing regexp: missing closing ): `(?P<n>a)(?P<n>`',
    },
    { t: '{{ regexFind "a\\\\1" "a" }}', err: 'error calling regexFind: regexp: Compile(`a\\1`): error parsing regexp: invalid escape sequence: `\\1`' },
    { t: '{{ regexFind "a**" "a" }}', err: 'error calling regexFind: regexp: Compile(`a**`): error parsing regexp: invalid nested repetition operator: `**`' },
    {
      t: '{{ regexFind "a{2}{3}" "a" }}',
      err: 'error calling regexFind: regexp: Compile(`a{2}{3}`): error parsing regexp: invalid nested repetition operator: `{2}{3}`',
    },
    { t: '{{ regexFind "x{1001}" "a" }}', err: 'error calling regexFind: regexp: Compile(`x{1001}`): error parsing regexp: invalid repeat count: `{1001}`' },
    {
      t: '{{ regexFind "(a{500}){3}" "a" }}',
      err: 'error calling regexFind: regexp: Compile(`(a{500}){3}`): error parsing regexp: invalid repeat count: `{3}`',
    },
    {
      t: '{{ regexFind "[[:foo:]]" "a" }}',
      err: 'error calling regexFind: regexp: Compile(`[[:foo:]]`): error parsing regexp: invalid character class range: `[:foo:]`',
    },
    { t: '{{ regexFind "\\\\pX" "a" }}', err: 'error calling regexFind: regexp: Compile(`\\pX`): error parsing regexp: invalid character class range: `\\pX`' },
    { t: '{{ regexFind "[z-a]" "a" }}', err: 'error calling regexFind: regexp: Compile(`[z-a]`): error parsing regexp: invalid character class range: `z-a`' },
    { t: '{{ regexFind "a)" "a" }}', err: 'error calling regexFind: regexp: Compile(`a)`): error parsing regexp: unexpected ): `a)`' },
    {
      t: '{{ regexFind "\\\\" "a" }}',
      err: 'error calling regexFind: regexp: Compile(`\\`): error parsing regexp: trailing backslash at end of expression: ``',
    },
    { t: '{{ regexFind "[a" "a" }}', err: 'error calling regexFind: regexp: Compile(`[a`): error parsing regexp: missing closing ]: `[a`' },
    { t: '{{ regexFind "*" "a" }}', err: 'error calling regexFind: regexp: Compile(`*`): error parsing regexp: missing argument to repetition operator: `*`' },
    { t: '{{ regexFind "(?P<>a)" "a" }}', err: 'error calling regexFind: regexp: Compile(`(?P<>a)`): error parsing regexp: invalid named capture: `(?P<>`' },
    { t: '{{ regexFind "(?i" "a" }}', err: 'error calling regexFind: regexp: Compile(`(?i`): error parsing regexp: invalid or unsupported Perl syntax: `(?i`' },
    { t: '{{ regexFind "\\\\C" "a" }}', err: 'error calling regexFind: regexp: Compile(`\\C`): error parsing regexp: invalid escape sequence: `\\C`' },
    { t: '{{ regexFind "[\\\\b]" "a" }}', err: 'error calling regexFind: regexp: Compile(`[\\b]`): error parsing regexp: invalid escape sequence: `\\b`' },
    { t: '{{ regexFind "\\t(" "a" }}', err: 'error calling regexFind: regexp: Compile(`\t(`): error parsing regexp: missing closing ): `\t(`' },
    { t: '{{ mustRegexFind "a(" "a" }}', err: 'error calling mustRegexFind: error parsing regexp: missing closing ): `a(`' },
    { t: '{{ mustRegexMatch "(" "a" }}', err: 'error calling mustRegexMatch: error parsing regexp: missing closing ): `(`' },
    { t: '{{ mustRegexSplit "(" "a" -1 }}', err: 'error calling mustRegexSplit: error parsing regexp: missing closing ): `(`' },
  ]);
});

describe('compiled patterns', () => {
  test('a pattern is compiled once and cached', () => {
    assert.equal(compileGo('x+y'), compileGo('x+y'));
  });
  test('FindAll returns matches in order without overlap (property)', () => {
    const g = compileGo('a*|b');
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', 'c', '😀') }), (s) => {
        let end = 0;
        for (const m of findAll(g, s, -1)) {
          assert.ok(m.index >= end);
          end = m.index + m[0].length;
        }
      }),
    );
  });
});
