/**
 * Execution semantics: fields, variables and scoping, range/with/if, templates, printing, error context.
 * Each row is [template, data JSON, expected]; expected is the output, or `parse: MESSAGE` /
 * `exec: MESSAGE`. Every expectation was produced by Go 1.19 text/template (gotemplate-ref);
 * where our behaviour deliberately differs from Go 1.19 the test says so by name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderOutcome } from '../../test/support/template-outcome.js';
const CASES: ReadonlyArray<readonly [string, string, string]> = [
  ['{{.a.b}}', '{"a":"str"}', 'exec: template: t:1:4: executing "t" at <.a.b>: can\'t evaluate field b in type interface {}'],
  ['{{.a.b}}', '{"a":null}', 'exec: template: t:1:4: executing "t" at <.a.b>: nil pointer evaluating interface {}.b'],
  ['{{.x.b}}', '{}', '<no value>'],
  ['x{{.a.b.c}}', '{"a":{"b":3}}', 'exec: template: t:1:5: executing "t" at <.a.b.c>: can\'t evaluate field c in type interface {}'],
  ['{{.a}} {{.x}} {{.l}}', '{"a":null,"l":[null,1]}', '<no value> <no value> [<nil> 1]'],
  ['{{printf "%v %v" .a .x}}', '{"a":null}', '<nil> <nil>'],
  [
    '{{.a}} {{.b}} {{.c}} {{.d}} {{.e}} {{.f}} {{.g}} {{.h}}',
    '{"a":3,"b":2.5,"c":1e6,"d":123456789,"e":-0.0,"f":1e-5,"g":100000,"h":1e21}',
    '3 2.5 1e+06 1.23456789e+08 -0 1e-05 100000 1e+21',
  ],
  ['{{.}}', '[1,[2,{"a":null}],"x y",true,1.5e300]', '[1 [2 map[a:<nil>]] x y true 1.5e+300]'],
  ['{{.}}', 'null', '<no value>'],
  ['{{.b}}', 'null', '<no value>'],
  ['{{.b}}', '"s"', 'exec: template: t:1:2: executing "t" at <.b>: can\'t evaluate field b in type string'],
  ['{{$}}{{$.x}}', '{"x":1}', 'map[x:1]1'],
  ['{{$.a.b}} {{$.x}}', '{"a":{"b":2}}', '2 <no value>'],
  ['{{range $k, $v := .}}{{$k}}={{$v}};{{end}}', '{"b":1,"a":[1],"A":null,"é":2,"_":3}', 'A=<no value>;_=3;a=[1];b=1;é=2;'],
  ['{{range .}}<{{.}}>{{end}}', '[3,"a",null]', '<3><a><<no value>>'],
  ['{{range $i, $v := .}}{{$i}}={{$v}};{{else}}empty{{end}}', '[]', 'empty'],
  ['{{range .x}}a{{else}}none{{end}}', '{}', 'none'],
  ['{{range .}}{{.}}{{end}}', '"abc"', 'exec: template: t:1:8: executing "t" at <.>: range can\'t iterate over abc'],
  ['{{range .}}{{.}}{{end}}', '5', 'exec: template: t:1:8: executing "t" at <.>: range can\'t iterate over 5'],
  ['{{range .}}{{.}}{{end}}', 'true', 'exec: template: t:1:8: executing "t" at <.>: range can\'t iterate over true'],
  ['{{range $i, $v := .}}{{if eq $i 2}}{{break}}{{end}}{{if eq $i 0}}{{continue}}{{end}}{{$i}}={{$v}};{{end}}', '[1,2,3,4]', '1=2;'],
  ['{{range $k, $v := .}}{{if eq $k "b"}}{{continue}}{{end}}{{$k}}{{end}}', '{"a":1,"b":2,"c":3}', 'ac'],
  ['{{range .}}{{range .}}{{if eq . 2.0}}{{break}}{{end}}{{.}}{{end}};{{end}}', '[[1,2,3],[4]]', '1;4;'],
  ['{{range $v := .}}{{$v}}{{end}}', '[1,2]', '12'],
  ['{{with .a}}{{.}}{{else}}none{{end}}|{{with $x := .b}}{{$x}}{{end}}', '{"a":0,"b":"q"}', 'none|q'],
  ['{{with .a}}{{.b}}{{end}}', '{"a":{"b":7}}', '7'],
  ['{{if .a}}A{{else if .b}}B{{else}}C{{end}}', '{"a":0,"b":"x"}', 'B'],
  ['{{$x := 1}}{{if true}}{{$x := 2}}{{$x}}{{end}}{{$x}}{{range .}}{{$x = .}}{{end}}{{$x}}', '[5,6]', '216'],
  ['{{$x := 1}}{{with $x := 2}}{{$x}}{{end}}{{$x}}', '{}', '21'],
  ['{{if and ($x := 1) true}}{{$x}}{{end}}', '{}', '1'],
  ['{{$x = 2}}', '{}', 'exec: template: t:1:7: executing "t" at <2>: undefined variable: $x'],
  ['{{$x := .a}}{{$x.b}}', '{"a":"s"}', 'exec: template: t:1:16: executing "t" at <$x.b>: can\'t evaluate field b in type string'],
  ['{{(.a).b}}', '{"a":"s"}', 'exec: template: t:1:3: executing "t" at <.a>: can\'t evaluate field b in type string'],
  ['{{.a.b}}', '{"a":[1]}', 'exec: template: t:1:4: executing "t" at <.a.b>: can\'t evaluate field b in type interface {}'],
  ['{{range .l}}{{.b}}{{end}}', '{"l":["s"]}', 'exec: template: t:1:14: executing "t" at <.b>: can\'t evaluate field b in type interface {}'],
  ['{{range $i, $v := .l}}{{$v.b}}{{end}}', '{"l":["s"]}', 'exec: template: t:1:26: executing "t" at <$v.b>: can\'t evaluate field b in type interface {}'],
  ['{{range $v := .l}}{{$v.b}}{{end}}', '{"l":[null]}', 'exec: template: t:1:22: executing "t" at <$v.b>: nil pointer evaluating interface {}.b'],
  ['{{template "x" 3}}{{define "x"}}{{.}}{{end}}', '{}', '3'],
  ['{{block "b" .}}[{{.}}]{{end}}', '7', '[7]'],
  ['{{$x := 3}}{{template "y" $x}}{{define "y"}}{{$}}{{end}}', '{}', '3'],
  ['{{template "y"}}{{define "y"}}{{.}}|{{$}}{{end}}', '{}', '<no value>|<no value>'],
  [
    '{{define "a"}}\n  {{.x.y}}{{end}}x{{template "a" .}}',
    '{"x":1}',
    'exec: template: t:2:6: executing "a" at <.x.y>: can\'t evaluate field y in type interface {}',
  ],
  ['{{template "nope"}}', '{}', 'exec: template: t:1:11: executing "t" at <{{template "nope"}}>: template "nope" not defined'],
  ['{{define "y"}}{{$x}}{{end}}', '{}', 'parse: template: t:1: undefined variable "$x"'],
  ['{{"x" | .a}}', '{"a":1}', 'exec: template: t:1:8: executing "t" at <.a>: a is not a method but has arguments'],
  ['{{.a 1}}', '{"a":{"b":1}}', 'exec: template: t:1:2: executing "t" at <.a>: a is not a method but has arguments'],
  ['{{.a\n.b}}', '{"a":{"b":1}}', 'exec: template: t:1:2: executing "t" at <.a>: a is not a method but has arguments'],
  ['{{3 4}}', '{}', 'exec: template: t:1:2: executing "t" at <3>: can\'t give argument to non-function 3'],
  ['{{nil}}', '{}', 'exec: template: t:1:2: executing "t" at <nil>: nil is not a command'],
  ['{{(1).x}}', '{}', 'exec: template: t:1:3: executing "t" at <1>: can\'t evaluate field x in type int'],
  ['{{18446744073709551615}}', '{}', 'exec: template: t:1:2: executing "t" at <18446744073709551615>: 18446744073709551615 overflows int'],
  ['{{1 | print}}{{"a" | printf "%s-%s" "b"}}', '{}', '1b-a'],
  ['{{printf "%d" 1 | printf "%s %d" "a"}}', '{}', 'a %!d(string=1)'],
  ["{{print 1.0 2}} {{1.5}} {{0x10}} {{-1}} {{1e6}} {{1e5}} {{100000000.0}} {{1.0}} {{'a'}}", '{}', '1 2 1.5 16 -1 1e+06 100000 1e+08 1 97'],
  ['{{printf 1}}', '{}', 'exec: template: t:1:9: executing "t" at <1>: expected string; found 1'],
  ['{{printf .f}}', '{"f":1}', 'exec: template: t:1:9: executing "t" at <.f>: wrong type for value; expected string; got float64'],
  ['{{printf .x}}', '{}', 'exec: template: t:1:9: executing "t" at <.x>: invalid value; expected string'],
  ['{{printf .a}}', '{"a":null}', 'exec: template: t:1:9: executing "t" at <.a>: wrong type for value; expected string; got interface {}'],
  ['{{print .a}} {{print .x}}', '{"a":null}', '<nil> <nil>'],
  ['{{len .a}}', '{"a":null}', 'exec: template: t:1:2: executing "t" at <len .a>: error calling len: len of nil pointer'],
  ['{{len .x}}', '{}', 'exec: template: t:1:2: executing "t" at <len .x>: error calling len: reflect: call of reflect.Value.Type on zero Value'],
  ['{{.a | len}}', '{"a":null}', 'exec: template: t:1:7: executing "t" at <len>: error calling len: reflect: call of reflect.Value.Type on zero Value'],
  [
    '{{index .aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbb 1 2 3 4 5 6 7 8 9 10}}',
    '{}',
    'exec: template: t:1:2: executing "t" at <index .aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbb 1 2 3 4 5 6 7 8 9 10>: error calling index: index of untyped nil',
  ],
  ['é{{.x.y}}', '{"x":1}', 'exec: template: t:1:6: executing "t" at <.x.y>: can\'t evaluate field y in type interface {}'],
  ['\n\n  {{- .x.y}}', '{"x":true}', 'exec: template: t:3:8: executing "t" at <.x.y>: can\'t evaluate field y in type interface {}'],
  ['{{$x := 1}}{{$x}}{{$x := "s"}}{{$x}}', '{}', '1s'],
  ['{{range $i, $x := .}}{{$i}}{{end}}', '{"b":1,"a":2}', 'ab'],
  ['{{with $}}{{.a}}{{end}}', '{"a":5}', '5'],
  ['{{if .}}{{.}}{{end}}', '0', ''],
  ['{{.}}', '"<&>"', '<&>'],
  ['{{range .}}{{else}}{{.}}{{end}}', 'null', '<no value>'],
  ['{{and 1 0 2}} {{and 1 2}} {{or 0 "" .x}} {{or 0 3}} {{not 0}} {{not .m}} {{and .x 1}}', '{"m":{}}', '0 2 <no value> 3 true true <no value>'],
  ['{{or 1 (index .m 5)}}', '{"m":{}}', '1'],
  ['{{and 0 (index .m 5)}}', '{"m":{}}', '0'],
  ['{{or 0 (index .m 5)}}', '{"m":{}}', 'exec: template: t:1:8: executing "t" at <index .m 5>: error calling index: value has type int; should be string'],
  ['{{.x | or 0}}', '{"x":7}', '7'],
  ['{{.x | and 1}}', '{"x":7}', '7'],
  ['{{$x := .}}{{range .}}{{$x.n}}{{end}}', '{"n":1,"l":[1]}', '11'],
];

test('templates execute exactly as Go 1.19', () => {
  for (const [template, data, want] of CASES) {
    assert.equal(renderOutcome(template, data), want, `template ${JSON.stringify(template)} data ${data}`);
  }
});

// ---- Beyond what the Go oracle can show: options, Go-typed data, limits -------------------

import { parseTemplate, DEFAULT_MAX_DEPTH } from './index.js';
import { TemplateError } from '../errors.js';
import { GO_OBJECT, NO_FIELD, GoNumber, goFunc, withGoType, type GoObject } from './value.js';

function execError(fn: () => unknown): TemplateError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof TemplateError, `expected TemplateError, got ${String(err)}`);
    assert.equal(err.code, 'SI_TEMPLATE_EXEC');
    return err;
  }
  assert.fail('expected an execution error');
}

test('missingkey=default and invalid print <no value>', () => {
  for (const missingKey of ['default', 'invalid'] as const) {
    assert.equal(renderOutcome('{{.x}}|{{.a.x}}', '{"a":{}}', { missingKey }), '<no value>|<no value>');
  }
});

test('missingkey=zero gives the element zero value (still <no value> for interface maps, as in Go)', () => {
  const t = parseTemplate('t', '{{.x}}|{{.s.x}}|{{.i.x}}|{{printf "%T" .i.x}}');
  const data = {
    s: withGoType({ a: 'b' }, 'map[string]string'),
    i: withGoType({ a: 1n }, 'map[string]int'),
  };
  assert.equal(t.execute(data, { missingKey: 'zero' }), '<no value>||0|int');
});

test('missingkey=error fails on a missing key and on nil data', () => {
  assert.equal(renderOutcome('{{.a.x}}', '{"a":{}}', { missingKey: 'error' }), 'exec: template: t:1:4: executing "t" at <.a.x>: map has no entry for key "x"');
  assert.equal(renderOutcome('{{.x}}', 'null', { missingKey: 'error' }), 'exec: template: t:1:2: executing "t" at <.x>: nil data; no entry for key "x"');
  assert.equal(renderOutcome('{{.a}}', '{"a":null}', { missingKey: 'error' }), '<no value>');
});

test('{{else with}} chains (Go 1.23; Go 1.19 rejects it)', () => {
  const text = '{{with .a}}a={{.}}{{else with .b}}b={{.}}{{else}}none{{end}}';
  assert.equal(renderOutcome(text, '{"a":1,"b":2}'), 'a=1');
  assert.equal(renderOutcome(text, '{"b":2}'), 'b=2');
  assert.equal(renderOutcome(text, '{}'), 'none');
});

test('user functions: arity, Go argument conversion and errors', () => {
  const seen: unknown[] = [];
  const funcs = {
    i: goFunc(['int'], (n: bigint) => {
      seen.push(n);
      return n * 2n;
    }),
    i8: goFunc(['int8'], (n: GoNumber) => n),
    f: goFunc(['float64'], (x: number) => x / 2),
    s: goFunc(['string'], (x: string) => x.toUpperCase()),
    m: goFunc(['map[string]interface {}'], (x: unknown) => (x === null ? 'nil map' : 'map')),
    any: goFunc(['interface {}'], (x: unknown) => (x === null ? 'nil' : typeof x)),
    join: goFunc(['string'], (sep: string, ...xs: unknown[]) => xs.map(String).join(sep), 'interface {}'),
    fail: goFunc([], () => {
      throw new Error('boom');
    }),
    len: goFunc(['string'], () => 'mine'),
  };
  const r = (text: string, data = '{"n":1.5,"one":1}'): string => renderOutcome(text, data, { funcs });
  assert.equal(r('{{i 3}} {{3 | i}} {{i8 300}} {{f 3}} {{f 1.5}} {{s "a"}}'), '6 6 44 1.5 0.75 A');
  assert.deepEqual(seen, [3n, 3n]);
  assert.equal(r('{{i 1 2}}'), 'exec: template: t:1:2: executing "t" at <i>: wrong number of args for i: want 1 got 2');
  assert.equal(r('{{join}}'), 'exec: template: t:1:2: executing "t" at <join>: wrong number of args for join: want at least 1 got 0');
  assert.equal(r('{{join "," 1 "a" true}}'), '1,a,true');
  assert.equal(r('{{i .one}}'), 'exec: template: t:1:4: executing "t" at <.one>: wrong type for value; expected int; got float64');
  assert.equal(r('{{i 1.5}}'), 'exec: template: t:1:4: executing "t" at <1.5>: expected integer; found 1.5');
  assert.equal(r('{{s 3}}'), 'exec: template: t:1:4: executing "t" at <3>: expected string; found 3');
  assert.equal(r('{{i nil}}'), 'exec: template: t:1:4: executing "t" at <nil>: cannot assign nil to int');
  assert.equal(r('{{i .x}}'), 'exec: template: t:1:4: executing "t" at <.x>: invalid value; expected int');
  assert.equal(r('{{m nil}} {{m .x}} {{any .x}} {{any nil}}'), 'nil map nil map nil nil');
  assert.equal(r('{{fail}}'), 'exec: template: t:1:2: executing "t" at <fail>: error calling fail: boom');
  assert.equal(r('{{len "abc"}}'), 'mine', 'a user function overrides the built-in of the same name');
});

function goObject(goType: string, fields: Record<string, unknown>, methods: Record<string, ReturnType<typeof goFunc>> = {}): GoObject {
  return {
    [GO_OBJECT]: true,
    goType,
    getField: (name) => (Object.hasOwn(fields, name) ? fields[name] : NO_FIELD),
    getMethod: (name) => (Object.hasOwn(methods, name) ? methods[name] : undefined),
    fieldNames: () => Object.keys(fields),
    toJSON: () => fields,
  };
}

test('Go structs: methods before fields, Go error texts, printing', () => {
  const pod = goObject(
    '*v1.Pod',
    {
      Name: 'web',
      Labels: withGoType({ app: 'web' }, 'map[string]string'),
      Spec: goObject('v1.PodSpec', { Containers: [goObject('v1.Container', { Name: 'app', Ports: withGoType([], '[]v1.ContainerPort') })] }),
    },
    {
      Greet: goFunc(['string'], (who: string) => `hi ${who}`),
      Name: goFunc([], () => 'method wins'),
    },
  );
  const t = (text: string): string => {
    try {
      return parseTemplate('t', text).execute(pod);
    } catch (err) {
      return (err as Error).message;
    }
  };
  assert.equal(t('{{.Name}} {{.Labels.app}} {{(index .Spec.Containers 0).Name}} {{.Greet "you"}} {{"me" | .Greet}}'), 'method wins web app hi you hi me');
  assert.equal(t('{{.Nope}}'), 'template: t:1:2: executing "t" at <.Nope>: can\'t evaluate field Nope in type *v1.Pod');
  assert.equal(t('{{.Labels 1}}'), 'template: t:1:2: executing "t" at <.Labels>: Labels has arguments but cannot be invoked as function');
  assert.equal(t('{{.Greet}}'), 'template: t:1:2: executing "t" at <.Greet>: wrong number of args for Greet: want 1 got 0');
  assert.equal(t('{{.Spec}}'), '{[{app []}]}');
  assert.equal(t('{{printf "%v|%+v" .Spec.Containers .Spec}}'), '[{app []}]|{Containers:[{Name:app Ports:[]}]}');
  assert.equal(t('{{range .Spec}}{{end}}'), 'template: t:1:8: executing "t" at <.Spec>: range can\'t iterate over {[{app []}]}');
  assert.equal(t('{{if .Spec}}struct is true{{end}}'), 'struct is true');
});

test("a template recursing forever fails with the depth error, at Go's node", () => {
  const err = execError(() => parseTemplate('t', '{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}').execute({}));
  assert.equal(err.message, `template: t:1:25: executing "r" at <{{template "r" .}}>: exceeded maximum template depth (${DEFAULT_MAX_DEPTH})`);
});

test('maxDepth bounds nested template calls exactly', () => {
  const t = parseTemplate('t', '{{define "r"}}{{if .c}}<{{template "r" .c}}>{{end}}{{end}}{{template "r" .}}');
  // nest(n) needs n + 1 nested calls (the outer {{template}} is the first).
  const nest = (n: number): unknown => (n === 0 ? { end: true } : { c: nest(n - 1) });
  assert.equal(t.execute(nest(3), { maxDepth: 4 }), '<<<>>>');
  const err = execError(() => t.execute(nest(4), { maxDepth: 4 }));
  assert.equal(err.message, 'template: t:1:35: executing "r" at <{{template "r" .c}}>: exceeded maximum template depth (4)');
});

// How deep recursive templates can go on Node's default stack. These are the shapes
// DEFAULT_MAX_DEPTH was chosen from (range+if per level is the deepest per level).
const RECURSIVE_SHAPES = {
  with: '{{define "r"}}{{with .c}}<{{template "r" .}}>{{end}}{{end}}{{template "r" .}}',
  range: '{{define "r"}}{{range $k, $v := .}}{{if eq $k "c"}}{{if $v}}<{{template "r" $v}}>{{end}}{{end}}{{end}}{{end}}{{template "r" .}}',
  call: '{{define "r"}}{{if .c}}{{$x := printf "%v" (len .)}}{{$x}}{{template "r" (index . "c")}}{{end}}{{end}}{{template "r" .}}',
};

test('recursive templates up to DEFAULT_MAX_DEPTH render on the default stack', () => {
  let data: unknown = {};
  for (let i = 0; i < DEFAULT_MAX_DEPTH - 1; i++) data = { c: data };
  for (const [shape, text] of Object.entries(RECURSIVE_SHAPES)) {
    const out = parseTemplate('t', text).execute(data);
    assert.ok(out.length > 0, shape);
  }
});

test('running out of JavaScript stack is a TemplateError, never a crash', () => {
  let data: unknown = {};
  for (let i = 0; i < 50_000; i++) data = { c: data };
  for (const text of Object.values(RECURSIVE_SHAPES)) {
    const err = execError(() => parseTemplate('t', text).execute(data, { maxDepth: 1_000_000 }));
    assert.match(err.message, /exceeded maximum template depth \(1000000\)$/);
  }
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  execError(() => parseTemplate('t', '{{.}}').execute(cyclic));
});

test('a parsed template renders many times with different data', () => {
  const t = parseTemplate('t', '{{range .}}{{$x := .}}{{$x}},{{end}}');
  for (let i = 0; i < 100; i++) assert.equal(t.execute([i, i + 1]), `${i},${i + 1},`);
});

test('field access only sees own keys: prototype names are missing keys', () => {
  assert.equal(renderOutcome('{{.constructor}}|{{.toString}}|{{.__proto__}}', '{"__proto__":1}'), '<no value>|<no value>|1');
});

test('runaway work and output fail instead of hanging (Go would run on)', () => {
  // 2^40 calls on 40 levels of data.
  const doubling = parseTemplate('t', '{{define "a"}}{{if .c}}{{template "a" .c}}{{template "a" .c}}{{end}}{{end}}{{template "a" .}}');
  let data: unknown = {};
  for (let i = 0; i < 40; i++) data = { c: data };
  const err = execError(() => doubling.execute(data, { maxSteps: 100_000 }));
  assert.match(err.message, /exceeded maximum number of execution steps \(100000\)$/);
  const nested = parseTemplate('t', '{{range .}}{{range $}}{{range $}}{{range $}}xxxxxxxxxx{{end}}{{end}}{{end}}{{end}}');
  const big = Array.from({ length: 60 }, (_, i) => i);
  assert.match(execError(() => nested.execute(big, { maxOutput: 1_000_000 })).message, /exceeded maximum output size \(1000000 characters\)$/);
  const silent = parseTemplate('t', '{{range .}}{{range $}}{{range $}}{{range $}}{{$x := 1}}{{end}}{{end}}{{end}}{{end}}');
  assert.match(execError(() => silent.execute(big, { maxSteps: 1_000_000 })).message, /exceeded maximum number of execution steps \(1000000\)$/);
});

test('a JSON null read straight from a map or list is a nil interface{}: map parameters refuse it, as in Go', () => {
  // Expectations from Go 1.19 with Sprig's hasKey(map[string]interface {}, string) bool.
  const funcs = { hasKey: goFunc(['map[string]interface {}', 'string'], (m: Record<string, unknown> | null, k: string) => m !== null && Object.hasOwn(m, k)) };
  const cases: Array<[string, string, string]> = [
    [
      '{{hasKey .n "a"}}',
      '{"n":null}',
      'exec: template: t:1:9: executing "t" at <.n>: wrong type for value; expected map[string]interface {}; got interface {}',
    ],
    ['{{hasKey .x "a"}}', '{}', 'false'],
    [
      '{{range .l}}{{hasKey . "a"}}{{end}}',
      '{"l":[null]}',
      'exec: template: t:1:21: executing "t" at <.>: wrong type for value; expected map[string]interface {}; got interface {}',
    ],
    [
      '{{range $v := .l}}{{hasKey $v "a"}}{{end}}',
      '{"l":[null]}',
      'exec: template: t:1:27: executing "t" at <$v>: wrong type for value; expected map[string]interface {}; got interface {}',
    ],
    ['{{$v := .n}}{{hasKey $v "a"}}', '{"n":null}', 'false'],
    ['{{hasKey (.n) "a"}}', '{"n":null}', 'false'],
    [
      '{{with $x := .m}}{{hasKey $x.n "a"}}{{end}}',
      '{"m":{"n":null}}',
      'exec: template: t:1:28: executing "t" at <$x.n>: wrong type for value; expected map[string]interface {}; got interface {}',
    ],
  ];
  for (const [text, data, want] of cases) assert.equal(renderOutcome(text, data, { funcs }), want, text);
  // A nil pointer field of a Go struct is a typed nil and fits a pointer parameter.
  const probe = goFunc(['*v1.Probe'], (p: unknown) => (p === null ? 'no probe' : 'probe'));
  const container = goObject('*v1.Container', { ReadinessProbe: null });
  assert.equal(parseTemplate('t', '{{probe .ReadinessProbe}}', { funcs: { probe } }).execute(container), 'no probe');
});
