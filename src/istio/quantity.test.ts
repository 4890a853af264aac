import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalQuantity } from './quantity.js';

describe('canonicalQuantity', () => {
  it('writes quantities as Go marshals them', () => {
    const cases: [string, string][] = [
      ['2000m', '2'],
      ['100m', '100m'],
      ['1500m', '1500m'],
      ['0.5', '500m'],
      ['1024Mi', '1Gi'],
      ['1536Mi', '1536Mi'],
      ['128Mi', '128Mi'],
      ['1000', '1k'],
      ['0', '0'],
      ['0m', '0'],
      ['1', '1'],
      ['1e3', '1e3'],
      ['abc', 'abc'],
    ];
    for (const [input, want] of cases) assert.equal(canonicalQuantity(input), want, input);
  });
});
