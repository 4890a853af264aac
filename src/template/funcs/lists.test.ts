/**
 * @module template/funcs/lists.test
 * List functions, including the errors Sprig raises for non-lists and nil. Expected values are what Go 1.19 text/template + Sprig 3.2.3
 * (the gotemplate-ref oracle) printed for the same template and data.
 */
import { describe } from 'node:test';
import { sprigFuncs } from './index.js';
import { runCases } from '../../../test/support/template-funcs.js';

describe('list functions match Go + Sprig', () => {
  runCases(sprigFuncs(), [
    { t: '{{ list 1 "a" nil }}|{{ list }}|{{ typeOf (list) }}|{{ tuple 1 2 }}', want: '[1 a <nil>]|[]|[]interface {}|[1 2]' },
    {
      t: '{{ first (list 1 2) }}|{{ first list }}|{{ first (list nil) }}|{{ printf "%v" (first (list nil)) }}|{{ first (splitList "," "a,b") }}|{{ last (list 1 2) }}|{{ last list }}',
      want: '1|<no value>|<no value>|<nil>|a|2|<no value>',
    },
    {
      t: '{{ rest (list 1 2 3) }}|{{ rest (list 1) }}|{{ rest list }}|{{ initial (list 1 2 3) }}|{{ initial list }}|{{ reverse (list 1 2 3) }}|{{ reverse list }}',
      want: '[2 3]|[]|[]|[1 2]|[]|[3 2 1]|[]',
    },
    {
      t: '{{ append (list 1) 2 }}|{{ push (splitList "," "a") "b" }}|{{ typeOf (append (splitList "," "a") "b") }}|{{ prepend (list 1) 0 }}|{{ concat (list 1) (list 2 3) (splitList "," "a") }}|{{ concat }}',
      want: '[1 2]|[a b]|[]interface {}|[0 1]|[1 2 3 a]|[]',
    },
    {
      t: '{{ uniq (list 1 1 2 "a" "a" 1.0) }}|{{ uniq (list (list 1) (list 1) (dict "a" 1) (dict "a" 1)) }}|{{ without (list 1 2 3 2) 2 }}|{{ without (list nil 1) nil }}|{{ has 2 (list 1 2) }}|{{ has 2.0 (list 1 2) }}|{{ has 1 nil }}|{{ has nil (list nil) }}',
      want: '[1 2 a 1]|[[1] map[a:1]]|[1 3]|[1]|true|false|false|true',
    },
    { t: '{{ compact (list 0 1 "" nil "a" false) }}|{{ compact (list (list) (dict) 0.0) }}', want: '[1 a]|[]' },
    {
      t: '{{ slice (list 1 2 3) }}|{{ slice (list 1 2 3) 1 }}|{{ slice (list 1 2 3) 1 2 }}|{{ slice list }}|{{ slice (list 1 2) "1" }}|{{ typeOf (slice (splitList "," "a") 0) }}',
      want: '[1 2 3]|[2 3]|[2]|<no value>|[2]|[]string',
    },
    { t: '{{ chunk 2 (list 1 2 3 4 5) }}|{{ chunk 3 (list 1 2 3) }}|{{ chunk 2 list }}|{{ chunk -2 (list 1) }}', want: '[[1 2] [3 4] [5]]|[[1 2 3]]|[]|[[1]]' },
    { t: '{{ chunk 0 (list 1) }}', err: 'error calling chunk: runtime error: makeslice: len out of range' },
    { t: '{{ slice (list 1 2) 2 1 }}', err: 'error calling slice: reflect.Value.Slice: slice index out of bounds' },
    { t: '{{ slice "abc" 1 }}', err: 'error calling slice: list should be type of slice or array but string' },
    { t: '{{ first nil }}', err: 'error calling first: runtime error: invalid memory address or nil pointer dereference' },
    { t: '{{ first "abc" }}', err: 'error calling first: Cannot find first on type string' },
    { t: '{{ first (dict) }}', err: 'error calling first: Cannot find first on type map' },
    { t: '{{ first 3 }}', err: 'error calling first: Cannot find first on type int' },
    { t: '{{ concat (list 1) 1 }}', err: 'error calling concat: Cannot concat type int as list' },
    { t: '{{ concat (list 1) nil }}', err: 'error calling concat: runtime error: invalid memory address or nil pointer dereference' },
    { t: '{{ has 1 "x" }}', err: 'error calling has: Cannot find has on type string' },
    { t: '{{ append "x" 1 }}', err: 'error calling append: Cannot push on type string' },
    { t: '{{ without nil 1 }}', err: 'error calling without: runtime error: invalid memory address or nil pointer dereference' },
    { t: '{{ mustFirst (dict) }}', err: 'error calling mustFirst: Cannot find first on type map' },
  ]);
});
