/** Go truthiness; expectations checked with Go 1.19 (`{{if .}}T{{else}}F{{end}}` over JSON values). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isTrue } from './truth.js';
import { GoNumber, goFunc } from './value.js';

test('JSON values: zero values, empty containers and nil are false', () => {
  const values = [0, 1, -0, 0.5, '', 'a', true, false, null, [], [0], {}, { a: null }, undefined];
  assert.equal(values.map((v) => (isTrue(v) ? 'T' : 'F')).join(''), 'FTFTFTTFFFTFTF');
});

test('Go-typed values', () => {
  assert.equal(isTrue(0n), false);
  assert.equal(isTrue(2n), true);
  assert.equal(isTrue(new GoNumber('int64', 0n)), false);
  assert.equal(isTrue(new GoNumber('float32', 0.5)), true);
  assert.equal(isTrue(Object.create(null)), false);
  assert.equal(isTrue(goFunc([], () => 1)), true);
});
