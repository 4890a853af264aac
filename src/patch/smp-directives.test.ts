import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InjectorError } from '../errors.js';
import { takeNew, takeWithPaths, type Taken } from './smp-directives.js';

/** JSON-ish values with what takeNew must handle: nulls, directive maps and keys, `__proto__`, and values that are not JSON. */
const valueArb = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.string({ maxLength: 4 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.constantFrom(Number.NaN, Infinity, new Date(0), () => 1),
  ),
  map: fc.dictionary(
    fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom('$patch', '$retainKeys', '$setElementOrder/x', '$deleteFromPrimitiveList/y', '__proto__', '$other')),
    tie('value'),
    { maxKeys: 4 },
  ),
  list: fc.array(tie('value'), { maxLength: 4 }),
  value: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('map'), tie('list')),
})).value;

function outcome(fn: () => Taken): { ok: Taken } | { code: string; message: string } {
  try {
    return { ok: fn() };
  } catch (err) {
    assert.ok(err instanceof InjectorError, `not an InjectorError: ${String(err)}`);
    return { code: err.code, message: err.message };
  }
}

test('property: takeNew (copy without paths first) gives exactly the reference walk’s copy or error', () => {
  fc.assert(
    fc.property(valueArb, fc.boolean(), (value, ignoreOwn) => {
      const fast = outcome(() => takeNew(value, 'spec.x', 3, ignoreOwn));
      const reference = outcome(() => takeWithPaths(value, 'spec.x', 3, ignoreOwn));
      assert.deepEqual(fast, reference);
      if ('ok' in fast && fast.ok.keep && typeof value === 'object' && value !== null) assert.notEqual(fast.ok.value, value, 'a copy, never the input');
    }),
    { numRuns: 2000 },
  );
});

test('takeNew: a bad value deep in a big overlay is reported at its path', () => {
  const overlay = {
    containers: [
      {
        name: 'a',
        env: [
          { name: 'X', value: 'ok' },
          { name: 'Y', value: Number.NaN },
        ],
      },
    ],
  };
  assert.throws(
    () => takeNew(overlay, 'spec', 1),
    (err: unknown) => err instanceof InjectorError && err.code === 'SI_INJECT_MERGE' && err.message.includes('spec.containers[0].env[1].value'),
  );
  const tooDeep: Record<string, unknown> = {};
  let at = tooDeep;
  for (let i = 0; i < 1100; i++) at = (at.x = {}) as Record<string, unknown>;
  assert.throws(
    () => takeNew(tooDeep, 'spec', 1),
    (err: unknown) => err instanceof InjectorError && err.code === 'SI_INPUT_LIMIT',
  );
});
