/**
 * Go built-in functions: comparisons, len, index, escapers, call, print family.
 * Each row is [template, data JSON, expected]; expected is the output, or `parse: MESSAGE` /
 * `exec: MESSAGE`. Every expectation was produced by Go 1.19 text/template (gotemplate-ref);
 * where our behaviour deliberately differs from Go 1.19 the test says so by name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderOutcome } from '../../test/support/template-outcome.js';
const CASES: ReadonlyArray<readonly [string, string, string]> = [
  ['{{eq .m .m}}', '{"m":{}}', 'exec: template: t:1:2: executing "t" at <eq .m .m>: error calling eq: non-comparable type map[]: map[string]interface {}'],
  ['{{eq .l .l}}', '{"l":[]}', 'exec: template: t:1:2: executing "t" at <eq .l .l>: error calling eq: non-comparable type []: []interface {}'],
  ['{{eq nil nil}}', '{}', 'true'],
  ['{{eq .x nil}}', '{}', 'true'],
  ['{{eq .a nil}}', '{"a":null}', 'true'],
  ['{{eq .a .x}}', '{"a":null}', 'true'],
  ['{{eq 1 .f}}', '{"f":1}', 'exec: template: t:1:2: executing "t" at <eq 1 .f>: error calling eq: incompatible types for comparison'],
  ['{{eq "a" 1}}', '{}', 'exec: template: t:1:2: executing "t" at <eq "a" 1>: error calling eq: incompatible types for comparison'],
  ['{{lt 1 2.0}}', '{}', 'exec: template: t:1:2: executing "t" at <lt 1 2.0>: error calling lt: incompatible types for comparison'],
  ['{{eq .b true}} {{ne 1 2}} {{eq 1 2 3 1}} {{eq "a" "b" "a"}}', '{"b":true}', 'true true true true'],
  ['{{lt true false}}', '{}', 'exec: template: t:1:2: executing "t" at <lt true false>: error calling lt: invalid type for comparison'],
  [
    '{{eq .f 1.0}} {{lt .f 2.0}} {{le .f 1.0}} {{gt "b" "a"}} {{ge 1 1}} {{lt "a" "ab"}} {{gt 2 1}} {{le 2 1}}',
    '{"f":1}',
    'true true true true true true true false',
  ],
  ['{{eq 1}}', '{}', 'exec: template: t:1:2: executing "t" at <eq 1>: error calling eq: missing argument for comparison'],
  ['{{eq .m 1}}', '{"m":{}}', 'exec: template: t:1:2: executing "t" at <eq .m 1>: error calling eq: incompatible types for comparison'],
  ['{{eq 1 .m}}', '{"m":{}}', 'exec: template: t:1:2: executing "t" at <eq 1 .m>: error calling eq: incompatible types for comparison'],
  ['{{lt .x 1}}', '{}', 'exec: template: t:1:2: executing "t" at <lt .x 1>: error calling lt: invalid type for comparison'],
  ['{{lt .m .m}}', '{"m":{}}', 'exec: template: t:1:2: executing "t" at <lt .m .m>: error calling lt: invalid type for comparison'],
  ['{{eq .x .x}}', '{}', 'true'],
  ['{{eq .a 1}}', '{"a":null}', 'false'],
  ['{{eq 1 .a}}', '{"a":null}', 'false'],
  ['{{eq .a "x" .a}}', '{"a":null}', 'true'],
  [
    '{{eq .m .l}}',
    '{"m":{},"l":[]}',
    'exec: template: t:1:2: executing "t" at <eq .m .l>: error calling eq: non-comparable types map[]: map[string]interface {}, []interface {}: []',
  ],
  [
    '{{eq .l .m}}',
    '{"m":{"a":1},"l":[1]}',
    'exec: template: t:1:2: executing "t" at <eq .l .m>: error calling eq: non-comparable types [%!s(float64=1)]: []interface {}, map[string]interface {}: map[a:1]',
  ],
  ['{{eq 1 2 "a"}}', '{}', 'exec: template: t:1:2: executing "t" at <eq 1 2 "a">: error calling eq: incompatible types for comparison'],
  ['{{eq 1 1 "a"}}', '{}', 'true'],
  ['{{ne .a nil}} {{ne 1 1}}', '{"a":1}', 'true false'],
  ['{{lt "\\uffff" "\\U0001F600"}}', '{}', 'true'],
  ['{{eq 1i 1i}} {{ne 1i 2i}}', '{}', 'true true'],
  ['{{lt 1i 2i}}', '{}', 'exec: template: t:1:2: executing "t" at <lt 1i 2i>: error calling lt: invalid type for comparison'],
  ['{{and}}', '{}', 'exec: template: t:1:2: executing "t" at <and>: wrong number of args for and: want at least 1 got 0'],
  ['{{not 1 2}}', '{}', 'exec: template: t:1:2: executing "t" at <not>: wrong number of args for not: want 1 got 2'],
  ['{{not}}', '{}', 'exec: template: t:1:2: executing "t" at <not>: wrong number of args for not: want 1 got 0'],
  ['{{len 3}}', '{}', 'exec: template: t:1:2: executing "t" at <len 3>: error calling len: len of type int'],
  ['{{len .m}} {{len .l}} {{len "héllo"}}', '{"m":{"a":1,"b":2},"l":[1]}', '2 1 6'],
  ['{{len .b}}', '{"b":true}', 'exec: template: t:1:2: executing "t" at <len .b>: error calling len: len of type bool'],
  ['{{len nil}}', '{}', 'exec: template: t:1:2: executing "t" at <len nil>: error calling len: reflect: call of reflect.Value.Type on zero Value'],
  ['{{index "héllo" 1}} {{printf "%T" (index "ab" 0)}}', '{}', '195 uint8'],
  ['{{index .l 5}}', '{"l":[1]}', 'exec: template: t:1:2: executing "t" at <index .l 5>: error calling index: index out of range: 5'],
  ['{{index .l 1.0}}', '{"l":[1]}', 'exec: template: t:1:2: executing "t" at <index .l 1.0>: error calling index: cannot index slice/array with type float64'],
  ['{{index .l -1}}', '{"l":[1]}', 'exec: template: t:1:2: executing "t" at <index .l -1>: error calling index: index out of range: -1'],
  [
    '{{index .l .i}}',
    '{"l":[1],"i":0}',
    'exec: template: t:1:2: executing "t" at <index .l .i>: error calling index: cannot index slice/array with type float64',
  ],
  ['{{index .l 1}}', '{"l":[1]}', 'exec: template: t:1:2: executing "t" at <index .l 1>: error calling index: reflect: slice index out of range'],
  ['{{index .l 0}}', '{"l":[[5,6]]}', '[5 6]'],
  ['{{index .l 0 1}}', '{"l":[[5,6]]}', '6'],
  ['{{index .l nil}}', '{"l":[1]}', 'exec: template: t:1:2: executing "t" at <index .l nil>: error calling index: cannot index slice/array with nil'],
  ['{{index .m 1}}', '{"m":{}}', 'exec: template: t:1:2: executing "t" at <index .m 1>: error calling index: value has type int; should be string'],
  ['{{index .m .x}}', '{"m":{}}', 'exec: template: t:1:2: executing "t" at <index .m .x>: error calling index: value is nil; should be of type string'],
  ['{{index .m "a" "b"}}', '{"m":{"a":{"b":3}}}', '3'],
  ['{{index .m "z" "b"}}', '{"m":{"a":{"b":3}}}', 'exec: template: t:1:2: executing "t" at <index .m "z" "b">: error calling index: index of nil pointer'],
  ['{{index .m "n" "b"}}', '{"m":{"n":null}}', 'exec: template: t:1:2: executing "t" at <index .m "n" "b">: error calling index: index of nil pointer'],
  ['{{index .m "zz"}}', '{"m":{}}', '<no value>'],
  ['{{index .s 0}}', '{"s":true}', 'exec: template: t:1:2: executing "t" at <index .s 0>: error calling index: can\'t index item of type bool'],
  ['{{index nil 1}}', '{}', 'exec: template: t:1:2: executing "t" at <index nil 1>: error calling index: index of untyped nil'],
  ['{{index .x 1}}', '{}', 'exec: template: t:1:2: executing "t" at <index .x 1>: error calling index: index of untyped nil'],
  ['{{index .m}}', '{"m":{"a":1}}', 'map[a:1]'],
  ['{{index}}', '{}', 'exec: template: t:1:2: executing "t" at <index>: wrong number of args for index: want at least 1 got 0'],
  ['{{index "abc" 3}}', '{}', 'exec: template: t:1:2: executing "t" at <index "abc" 3>: error calling index: reflect: string index out of range'],
  [
    '{{html "<a href=\'x\'>&\\""}} {{js "<a=\'x\'>&\\"\\\\\\n\\u2028é"}} {{urlquery "a b&c=d/é~"}} {{html 1 2}} {{html .x}} {{html nil}} {{js 1 "a" 2}} {{urlquery}}',
    '{}',
    "&lt;a href=&#39;x&#39;&gt;&amp;&#34; \\u003Ca\\u003D\\'x\\'\\u003E\\u0026\\\"\\\\\\u000A\\u2028é a+b%26c%3Dd%2F%C3%A9~ 1 2 &lt;no value&gt; &lt;no value&gt; 1a2 ",
  ],
  ['{{html "\\u0000"}} {{js "\\u0001\\u007f\\u00a0"}}', '{}', '� \\u0001\\u00A0'],
  ['{{call .f}}', '{"f":1}', 'exec: template: t:1:2: executing "t" at <call .f>: error calling call: non-function of type float64'],
  ['{{call nil}}', '{}', 'exec: template: t:1:2: executing "t" at <call nil>: error calling call: call of nil'],
  ['{{call .x}}', '{}', 'exec: template: t:1:2: executing "t" at <call .x>: error calling call: call of nil'],
  ['{{call}}', '{}', 'exec: template: t:1:2: executing "t" at <call>: wrong number of args for call: want at least 1 got 0'],
  ['{{printf}}', '{}', 'exec: template: t:1:2: executing "t" at <printf>: wrong number of args for printf: want at least 1 got 0'],
  ['{{println}}|{{println 1 "a" nil 2}}|{{print "a" 1 2 "b"}}|{{print}}', '{}', '\n|1 a <nil> 2\n|a1 2b|'],
  ['{{printf "%d %s" 1}}', '{}', '1 %!s(MISSING)'],
  ['{{printf "%v" 1 2}}', '{}', '1%!(EXTRA int=2)'],
];

test('built-ins behave exactly as Go 1.19', () => {
  for (const [template, data, want] of CASES) {
    assert.equal(renderOutcome(template, data), want, `template ${JSON.stringify(template)} data ${data}`);
  }
});

// ---- Cases the oracle cannot show (Sprig replaces Go's `slice`; JSON has no Go types) -----

import { parseTemplate } from './index.js';
import { GoFuncError, GoNumber, goFunc, withGoType } from './value.js';

function run(text: string, data: unknown): string {
  try {
    return parseTemplate('t', text).execute(data);
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

test('slice: Go semantics on lists and strings (UTF-8 bytes)', () => {
  const data = { l: [1, 2, 3], s: 'héllo', tagged: withGoType(['a', 'b', 'c'], '[]string') };
  assert.equal(run('{{slice .l 1}} {{slice .l 1 2}} {{slice .l}} {{slice .l 0 1 2}} {{slice .s 1 3}} {{slice .s 3}}', data), '[2 3] [2] [1 2 3] [1] é llo');
  assert.equal(run('{{printf "%T" (slice .tagged 1)}}', data), '[]string');
  assert.equal(run('{{slice .l 2 1}}', data), 'error: template: t:1:2: executing "t" at <slice .l 2 1>: error calling slice: invalid slice index: 2 > 1');
  assert.equal(run('{{slice .l 0 4}}', data), 'error: template: t:1:2: executing "t" at <slice .l 0 4>: error calling slice: index out of range: 4');
  assert.equal(
    run('{{slice .s 0 1 2}}', data),
    'error: template: t:1:2: executing "t" at <slice .s 0 1 2>: error calling slice: cannot 3-index slice a string',
  );
  assert.equal(
    run('{{slice .l 0 1 2 3}}', data),
    'error: template: t:1:2: executing "t" at <slice .l 0 1 2 3>: error calling slice: too many slice indexes: 4',
  );
  assert.equal(run('{{slice .x}}', data), 'error: template: t:1:2: executing "t" at <slice .x>: error calling slice: slice of untyped nil');
  assert.equal(run('{{slice 3}}', data), 'error: template: t:1:2: executing "t" at <slice 3>: error calling slice: can\'t slice item of type int');
});

test('comparisons across Go integer types; int vs float64 is an error, as in Go', () => {
  const data = { i64: new GoNumber('int64', 3n), u8: new GoNumber('uint8', 3n), f32: new GoNumber('float32', 1.5), neg: new GoNumber('int32', -1n) };
  assert.equal(
    run('{{eq .i64 3}} {{eq .u8 3}} {{eq .u8 .i64}} {{lt .neg .u8}} {{gt .u8 .neg}} {{eq .f32 1.5}} {{lt 2 .i64}}', data),
    'true true true true true true true',
  );
  assert.equal(run('{{eq .i64 3.0}}', data), 'error: template: t:1:2: executing "t" at <eq .i64 3.0>: error calling eq: incompatible types for comparison');
});

test('index: tagged maps give their element zero value for a missing key; strings give bytes', () => {
  const data = { env: withGoType({ A: 'x' }, 'map[string]string'), ports: withGoType({ http: 80n }, 'map[string]int') };
  assert.equal(run('[{{index .env "A"}}][{{index .env "B"}}][{{index .ports "grpc"}}][{{index "é" 0}}]', data), '[x][][0][195]');
});

test('call: invokes function values from the data, with Go argument checks', () => {
  const data = {
    add: goFunc(['int', 'int'], (a: bigint, b: bigint) => a + b),
    fail: goFunc([], () => {
      throw new GoFuncError('nope');
    }),
    join: goFunc(['string'], (sep: string, ...xs: string[]) => xs.join(sep), 'string'),
  };
  assert.equal(run('{{call .add 1 2}} {{call .join "-" "a" "b"}}', data), '3 a-b');
  assert.equal(run('{{call .add 1}}', data), 'error: template: t:1:2: executing "t" at <call .add 1>: error calling call: wrong number of args: got 1 want 2');
  assert.equal(
    run('{{call .add 1 "x"}}', data),
    'error: template: t:1:2: executing "t" at <call .add 1 "x">: error calling call: arg 1: value has type string; should be int',
  );
  assert.equal(run('{{call .fail}}', data), 'error: template: t:1:2: executing "t" at <call .fail>: error calling call: nope');
  assert.equal(run('{{.add}}', data), 'error: template: t:1:2: executing "t" at <{{.add}}>: can\'t print {{.add}} of type func');
});

test('and/or short-circuit: later arguments are not evaluated', () => {
  let calls = 0;
  const funcs = { tick: goFunc([], () => ++calls) };
  assert.equal(parseTemplate('t', '{{or 1 tick}} {{and 0 tick}} {{or 0 tick}}', { funcs }).execute({}), '1 0 1');
  assert.equal(calls, 1);
});
