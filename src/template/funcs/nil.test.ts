/**
 * @module template/funcs/nil.test
 * Typed nil slices and maps returned by Sprig functions: they print like empty ones but encode
 * as JSON null, and a nil map refuses writes. Expected values come from Go 1.19 + Sprig 3.2.3.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sprigFuncs } from './index.js';
import { runCases } from '../../../test/support/template-funcs.js';
import { isNilContainer, nilMap, nilSlice } from './nil.js';
import { goTypeName } from '../value.js';

describe('nil containers from Sprig functions match Go', () => {
  runCases(sprigFuncs(), [
    {
      t: '{{ toJson (concat) }}|{{ toJson (rest list) }}|{{ toJson (initial list) }}|{{ toJson (initial (list 1)) }}|{{ toJson (regexFindAll "x" "a" -1) }}|{{ toJson (regexSplit "," "a" 0) }}|{{ toJson (merge nil) }}|{{ merge nil }}|{{ toJson (deepCopy (concat)) }}|{{ toJson (sortAlpha (regexFindAll "x" "a" -1)) }}|{{ toJson (toStrings (regexFindAll "x" "a" -1)) }}|{{ concat }}|{{ len (rest list) }}|{{ default "d" (concat) }}',
      want: 'null|null|null|[]|null|null|null|map[]|null|null|null|[]|0|d',
    },
    {
      t: '{{ $m := dict "a" (merge nil) }}{{ toJson (merge $m (dict "a" (dict "x" 1))) }}|{{ toJson (append (concat) 1) }}|{{ toJson (unset (merge nil) "a") }}|{{ toJson (list) }}|{{ toJson (slice (list 1 2) 1 1) }}',
      want: '{"a":{"x":1}}|[1]|null|[]|[]',
    },
    { t: '{{ set (merge nil) "a" 1 }}', err: 'error calling set: assignment to entry in nil map' },
  ]);
});

test('nil containers are shared, immutable, typed and recognisable', () => {
  assert.equal(nilSlice('[]string'), nilSlice('[]string'));
  assert.ok(Object.isFrozen(nilMap()));
  assert.equal(goTypeName(nilSlice('[]string')), '[]string');
  assert.equal(goTypeName(nilMap('map[string]string')), 'map[string]string');
  assert.ok(isNilContainer(nilSlice()) && !isNilContainer([]));
});
