/**
 * @module template/funcs/math.test
 * Integer arithmetic through cast.ToInt64 (int64 results that wrap), float helpers and sequences. Expected values are what Go 1.19 text/template + Sprig 3.2.3
 * (the gotemplate-ref oracle) printed for the same template and data.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sprigFuncs } from './index.js';
import { render, runCases } from '../../../test/support/template-funcs.js';

describe('math functions match Go + Sprig', () => {
  runCases(sprigFuncs(), [
    {
      t: '{{ add 1 2 }}|{{ typeOf (add 1 2) }}|{{ add "3" 4.9 }}|{{ add nil 1 }}|{{ add "a" 1 }}|{{ add true 1 }}|{{ add (list) 1 }}|{{ add }}|{{ add 1e20 0 }}|{{ add 9223372036854775807 1 }}',
      want: '3|int64|7|1|1|2|1|0|-9223372036854775808|-9223372036854775808',
    },
    {
      t: '{{ add1 1.5 }}|{{ add1 nil }}|{{ sub 5 2.9 }}|{{ sub -9223372036854775808 1 }}|{{ mul 2 3 "4" }}|{{ mul 1 }}|{{ mul 4294967296 4294967296 }}',
      want: '2|1|3|9223372036854775807|24|1|0',
    },
    {
      t: '{{ div 7 2 }}|{{ div 7 -2 }}|{{ div -7 2 }}|{{ mod 7 3 }}|{{ mod -7 2 }}|{{ mod -7 -3 }}|{{ div -9223372036854775808 -1 }}',
      want: '3|-3|-3|1|-1|-1|-9223372036854775808',
    },
    { t: '{{ div 1 0 }}', err: 'error calling div: runtime error: integer divide by zero' },
    { t: '{{ mod 1 0 }}', err: 'error calling mod: runtime error: integer divide by zero' },
    { t: '{{ div 1 0.5 }}', err: 'error calling div: runtime error: integer divide by zero' },
    {
      t: '{{ max 1 5 3 }}|{{ min 4 2 8 }}|{{ max "x" -1 }}|{{ biggest 3 9 }}|{{ typeOf (max 1) }}|{{ maxf 1 2.5 }}|{{ minf 1 -2.5 }}|{{ maxf (float64 "nan") 1 }}|{{ maxf (float64 "inf") (float64 "nan") }}',
      want: '5|2|0|9|int64|2.5|-2.5|NaN|+Inf',
    },
    { t: '{{ max }}', err: 'wrong number of args for max: want at least 1 got 0' },
    { t: '{{ floor 1.5 }}|{{ floor "2.7" }}|{{ floor -0.5 }}|{{ ceil 1.2 }}|{{ ceil nil }}|{{ typeOf (floor 1) }}', want: '1|2|-1|2|0|float64' },
    {
      t: '{{ round 3.14159 2 }}|{{ round 2.5 0 }}|{{ round -2.5 0 }}|{{ round 1.234 1 0.3 }}|{{ round 1.005 2 }}|{{ round 0.5 -1 }}|{{ round 1e300 5 }}',
      want: '3.14|3|-3|1.3|1|0|1.0000000000000002e+300',
    },
    { t: '{{ round 1.5 }}', err: 'wrong number of args for round: want at least 2 got 1' },
    {
      t: '{{ until 3 }}|{{ until -3 }}|{{ until 0 }}|{{ untilStep 0 10 3 }}|{{ untilStep 10 0 -3 }}|{{ untilStep 0 10 -1 }}|{{ untilStep 5 1 0 }}|{{ typeOf (until 1) }}',
      want: '[0 1 2]|[0 -1 -2]|[]|[0 3 6 9]|[10 7 4 1]|[]|[]|[]int',
    },
    {
      t: '{{ seq 3 }}|{{ seq 2 5 }}|{{ seq 5 2 }}|{{ seq 0 2 10 }}|{{ seq 10 -2 0 }}|{{ seq 10 2 0 }}|{{ seq }}|{{ seq 1 2 3 4 }}|{{ seq 0 }}|{{ seq -2 }}|{{ seq 2 0 5 }}',
      want: '1 2 3|2 3 4 5|5 4 3 2|0 2 4 6 8 10|10 8 6 4 2 0||||1 0|1 0 -1 -2|',
    },
  ]);
});

describe('limits', () => {
  test('a sequence too long to build safely fails with a clear error (Go would allocate it)', () => {
    assert.match(render(sprigFuncs(), '{{ until 3000000 | len }}').err ?? '', /more than 1048576 elements/);
  });
});
