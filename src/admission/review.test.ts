import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeReview, MAX_UID_LENGTH } from './review.js';
import { podReview, samplePod } from '../../test/support/review-fixtures.js';

const enc = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

test('v1 and v1beta1 reviews decode with their version and request fields', () => {
  for (const apiVersion of ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1']) {
    const r = decodeReview(enc(podReview(samplePod(), { apiVersion, uid: 'u-1', dryRun: true })));
    assert.ok(r.ok);
    assert.equal(r.review.apiVersion, apiVersion);
    assert.equal(r.review.request.uid, 'u-1');
    assert.equal(r.review.request.operation, 'CREATE');
    assert.equal(r.review.request.namespace, 'shop');
    assert.equal(r.review.request.dryRun, true);
    assert.deepEqual(r.review.request.kind, { group: '', version: 'v1', kind: 'Pod' });
  }
});

test('reviews the webhook cannot answer are 400 with a message naming the field', () => {
  const base = podReview(samplePod());
  const req = base.request as Record<string, unknown>;
  const cases: [unknown, RegExp][] = [
    [[1, 2], /AdmissionReview object/],
    [{ ...base, apiVersion: 'admission.k8s.io/v2' }, /unsupported apiVersion "admission.k8s.io\/v2"/],
    [{ ...base, kind: 'Pod' }, /kind must be "AdmissionReview"/],
    [{ ...base, request: null }, /request must be an object, got null/],
    [{ ...base, request: { ...req, uid: undefined } }, /request.uid must be a non-empty string, got nothing/],
    [{ ...base, request: { ...req, uid: 42 } }, /request.uid must be a non-empty string, got 42/],
    [{ ...base, request: { ...req, uid: 'x'.repeat(10_000) } }, new RegExp(`limit is ${MAX_UID_LENGTH}`)],
    [{ ...base, request: { ...req, kind: 'Pod' } }, /request.kind must be an object/],
    [{ ...base, request: { ...req, operation: 7 } }, /request.operation must be a string/],
    [{ ...base, request: { ...req, namespace: {} } }, /request.namespace must be a string/],
    [{ ...base, request: { ...req, dryRun: 'yes' } }, /request.dryRun must be a boolean/],
  ];
  for (const [value, re] of cases) {
    const r = decodeReview(enc(value));
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.error.httpStatus, 400);
      assert.match(r.error.message, re);
      assert.ok(r.error.message.length < 300, 'messages stay short even for huge inputs');
    }
  }
});

test('once the uid is readable, a refusal still names it (for logs)', () => {
  const base = podReview(samplePod(), { uid: 'known-uid' });
  const r = decodeReview(enc({ ...base, request: { ...(base.request as object), operation: null } }));
  assert.equal(r.ok, false);
  if (!r.ok) assert.equal(r.uid, 'known-uid');
});

test('the uid limit is 128 characters: 128 is accepted, 129 refused (literal numbers, not the constant)', () => {
  const withUid = (uid: string) => decodeReview(enc(podReview(samplePod(), { uid })));
  const ok = withUid('u'.repeat(128));
  assert.equal(ok.ok, true);
  if (ok.ok) assert.equal(ok.review.request.uid.length, 128);
  const over = withUid('u'.repeat(129));
  assert.equal(over.ok, false);
  if (!over.ok) assert.match(over.error.message, /request\.uid is 129 characters long; the limit is 128/);
});

test('a user string echoed in a refusal is quoted ASCII-only and clipped', () => {
  const base = podReview(samplePod());
  const r = decodeReview(enc({ ...base, apiVersion: `é\n${'x'.repeat(500)}` }));
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.match(r.error.message, /^unsupported apiVersion "\\u00e9\\nx+\.\.\."/);
    assert.match(r.error.message, /^[\x20-\x7e]*$/);
  }
});
