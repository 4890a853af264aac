/**
 * @module template/funcs/flow.test
 * default/empty/coalesce/all/any/ternary/fail (Sprig) and required (Helm's, checked against Helm's source). Expected values are what Go 1.19 text/template + Sprig 3.2.3
 * (the gotemplate-ref oracle) printed for the same template and data.
 */
import { describe } from 'node:test';
import { sprigFuncs, templateFuncs } from './index.js';
import { runCases } from '../../../test/support/template-funcs.js';

describe('defaults and flow functions match Go + Sprig', () => {
  runCases(sprigFuncs(), [
    {
      t: '{{ default "x" "" }}|{{ default "x" 0 }}|{{ default "x" 0.0 }}|{{ default "x" false }}|{{ default "x" (list) }}|{{ default "x" (dict) }}|{{ default "x" "y" }}|{{ default "x" }}|{{ default "x" .missing }}|{{ default "x" .n }}|{{ .n | default "z" }}|{{ default nil nil }}',
      data: '{"n":null}',
      want: 'x|x|x|x|x|x|y|x|x|x|z|<no value>',
    },
    {
      t: '{{ empty 0.0 }}|{{ empty (list 1) }}|{{ empty .n }}|{{ empty "" }}|{{ empty (int64 0) }}|{{ empty (dict "a" 1) }}|{{ empty false }}',
      data: '{"n":null}',
      want: 'true|false|true|true|true|false|true',
    },
    {
      t: '{{ coalesce 0 "" "a" }}|{{ coalesce 0 "" }}|{{ coalesce }}|{{ coalesce nil (list 1) }}|{{ all 1 "a" }}|{{ all 1 "" }}|{{ all }}|{{ any 0 "" }}|{{ any 0 "x" }}|{{ any }}',
      want: 'a|<no value>|<no value>|[1]|true|false|true|false|true|false',
    },
    { t: '{{ ternary "a" "b" true }}|{{ ternary "a" "b" false }}|{{ true | ternary 1 2 }}|{{ ternary nil 1 true }}', want: 'a|b|1|<no value>' },
    { t: '{{ ternary 1 2 "yes" }}', err: 'expected bool; found "yes"' },
    { t: '{{ fail "boom: %d" }}', err: 'error calling fail: boom: %d' },
  ]);
});

// Helm's required (not in Sprig, so not in the oracle): nil or "" fails with the message, which
// Helm passes to errors.Errorf as a format string; anything else is returned unchanged.
describe("required (Helm's semantics, from Helm's source)", () => {
  runCases(templateFuncs(), [
    { t: '{{ required "need x" .x }}', data: '{"x":0}', want: '0' },
    { t: '{{ required "need x" .x }}', data: '{"x":false}', want: 'false' },
    { t: '{{ required "need x" .x }}', data: '{"x":[]}', want: '[]' },
    { t: '{{ required "need x" .x }}', data: '{}', err: 'error calling required: need x' },
    { t: '{{ required "need x" .x }}', data: '{"x":""}', err: 'error calling required: need x' },
    { t: '{{ required "100%" nil }}', err: 'error calling required: 100%!(NOVERB)' },
  ]);
});
