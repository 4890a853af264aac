/**
 * @module template/funcs/dicts.test
 * Dictionary functions (mergo merge rules included), dig, deepCopy and the reflection helpers. Expected values are what Go 1.19 text/template + Sprig 3.2.3
 * (the gotemplate-ref oracle) printed for the same template and data.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sprigFuncs } from './index.js';
import { runCases } from '../../../test/support/template-funcs.js';
import { parseTemplate } from '../index.js';

describe('dict and type functions match Go + Sprig', () => {
  runCases(sprigFuncs(), [
    {
      t: '{{ $d := dict "a" 1 "b" 2 }}{{ get $d "a" }}|{{ get $d "z" }}|{{ set $d "c" 3 }}|{{ unset $d "a" }}|{{ hasKey $d "b" }}|{{ hasKey $d "a" }}|{{ $d }}',
      want: '1||map[a:1 b:2 c:3]|map[b:2 c:3]|true|false|map[b:2 c:3]',
    },
    {
      t: '{{ dict }}|{{ dict "a" }}|{{ dict "a" "b" "c" }}|{{ dict 1 2 nil 3 }}|{{ typeOf (dict) }}|{{ get (dict "a" nil) "a" }}|{{ hasKey (dict "a" nil) "a" }}',
      want: 'map[]|map[a:]|map[a:b c:]|map[1:2 <nil>:3]|map[string]interface {}|<no value>|true',
    },
    {
      t: '{{ pluck "b" (dict "b" 1) (dict "a" 2) (dict "b" 3) }}|{{ pluck "a" }}|{{ keys (dict "x" 1) }}|{{ keys }}|{{ typeOf (keys) }}|{{ pick (dict "a" 1 "b" 2) "b" "zz" }}|{{ omit (dict "a" 1 "b" 2) "b" }}|{{ values (dict "x" 1) }}',
      want: '[1 3]|[]|[x]|[]|[]string|map[b:2]|map[a:1]|[1]',
    },
    {
      t: '{{ merge (dict "a" 1 "n" (dict "x" 1)) (dict "a" 2 "b" 3 "n" (dict "x" 2 "y" 3)) }}|{{ mergeOverwrite (dict "a" 1 "n" (dict "x" 1)) (dict "a" 2 "b" 3 "n" (dict "x" 2 "y" 3)) }}',
      want: 'map[a:1 b:3 n:map[x:1 y:3]]|map[a:2 b:3 n:map[x:2 y:3]]',
    },
    {
      t: '{{ merge (dict "a" (list)) (dict "a" (list 1)) }}|{{ merge (dict "a" 0) (dict "a" 5) }}|{{ mergeOverwrite (dict "a" 5) (dict "a" 0) }}|{{ mergeOverwrite (dict "a" 1) (dict "a" false) }}|{{ mergeOverwrite (dict "a" "x" "b" (dict "c" 1)) (dict "a" "" "b" "str") }}|{{ mergeOverwrite (dict "a" "x" "b" (list 1)) (dict "a" nil "b" (dict "q" 1)) }}',
      want: 'map[a:[1]]|map[a:5]|map[a:0]|map[a:false]|map[a: b:str]|map[a:<nil> b:[1]]',
    },
    {
      t: '{{ mergeOverwrite (dict "a" (dict "x" 1)) (dict "a" (dict)) }}|{{ merge (dict "a" (dict)) (dict "a" (dict "x" 1)) }}|{{ merge (dict "a" "s") (dict "a" (dict "x" 1)) }}|{{ mergeOverwrite (dict "a" "s") (dict "a" (list 1)) }}|{{ merge (dict "a" nil) (dict "a" (list 1)) }}|{{ merge nil (dict "a" 1) }}|{{ merge nil nil }}',
      want: 'map[a:map[x:1]]|map[a:map[x:1]]|map[a:s]|map[a:[1]]|map[a:[1]]|map[a:1]|map[]',
    },
    {
      t: '{{ $a := dict "n" (dict "x" 1) }}{{ $b := dict "n" (dict "y" 2) }}{{ $_ := merge $a $b }}{{ $a }}|{{ $b }}',
      want: 'map[n:map[x:1 y:2]]|map[n:map[y:2]]',
    },
    {
      t: '{{ mergeOverwrite .x .y }}',
      data: '{"x":{"a":{"b":1,"c":[1,2]},"d":""},"y":{"a":{"b":null,"c":[]},"d":"v","e":0}}',
      want: 'map[a:map[b:<nil> c:[]] d:v e:0]',
    },
    {
      t: '{{ merge .x .y }}',
      data: '{"x":{"a":{"b":1,"c":[1,2]},"d":""},"y":{"a":{"b":null,"c":[3]},"d":"v","e":0}}',
      want: 'map[a:map[b:1 c:[1 2]] d:v e:0]',
    },
    { t: '{{ dig "a" "b" "d" . }}|{{ dig "a" "x" "d" . }}|{{ dig "z" "d" . }}', data: '{"a":{"b":[1]}}', want: '[1]|d|d' },
    { t: '{{ dig "a" "b" "def" (dict "a" 1) }}', err: 'error calling dig: interface conversion: interface {} is int, not map[string]interface {}' },
    { t: '{{ dig 1 "def" (dict) }}', err: 'error calling dig: interface conversion: interface {} is int, not string' },
    { t: '{{ dig "a" "def" nil }}', err: 'error calling dig: interface conversion: interface {} is nil, not map[string]interface {}' },
    { t: '{{ dig "a" "b" }}', err: 'error calling dig: dig needs at least three arguments' },
    { t: '{{ set nil "a" 1 }}', err: 'error calling set: assignment to entry in nil map' },
    { t: '{{ get . "a" }}', data: '[1]', err: 'wrong type for value; expected map[string]interface {}; got []interface {}' },
    {
      t: '{{ $c := deepCopy . }}{{ $_ := set $c "a" 2 }}{{ . }}|{{ $c }}|{{ deepCopy (list 1 (dict "a" (list 2))) }}|{{ typeOf (deepCopy (splitList "," "a")) }}|{{ deepCopy 1 }}',
      data: '{"a":1}',
      want: 'map[a:1]|map[a:2]|[1 map[a:[2]]]|[]string|1',
    },
    { t: '{{ deepCopy nil }}', err: 'error calling deepCopy: reflect: call of reflect.Value.Type on zero Value' },
    {
      t: '{{ kindOf 1 }}|{{ kindOf 1.5 }}|{{ kindOf nil }}|{{ kindOf (list) }}|{{ kindOf (dict) }}|{{ kindOf (semver "1.0.0") }}|{{ kindIs "int" 1 }}|{{ kindIs "map" (dict) }}|{{ typeOf nil }}|{{ typeOf .x }}|{{ typeIs "float64" .x }}|{{ typeIsLike "float64" .x }}|{{ typeOf (chunk 1 (list 1)) }}|{{ typeIsLike "semver.Version" (semver "1.0.0") }}',
      data: '{"x":1}',
      want: 'int|float64|invalid|slice|map|ptr|true|true|<nil>|float64|true|true|[][]interface {}|true',
    },
    {
      t: '{{ deepEqual (list 1 (dict "a" 2)) (list 1 (dict "a" 2)) }}|{{ deepEqual 1 (int64 1) }}|{{ deepEqual 1 1.0 }}|{{ deepEqual nil nil }}|{{ deepEqual (dict) nil }}|{{ deepEqual (splitList "," "a") (list "a") }}',
      want: 'true|false|false|true|false|false',
    },
  ]);
});

describe('map safety', () => {
  test('a "__proto__" key set from a template is data, not a prototype change', () => {
    const t = '{{ $d := dict }}{{ $_ := set $d "__proto__" "x" }}{{ $d }}|{{ $e := dict "__proto__" 1 }}{{ keys $e }}';
    assert.equal(parseTemplate('t', t, { funcs: sprigFuncs() }).execute(null), 'map[__proto__:x]|[__proto__]');
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });
  test('set on template data changes that data (Go maps are references)', () => {
    const data = { m: { a: 1 } };
    parseTemplate('t', '{{ $_ := set .m "b" 2 }}', { funcs: sprigFuncs() }).execute(data);
    assert.deepEqual(data.m, { a: 1, b: 2n });
  });
});
