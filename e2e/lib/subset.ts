/**
 * @module e2e/lib/subset
 * "The apiserver stored what we sent": every field we generated is present with the same value
 * in the stored object (which also carries defaults and server-set metadata we did not send).
 */
import assert from 'node:assert/strict';

export function assertSubset(stored: unknown, sent: unknown, path = ''): void {
  if (Array.isArray(sent)) {
    assert.ok(Array.isArray(stored), `${path}: expected a list, got ${JSON.stringify(stored)}`);
    assert.equal(stored.length, sent.length, `${path}: list length`);
    sent.forEach((v, i) => assertSubset(stored[i], v, `${path}[${i}]`));
  } else if (sent !== null && typeof sent === 'object') {
    assert.ok(stored !== null && typeof stored === 'object' && !Array.isArray(stored), `${path}: expected an object, got ${JSON.stringify(stored)}`);
    for (const [k, v] of Object.entries(sent)) assertSubset((stored as Record<string, unknown>)[k], v, `${path}.${k}`);
  } else {
    assert.deepEqual(stored, sent, `${path}: stored value`);
  }
}
