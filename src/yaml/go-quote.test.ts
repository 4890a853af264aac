import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isBase60Float, isTimestamp, resolvesToString } from './go-quote.js';
import { misreadAsNonString, resolvePlain, STRING } from './resolve.js';

/** Strings made of the characters that matter to scalar resolution. */
const scalarish = fc.string({ unit: fc.constantFrom(...'0123456789._+-eExXoObB:aAfFyYnN~TZ '), maxLength: 12 });

describe('go-quote: the writer side of the one rule table', () => {
  it('writes plain exactly what go-yaml reads back as the same string, plus its own extra quoting', () => {
    for (const s of ['yes', 'on', 'N', '~', '', '<<', '0x1F', '0o17', '017', '1e3', '.5', '+1', '.inf', '.NaN', '-.Inf', '1_000'])
      assert.equal(resolvesToString(s), false, s);
    // go-yaml's emitter quotes these although its decoder keeps them as strings
    for (const s of ['2001-12-14', '2001-12-14T21:59:43.10-05:00', '0xFFFFFFFFFFFFFFFFFF']) {
      assert.equal(resolvePlain(s), STRING, s);
      assert.equal(resolvesToString(s), false, s);
    }
    assert.equal(isTimestamp('2001-02-29'), false); // not a date: stays plain
    assert.equal(resolvesToString('2001-02-29'), true);
    assert.equal(isBase60Float('1:20'), true);
    assert.equal(resolvesToString('1:20'), true);
    for (const s of ['oN', 'nULL', 'e3', '._5', '1e', 'abc', '1.2.3', '0xG', '-.NaN']) assert.equal(resolvesToString(s), true, s);
  });

  it('never writes plain what the reader types (property)', () => {
    fc.assert(
      fc.property(scalarish, (s) => {
        if (resolvesToString(s)) assert.equal(resolvePlain(s), STRING, s);
      }),
      { numRuns: 20_000 },
    );
  });

  it('the manifest writer quotes at least everything toYaml quotes (property)', () => {
    fc.assert(
      fc.property(scalarish, (s) => {
        if (!resolvesToString(s)) assert.equal(misreadAsNonString(s), true, s);
      }),
      { numRuns: 20_000 },
    );
  });
});
