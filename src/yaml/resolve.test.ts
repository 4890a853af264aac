import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BigIntScalar, FloatScalar, goFloatKey, MergeKey, misreadAsNonString, NULL_SCALAR, resolvePlain, STRING } from './resolve.js';

/** What a plain scalar means to Kubernetes, in JSON terms (special scalars unwrapped). */
function meaning(s: string): unknown {
  const r = resolvePlain(s);
  if (r === STRING) return s;
  if (r === NULL_SCALAR) return null;
  if (r instanceof FloatScalar || r instanceof BigIntScalar) return r.value;
  if (r instanceof MergeKey) return '<<';
  return r;
}

describe('resolvePlain: YAML 1.1 as go-yaml v2 (sigs.k8s.io/yaml) types plain scalars', () => {
  const table: Array<[string, unknown]> = [
    // octal file modes: the classic defaultMode trap
    ['0644', 420],
    ['0755', 493],
    ['0', 0],
    ['00', 0],
    ['08', 8], // not octal; go-yaml falls back to a float
    ['0o17', 15],
    ['0x1F', 31],
    ['0X1f', 31],
    ['+0x1F', 31],
    ['0b101', 5],
    ['-0b101', -5],
    // go-yaml's last try, ParseInt(plain[2:], 2), takes a sign after `0b` (found by the go-yaml comparison)
    ['0b+1', 1],
    ['0b_-10', -2],
    ['-0b+1', '-0b+1'],
    ['1_000', 1000],
    ['0x_1F', 31],
    ['+12', 12],
    ['-0', 0],
    // booleans: YAML 1.1 words, exact case variants only
    ['yes', true],
    ['Yes', true],
    ['YES', true],
    ['y', true],
    ['Y', true],
    ['on', true],
    ['On', true],
    ['ON', true],
    ['true', true],
    ['no', false],
    ['n', false],
    ['off', false],
    ['OFF', false],
    ['False', false],
    ['yEs', 'yEs'],
    ['tRue', 'tRue'],
    // null
    ['~', null],
    ['null', null],
    ['Null', null],
    ['NULL', null],
    ['nULL', 'nULL'],
    ['', null],
    // floats
    ['1.0', 1],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['-.5', -0.5],
    // a leading `.` goes straight to Go's ParseFloat: `_` only between digits (checked with go-yaml v2)
    ['.2_56E6', 256000],
    ['.1e1_0', 1e9],
    ['.1_0e1', 1],
    ['._5', '._5'],
    ['.5_', '.5_'],
    ['.5__5', '.5__5'],
    ['.5_e3', '.5_e3'],
    ['1.', 1],
    ['1e3', 1000],
    ['1E+03', 1000],
    ['6.02e23', 6.02e23],
    ['1_0.5', 10.5],
    ['1e-400', 0], // underflow is 0 in Go
    // strings that look numeric to other readers but not to go-yaml
    ['1:20', '1:20'], // no sexagesimal
    ['190:20:30', '190:20:30'],
    ['2001-12-14', '2001-12-14'], // timestamps stay strings
    ['2001-12-14T21:59:43.10-05:00', '2001-12-14T21:59:43.10-05:00'],
    ['1.5e400', '1.5e400'], // overflow: ParseFloat fails, so a string
    ['0x', '0x'],
    ['1e', '1e'],
    ['1.2.3', '1.2.3'],
    ['100m', '100m'],
    ['128Mi', '128Mi'],
    ['NaN', 'NaN'],
    ['inf', 'inf'],
    ['=', '='],
    ['<<', '<<'],
  ];
  for (const [text, want] of table) {
    it(`${JSON.stringify(text)} means ${JSON.stringify(want)}`, () => {
      assert.deepEqual(meaning(text), want);
    });
  }

  it('keeps integers JS cannot hold exactly as big-integer scalars with their exact digits', () => {
    const r = resolvePlain('9223372036854775807');
    assert.ok(r instanceof BigIntScalar);
    assert.equal(r.exact, '9223372036854775807');
    const u = resolvePlain('18446744073709551615'); // fits uint64
    assert.ok(u instanceof BigIntScalar);
    // beyond uint64: no longer an integer to go-yaml, a float
    assert.ok(resolvePlain('18446744073709551616') instanceof FloatScalar);
    assert.ok(resolvePlain('-9223372036854775809') instanceof FloatScalar);
  });

  it('reads short decimals (a fast path) as the general rule does: the number, -0 as 0; with a leading 0 octal (property)', () => {
    assert.ok(Object.is(resolvePlain('-0'), 0));
    assert.equal(resolvePlain('010'), 8);
    fc.assert(
      fc.property(fc.integer({ min: -(10 ** 15) + 1, max: 10 ** 15 - 1 }), (n) => {
        assert.ok(Object.is(resolvePlain(String(n)), n === 0 ? 0 : n), String(n));
        if (n > 0) assert.equal(resolvePlain(`0${n.toString(8)}`), n);
      }),
    );
  });

  it('resolves .nan and .inf to non-finite floats (which conversion then rejects)', () => {
    for (const s of ['.nan', '.NaN', '.inf', '+.INF', '-.Inf']) {
      const r = resolvePlain(s);
      assert.ok(r instanceof FloatScalar && !Number.isFinite(r.value), s);
    }
  });

  it('gives every merge key its own text, so two `<<` in one mapping never collide', () => {
    const a = resolvePlain('<<');
    const b = resolvePlain('<<');
    assert.ok(a instanceof MergeKey && b instanceof MergeKey);
    assert.notEqual(String(a), String(b));
  });
});

describe('goFloatKey: the key text sigs.k8s.io/yaml gives a float key', () => {
  const table: Array<[number, string]> = [
    [1.5, '1.5'],
    [1, '1'],
    [0.1, '0.1'],
    [123456, '123456'],
    [1e6, '1e+06'],
    [1234567, '1.234567e+06'],
    [1e20, '1e+20'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [3.14159265358979, '3.1415927'], // float32 precision
    [-2.5, '-2.5'],
    [0, '0'],
    [Infinity, '.inf'],
    [-Infinity, '-.inf'],
    [NaN, '.nan'],
  ];
  for (const [f, want] of table) {
    it(`${f} -> ${want}`, () => assert.equal(goFloatKey(f), want));
  }
});

describe('misreadAsNonString: strings the writer must quote', () => {
  it('covers YAML 1.1 and 1.2 readers, not just go-yaml', () => {
    for (const s of [
      'yes',
      'on',
      'Y',
      'n',
      '0644',
      '1.0',
      '~',
      '',
      '1:20',
      '2001-12-14',
      '2001-12-14 10:00:00',
      '0x1F',
      '1e3',
      '.inf',
      '<<',
      '=',
      'NULL',
      '-1',
      '+1',
      '.5',
      '1_000',
      '0b1',
    ]) {
      assert.equal(misreadAsNonString(s), true, s);
    }
  });

  it('leaves ordinary text plain', () => {
    for (const s of ['nginx', 'app-1', '100m', '128Mi', 'v1.2', 'true-ish', 'yesterday', 'Off-by-one', 'a b', 'é']) {
      assert.equal(misreadAsNonString(s), false, s);
    }
  });

  it('is true for every string go-yaml would not read back as that string (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789+-._eExXoObB:~yYnN'), maxLength: 10 }), (s) => {
        if (resolvePlain(s) !== STRING) assert.equal(misreadAsNonString(s), true, s);
      }),
      { numRuns: 5000 },
    );
  });
});
