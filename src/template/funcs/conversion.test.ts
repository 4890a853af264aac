/**
 * @module template/funcs/conversion.test
 * atoi/int/int64/float64/toString/toDecimal: strconv and spf13/cast v1.5 rules. Expected values are what Go 1.19 text/template + Sprig 3.2.3
 * (the gotemplate-ref oracle) printed for the same template and data.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sprigFuncs } from './index.js';
import { runCases } from '../../../test/support/template-funcs.js';
import { parseInt64, parseFloat64, formatFloatG } from '../strconv.js';

describe('conversion functions match Go + Sprig', () => {
  runCases(sprigFuncs(), [
    {
      t: '{{ atoi "42" }}|{{ atoi "x" }}|{{ atoi "-0" }}|{{ atoi "+12" }}|{{ atoi "0x1" }}|{{ atoi "1_0" }}|{{ atoi " 1" }}|{{ atoi "99999999999999999999" }}|{{ atoi "-99999999999999999999" }}|{{ typeOf (atoi "1") }}',
      want: '42|0|0|12|0|0|0|9223372036854775807|-9223372036854775808|int',
    },
    {
      t: '{{ int "0x10" }}|{{ int "0b101" }}|{{ int "010" }}|{{ int "0o17" }}|{{ int "1_000" }}|{{ int "-0x1F" }}|{{ int "1e3" }}|{{ int " 12" }}|{{ int (list 1) }}|{{ int 1.9 }}|{{ int true }}|{{ int nil }}|{{ typeOf (int "1") }}',
      want: '16|5|8|15|1000|-31|0|0|0|1|1|0|int',
    },
    {
      t: '{{ int64 "12.00" }}|{{ int64 "12.50" }}|{{ int64 "0.0" }}|{{ int64 "1." }}|{{ int64 "-12.000" }}|{{ int64 -1.9 }}|{{ int64 1e20 }}|{{ int64 "99999999999999999999" }}|{{ typeOf (int64 1) }}',
      want: '12|0|0|0|-12|-1|-9223372036854775808|0|int64',
    },
    {
      t: '{{ float64 "1.5" }}|{{ float64 "1e5" }}|{{ float64 "0x1p-2" }}|{{ float64 "inf" }}|{{ float64 "1_000" }}|{{ float64 "1e400" }}|{{ float64 " 1" }}|{{ float64 ".5" }}|{{ float64 "0x10" }}|{{ float64 true }}|{{ float64 (int64 3) }}|{{ typeOf (float64 1) }}',
      want: '1.5|100000|0.25|+Inf|1000|0|0|0.5|0|1|3|float64',
    },
    {
      t: '{{ toString 1.5 }}|{{ toString 1e6 }}|{{ toString 123456789.0 }}|{{ toString nil }}|{{ toString (list 1) }}|{{ toString (dict "a" 1) }}|{{ toString (int64 5) }}|{{ toString true }}',
      want: '1.5|1e+06|1.23456789e+08|<nil>|[1]|map[a:1]|5|true',
    },
    { t: '{{ toDecimal "0777" }}|{{ toDecimal 777 }}|{{ toDecimal "9" }}|{{ typeOf (toDecimal 1) }}', want: '511|511|0|int64' },
  ]);
});

describe('go-strconv', () => {
  test('ParseInt base 0 accepts what Go accepts and clamps out-of-range values', () => {
    assert.deepEqual(parseInt64('0x_1F', 0), { value: 31n, err: null });
    assert.deepEqual(parseInt64('1__0', 0), { value: 0n, err: 'syntax' });
    assert.deepEqual(parseInt64('9223372036854775808', 10), { value: 9223372036854775807n, err: 'range' });
    assert.deepEqual(parseInt64('-9223372036854775808', 10), { value: -9223372036854775808n, err: null });
  });
  test('ParseFloat rejects JS-only spellings', () => {
    for (const s of ['', ' 1', '1 ', 'Infinity1', '0x10', '1e', '.', '+-1', '1_']) assert.notEqual(parseFloat64(s).err, null, s);
    assert.equal(parseFloat64('Infinity').value, Infinity);
    assert.equal(parseFloat64('0x1.8p1').value, 3);
  });
  test("FormatFloat 'g' -1 round-trips every double (property)", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
        const s = formatFloatG(d, 64);
        assert.ok(Object.is(Number(s), d) || (d === 0 && Number(s) === 0), s);
        // Go uses an exponent from 1e+06 and below 1e-04, always with at least two exponent digits.
        if (/e/.test(s)) assert.match(s, /e[+-]\d\d/);
      }),
    );
  });
});
