/**
 * @module template/funcs/json-funcs.test
 * toJson/toPrettyJson/toRawJson/fromJson and the must* variants: encoding/json's bytes and error texts. Expected values are what Go 1.19 text/template + Sprig 3.2.3
 * (the gotemplate-ref oracle) printed for the same template and data.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sprigFuncs } from './index.js';
import { runCases } from '../../../test/support/template-funcs.js';
import { goJsonMarshal } from './json-encode.js';
import { goJsonUnmarshal } from './json-decode.js';
import { GO_OBJECT, NO_FIELD, type GoObject } from '../value.js';

describe('JSON functions match Go + Sprig', () => {
  runCases(sprigFuncs(), [
    {
      t: '{{ toJson . }}|{{ toPrettyJson . }}|{{ toRawJson . }}',
      data: '{"b":[1,2.5,"<x>&",null,true],"a":{},"c":[],"\\u00e9":"\\u2028"}',
      want: '{"a":{},"b":[1,2.5,"\\u003cx\\u003e\\u0026",null,true],"c":[],"é":"\\u2028"}|{\n  "a": {},\n  "b": [\n    1,\n    2.5,\n    "\\u003cx\\u003e\\u0026",\n    null,\n    true\n  ],\n  "c": [],\n  "é": "\\u2028"\n}|{"a":{},"b":[1,2.5,"<x>&",null,true],"c":[],"é":"\\u2028"}',
    },
    {
      t: '{{ toJson (list (float64 "1e21") 1e20 1e-7 0.000001 -0.0 0.1 100 (int64 "9223372036854775807")) }}|{{ toJson "\\u0000\\u001f\\u007f\\t\\n" }}|{{ toJson nil }}|{{ toJson .x }}|{{ toJson 3 }}',
      data: '{}',
      want: '[1e+21,100000000000000000000,1e-7,0.000001,-0,0.1,100,9223372036854775807]|"\\u0000\\u001f\\t\\n"|null|null|3',
    },
    { t: '{{ toJson (float64 "inf") }}|{{ toPrettyJson (float64 "nan") }}|{{ mustToJson 1 }}|{{ toJson (dict 1 2) }}', want: '||1|{"1":2}' },
    { t: '{{ mustToJson (float64 "inf") }}', err: 'error calling mustToJson: json: unsupported value: +Inf' },
    { t: '{{ toRawJson (float64 "nan") }}', err: 'error calling toRawJson: json: unsupported value: NaN' },
    { t: '{{ toPrettyJson (dict "a" (list 1 (list) (dict)) "b" nil) }}', want: '{\n  "a": [\n    1,\n    [],\n    {}\n  ],\n  "b": null\n}' },
    {
      t: '{{ (fromJson "{\\"a\\":[1,{\\"b\\":null}]}").a }}|{{ fromJson "[1,\\"x\\"]" }}|{{ fromJson "bad" }}|{{ typeOf (fromJson "1") }}|{{ fromJson "{\\"__proto__\\":1}" }}|{{ fromJson "[1e400]" }}|{{ fromJson "\\"\\\\ud800x\\"" | printf "%q" }}|{{ fromJson "" }}|{{ typeOf (fromJson "null") }}',
      want: '[1 map[b:<nil>]]|[1 x]|<no value>|float64|map[__proto__:1]|[<nil>]|"�x"|<no value>|<nil>',
    },
    { t: '{{ mustFromJson "{bad" }}', err: "error calling mustFromJson: invalid character 'b' looking for beginning of object key string" },
    { t: '{{ mustFromJson "tru" }}', err: "error calling mustFromJson: invalid character ' ' in literal true (expecting 'e')" },
    { t: '{{ mustFromJson "[1,]" }}', err: "error calling mustFromJson: invalid character ']' looking for beginning of value" },
    { t: '{{ mustFromJson "1 2" }}', err: "error calling mustFromJson: invalid character '2' after top-level value" },
    { t: '{{ mustFromJson "\\"\\\\x\\"" }}', err: "error calling mustFromJson: invalid character 'x' in string escape code" },
    { t: '{{ mustFromJson "1." }}', err: "error calling mustFromJson: invalid character ' ' after decimal point in numeric literal" },
    { t: '{{ mustFromJson "é" }}', err: "error calling mustFromJson: invalid character 'Ã' looking for beginning of value" },
    { t: '{{ mustFromJson "\\u0001" }}', err: "error calling mustFromJson: invalid character '\\x01' looking for beginning of value" },
    { t: '{{ mustFromJson "[1e400]" }}', err: 'error calling mustFromJson: json: cannot unmarshal number 1e400 into Go value of type float64' },
    { t: '{{ mustFromJson "{\\"a\\" 1}" }}', err: "error calling mustFromJson: invalid character '1' after object key" },
    { t: '{{ mustFromJson "{\\"a\\":1,}" }}', err: "error calling mustFromJson: invalid character '}' looking for beginning of object key string" },
  ]);
});

describe('encoding/json over the value model', () => {
  test('decoded maps have no prototype, so "__proto__" is plain data', () => {
    const v = goJsonUnmarshal('{"__proto__":{"polluted":true}}').value as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(v), null);
    assert.deepEqual(Object.keys(v), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
  test('a struct keeps its field order; maps from template data are sorted', () => {
    const port: GoObject = {
      [GO_OBJECT]: true,
      goType: 'v1.ContainerPort',
      getField: () => NO_FIELD,
      getMethod: () => undefined,
      fieldNames: () => ['Name', 'ContainerPort'],
      toJSON: () => ({ name: 'http', containerPort: 80 }),
    };
    assert.equal(goJsonMarshal({ z: 1, a: port }), '{"a":{"name":"http","containerPort":80},"z":1}');
  });
  test('a cycle is an error, not a stack overflow', () => {
    const m: Record<string, unknown> = {};
    m.self = m;
    assert.throws(() => goJsonMarshal(m), /encountered a cycle/);
  });
  test('marshal then unmarshal gives the same JSON data back (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = goJsonMarshal(v);
        // Go writes -0 as "-0"; as JSON data it is the same number as 0.
        const back = JSON.parse(text, (_k, x: unknown) => (Object.is(x, -0) ? 0 : x)) as unknown;
        assert.deepEqual(back, JSON.parse(JSON.stringify(v)));
        assert.equal(goJsonMarshal(goJsonUnmarshal(text).value), text);
      }),
    );
  });
  test("deeply nested input is rejected with Go's message instead of overflowing the stack", () => {
    const r = goJsonUnmarshal('['.repeat(20000));
    assert.equal(r.error, "invalid character '[' exceeded max depth");
    // Just under Go's limit still decodes.
    assert.equal(goJsonUnmarshal('['.repeat(9999) + ']'.repeat(9999)).error, undefined);
  });
});
