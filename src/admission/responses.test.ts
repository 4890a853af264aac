import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { allowed, denied, errored, normalizeWarnings, patched, serializeReview, MAX_WARNING_LENGTH, MAX_WARNINGS_TOTAL } from './responses.js';

test('every constructor carries the uid, and allowed matches the intent', () => {
  const op = { op: 'add' as const, path: '/metadata/labels/x', value: 'y' };
  assert.deepEqual(allowed('u'), { uid: 'u', allowed: true });
  assert.equal(patched('u', [op]).uid, 'u');
  assert.equal(denied('u', 'no').uid, 'u');
  assert.equal(denied('u', 'no').allowed, false);
  assert.equal(errored('u', 500, 'bug').uid, 'u');
  assert.equal(errored('u', 500, 'bug').status?.reason, 'InternalError');
});

test('a patch is base64 of the JSON array with patchType JSONPatch; an empty patch sends none', () => {
  const ops = [{ op: 'add' as const, path: '/a~1b', value: { x: 1 } }];
  const r = patched('u', ops);
  assert.equal(r.patchType, 'JSONPatch');
  assert.deepEqual(JSON.parse(Buffer.from(r.patch as string, 'base64').toString()), ops);
  const none = patched('u', []);
  assert.equal(none.patch, undefined);
  assert.equal(none.patchType, undefined);
});

test('denial defaults to 403 Forbidden and long messages are clipped', () => {
  const r = denied('u', 'x'.repeat(10_000));
  assert.equal(r.status?.code, 403);
  assert.equal(r.status?.status, 'Failure');
  assert.ok((r.status?.message.length ?? 0) <= 1024);
});

test('the envelope echoes the request version', () => {
  const body = JSON.parse(serializeReview('admission.k8s.io/v1beta1', allowed('u')));
  assert.deepEqual(body, { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { uid: 'u', allowed: true } });
});

test('warnings lose the "Warning:" prefix and control characters, and are deduplicated', () => {
  assert.deepEqual(normalizeWarnings(['Warning: a', 'a', 'line\none\u0000two', '   ']), ['a', 'line one two']);
  assert.equal(normalizeWarnings([]), undefined);
});

test('property: any warnings list is cut to short, printable, bounded entries', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ maxLength: 400, unit: 'binary' }), { maxLength: 40 }), (list) => {
      const out = normalizeWarnings(list) ?? [];
      let total = 0;
      for (const w of out) {
        assert.ok(w.length > 0 && w.length <= MAX_WARNING_LENGTH);
        assert.doesNotMatch(w, /[\u0000-\u001f\u007f-\u009f]/);
        assert.doesNotMatch(w, /^warning:/i);
        total += w.length;
      }
      assert.ok(total <= MAX_WARNINGS_TOTAL);
      assert.equal(new Set(out).size, out.length);
    }),
  );
});
