import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InjectorError } from '../errors.js';
import { escapePointerToken, formatPointer, parsePointer, unescapePointerToken } from './json-pointer.js';

test('annotation keys with "/" and "~" are escaped as RFC 6901 requires', () => {
  assert.equal(escapePointerToken('sidecar.istio.io/status'), 'sidecar.istio.io~1status');
  assert.equal(escapePointerToken('a~b'), 'a~0b');
  // "~" is escaped first, so a literal "~1" does not turn into "/".
  assert.equal(escapePointerToken('~1'), '~01');
  assert.equal(formatPointer(['metadata', 'annotations', 'sidecar.istio.io/status']), '/metadata/annotations/sidecar.istio.io~1status');
  assert.equal(formatPointer([]), '');
});

test('parsePointer decodes ~1 before ~0 and keeps empty tokens', () => {
  assert.deepEqual(parsePointer('/a~01/b~1c'), ['a~1', 'b/c']);
  assert.deepEqual(parsePointer(''), []);
  assert.deepEqual(parsePointer('/'), ['']);
  assert.deepEqual(parsePointer('/a//b'), ['a', '', 'b']);
});

test('malformed pointers are SI_PATCH errors that quote the pointer', () => {
  for (const bad of ['a/b', '/a~2', '/a~']) {
    assert.throws(
      () => parsePointer(bad),
      (err: unknown) => err instanceof InjectorError && err.code === 'SI_PATCH' && err.message.includes(JSON.stringify(bad)),
    );
  }
});

test('format and parse are inverses for any tokens', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', '/', '~', '0', '1', 'é') })), (tokens) => {
      assert.deepEqual(parsePointer(formatPointer(tokens)), tokens);
      for (const t of tokens) assert.equal(unescapePointerToken(escapePointerToken(t)), t);
    }),
  );
});
