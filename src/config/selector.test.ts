import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ConfigIssue } from './issues.js';
import { labelValueError, qualifiedNameError } from './k8s-names.js';
import { compileSelector, parseLabelSelector, selectorMatches, type LabelSelector } from './selector.js';

const labels = (o: Record<string, string>) => new Map(Object.entries(o));
const matches = (s: LabelSelector, l: Record<string, string>) => selectorMatches(compileSelector(s), labels(l));

describe('Kubernetes label syntax', () => {
  it('accepts prefixed and plain keys, rejects the classic mistakes', () => {
    for (const ok of ['app', 'sidecar.istio.io/inject', 'a_b.c-d', 'A1', 'x'.repeat(63), `${'a'.repeat(253)}/n`])
      assert.equal(qualifiedNameError(ok), undefined, ok);
    for (const bad of ['', '-app', 'app-', 'a/b/c', '/app', 'Example.com/app', 'example.com/', 'has space', 'x'.repeat(64), `${'a'.repeat(254)}/n`]) {
      assert.ok(qualifiedNameError(bad), bad);
    }
  });
  it('accepts empty and 63-char label values, rejects others', () => {
    assert.equal(labelValueError(''), undefined);
    assert.equal(labelValueError('v1.2_beta-3'), undefined);
    for (const bad of ['-x', 'x-', 'a b', 'a/b', 'x'.repeat(64)]) assert.ok(labelValueError(bad), bad);
  });
});

describe('selector matching', () => {
  it('implements In, NotIn, Exists, DoesNotExist and ANDs requirements', () => {
    const inSel = { matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'b'] }] };
    assert.equal(matches(inSel, { app: 'b' }), true);
    assert.equal(matches(inSel, { app: 'c' }), false);
    assert.equal(matches(inSel, {}), false, 'In needs the key');
    const notIn = { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['fe'] }] };
    assert.equal(matches(notIn, {}), true, 'NotIn matches an absent key');
    assert.equal(matches(notIn, { tier: 'fe' }), false);
    assert.equal(matches({ matchExpressions: [{ key: 'foo', operator: 'Exists' }] }, { foo: '' }), true, 'Exists matches an empty value');
    assert.equal(matches({ matchExpressions: [{ key: 'foo', operator: 'DoesNotExist' }] }, { foo: 'x' }), false);
    const both = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'v', operator: 'In', values: ['2'] }] };
    assert.equal(matches(both, { app: 'web', v: '2' }), true);
    assert.equal(matches(both, { app: 'web', v: '1' }), false);
  });

  it('marks empty, nil and invalid selectors, which never match', () => {
    assert.equal(compileSelector({}).state, 'empty');
    assert.equal(compileSelector({ matchLabels: {}, matchExpressions: [] }).state, 'empty');
    assert.equal(compileSelector(null).state, 'nothing');
    const cases: [LabelSelector, RegExp][] = [
      [{ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, /matchExpressions\[0\]\.values: operator In needs at least one value/],
      [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, /takes no values/],
      [{ matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] }, /"in" is not a valid operator \(did you mean "In"\?\)/],
      [{ matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] }, /not a valid operator/],
      [{ matchLabels: { 'bad key': 'x' } }, /invalid label key/],
      [{ matchLabels: { app: 'has space' } }, /invalid label value/],
      [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['ok', '-bad'] }] }, /values\[1\]: invalid label value/],
    ];
    for (const [sel, re] of cases) {
      const c = compileSelector(sel, 'neverInjectSelector[2]');
      assert.equal(c.state, 'invalid');
      assert.match(c.error ?? '', /^neverInjectSelector\[2\]/);
      assert.match(c.error ?? '', re);
      assert.equal(selectorMatches(c, labels({ a: 'x', app: 'x' })), false);
    }
  });

  it('prints the Kubernetes string form, sorted by key', () => {
    const c = compileSelector({
      matchLabels: { z: '1' },
      matchExpressions: [
        { key: 'a', operator: 'NotIn', values: ['y', 'x'] },
        { key: 'm', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(c.text, 'a notin (x,y),!m,z=1');
  });

  it('NotIn is the negation of In, and DoesNotExist of Exists (property)', () => {
    const key = fc.constantFrom('a', 'b', 'c');
    const val = fc.constantFrom('x', 'y', 'z', '');
    fc.assert(
      fc.property(fc.dictionary(key, val), key, fc.uniqueArray(fc.constantFrom('x', 'y', 'z'), { minLength: 1 }), (l, k, values) => {
        const m = (operator: string, v?: string[]) => matches({ matchExpressions: [{ key: k, operator, ...(v ? { values: v } : {}) }] }, l);
        assert.equal(m('NotIn', values), !m('In', values));
        assert.equal(m('DoesNotExist'), !m('Exists'));
        // matchLabels k=v is In with one value.
        assert.equal(matches({ matchLabels: { [k]: values[0] } }, l), m('In', [values[0]]));
      }),
    );
  });
});

describe('selector shape', () => {
  it('reports wrong types and unknown keys with their key path', () => {
    const issues: ConfigIssue[] = [];
    const raw = { matchLabel: { a: 'b' }, matchExpressions: [{ key: 'a', operator: 'In', values: [1] }, 'x'] };
    assert.equal(parseLabelSelector(raw, 'alwaysInjectSelector[0]', issues), undefined);
    const text = issues.map((i) => `${i.path}: ${i.message}`).join('\n');
    assert.match(text, /alwaysInjectSelector\[0\]\.matchLabel: unknown key "matchLabel" \(did you mean "matchLabels"\?\)/);
    assert.match(text, /alwaysInjectSelector\[0\]\.matchExpressions\[0\]\.values\[0\]: must be a string, got a number \(1\); quote/);
    assert.match(text, /matchExpressions\[1\]: must be a map/);
  });
  it('gives a quoting hint for YAML 1.1 booleans in matchLabels', () => {
    const issues: ConfigIssue[] = [];
    parseLabelSelector({ matchLabels: { legacy: true } }, 's', issues);
    assert.match(issues[0].message, /got a boolean \(true\); quote the value/);
  });
});
