import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setOwn } from './own.js';

test('setOwn writes __proto__ as data and leaves the prototype alone', () => {
  const o: Record<string, unknown> = {};
  setOwn(o, '__proto__', { polluted: true });
  assert.equal(Object.getPrototypeOf(o), Object.prototype);
  assert.deepEqual(Object.keys(o), ['__proto__']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(JSON.stringify(o), '{"__proto__":{"polluted":true}}');
});

test('setOwn writes an ordinary key like an assignment', () => {
  const o: Record<string, unknown> = { a: 1 };
  setOwn(o, 'a', 2);
  setOwn(o, 'constructor', 'x');
  assert.deepEqual(o, { a: 2, constructor: 'x' });
});
