import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatFloat } from './format-float.js';

describe('formatFloat', () => {
  it('shortest %g of a float64 between 1e-4 and 1e6 (the String fast path) is the shortest %f, computed the long way', () => {
    // Deterministic pseudo-random doubles over the fast path's range, plus its edges.
    let seed = 0x2545f491;
    const next = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    const values = [1e-4, 0.0001000001, 999999.9999999999, 999999, 1, 0.1, 0.3, 15090, 2.5, 123456.7];
    for (let i = 0; i < 3000; i++) {
      const magnitude = 10 ** (Math.floor(next() * 10) - 4);
      values.push(next() * magnitude, Math.round(next() * magnitude), -next() * magnitude);
    }
    for (const v of values) {
      if (Math.abs(v) < 1e-4 || Math.abs(v) >= 1e6) continue;
      assert.equal(formatFloat(v, 'g', -1), formatFloat(v, 'f', -1), `%g of ${v}`);
      assert.equal(formatFloat(v, 'G', -1), formatFloat(v, 'f', -1), `%G of ${v}`);
    }
  });

  it('outside that range and for float32, %g keeps Go\'s exponent form', () => {
    assert.equal(formatFloat(1e6, 'g', -1), '1e+06');
    assert.equal(formatFloat(0.00009, 'g', -1), '9e-05');
    assert.equal(formatFloat(1234567, 'G', -1), '1.234567E+06');
    assert.equal(formatFloat(Math.fround(0.1), 'g', -1, 32), '0.1');
    assert.equal(formatFloat(-0, 'g', -1), '-0');
    assert.equal(formatFloat(0, 'g', -1), '0');
  });
});
