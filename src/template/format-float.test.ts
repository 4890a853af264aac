import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatFloat } from './format-float.js';

describe('formatFloat', () => {
  // Positional notation of the shortest %e digits (the %e path computes them the long way).
  const positional = (v: number): string => {
    const e = formatFloat(v, 'e', -1);
    const [mantissa, exp] = e.split('e') as [string, string];
    const neg = mantissa.startsWith('-');
    const digits = mantissa.replace('-', '').replace('.', '');
    const dp = Number(exp) + 1;
    let out: string;
    if (dp <= 0) out = `0.${'0'.repeat(-dp)}${digits}`;
    else if (dp >= digits.length) out = digits + '0'.repeat(dp - digits.length);
    else out = `${digits.slice(0, dp)}.${digits.slice(dp)}`;
    return (neg ? '-' : '') + out;
  };

  it('shortest %g (1e-4 to 1e6) and %f (1e-6 to 1e21) of a float64, the String fast path, are the shortest %e digits written out', () => {
    // Deterministic pseudo-random doubles over the fast paths' ranges, plus their edges.
    let seed = 0x2545f491;
    const next = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    const values = [
      1e-6,
      1e-4,
      0.0001000001,
      999999.9999999999,
      999999,
      1,
      0.1,
      0.3,
      15090,
      2.5,
      123456.7,
      1e20,
      9.999999999999999e20,
      2 ** 53 + 2,
      1e15 + 0.5,
    ];
    for (let i = 0; i < 3000; i++) {
      const magnitude = 10 ** (Math.floor(next() * 28) - 6);
      values.push(next() * magnitude, Math.round(next() * magnitude), -next() * magnitude);
    }
    for (const v of values) {
      const abs = Math.abs(v);
      if (abs >= 1e-6 && abs < 1e21) assert.equal(formatFloat(v, 'f', -1), positional(v), `%f of ${v}`);
      if (abs >= 1e-4 && abs < 1e6) {
        assert.equal(formatFloat(v, 'g', -1), positional(v), `%g of ${v}`);
        assert.equal(formatFloat(v, 'G', -1), positional(v), `%G of ${v}`);
      }
    }
  });

  it("outside those ranges and for float32, the long way: Go's exponent form, -0", () => {
    assert.equal(formatFloat(1e6, 'g', -1), '1e+06');
    assert.equal(formatFloat(0.00009, 'g', -1), '9e-05');
    assert.equal(formatFloat(1234567, 'G', -1), '1.234567E+06');
    assert.equal(formatFloat(Math.fround(0.1), 'g', -1, 32), '0.1');
    assert.equal(formatFloat(-0, 'g', -1), '-0');
    assert.equal(formatFloat(0, 'g', -1), '0');
    assert.equal(formatFloat(-0, 'f', -1), '-0');
    assert.equal(formatFloat(1e21, 'f', -1), '1000000000000000000000');
    assert.equal(formatFloat(1.5e-7, 'f', -1), '0.00000015');
  });
});
