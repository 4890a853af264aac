import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { generateCA, type CertificateAuthority } from './create-certs.js';
import { caBundleFor, planCaBundle } from './ca-bundle.js';
import { decodeCertificates } from './pem.js';

const DAY = 86_400_000;
const b64 = (text: string) => Buffer.from(text).toString('base64');
const pemsOf = (bundle: string) => decodeCertificates(Buffer.from(bundle, 'base64').toString()).map((d) => d.toString('base64'));
const derOf = (ca: CertificateAuthority) => decodeCertificates(ca.certPem)[0].toString('base64');

// A pool of CAs: three live ones issued on different days, two already expired.
const pool = (async () => {
  const now = Date.now();
  const live = await Promise.all([0, 1, 2].map((i) => generateCA({ validityDays: 365, now: new Date(now - i * DAY) })));
  const expired = await Promise.all([0, 1].map((i) => generateCA({ validityDays: 1, now: new Date(now - (10 + i) * DAY) })));
  return { live, expired };
})();

test('caBundleFor is base64 of the concatenated PEMs, deduplicated, in order', async () => {
  const { live } = await pool;
  const bundle = caBundleFor([live[0].certPem, live[1].certPem + live[0].certPem]);
  assert.deepEqual(pemsOf(bundle), [derOf(live[0]), derOf(live[1])]);
  assert.equal(Buffer.from(caBundleFor(live[0].certPem), 'base64').toString(), live[0].certPem);
  assert.throws(() => caBundleFor('nothing here'), /no "BEGIN CERTIFICATE"/);
});

test('first patch: an empty bundle becomes the current CA', async () => {
  const { live } = await pool;
  const plan = planCaBundle({ current: [live[0].certPem] });
  assert.equal(plan.unchanged, false);
  assert.deepEqual(pemsOf(plan.bundle), [derOf(live[0])]);
});

test('rollover: the old CA stays after the new one while unexpired; expired CAs and garbage go', async () => {
  const { live, expired } = await pool;
  const existing = b64(live[1].certPem + expired[0].certPem + '-----BEGIN CERTIFICATE-----\n%%%%\n-----END CERTIFICATE-----\n');
  const plan = planCaBundle({ current: [live[0].certPem], existing });
  assert.deepEqual(pemsOf(plan.bundle), [derOf(live[0]), derOf(live[1])]);
  assert.equal(plan.retained, 1);
  assert.equal(plan.expired, 1);
  assert.equal(plan.unreadable, 1);
  assert.equal(plan.unchanged, false);
  // Once the old CA has expired it is dropped.
  const later = planCaBundle({ current: [live[0].certPem], existing: plan.bundle, now: new Date(live[1].notAfter.getTime() + 1000) });
  assert.deepEqual(pemsOf(later.bundle), [derOf(live[0])]);
});

test('an expired current CA is left out; if nothing usable remains the bundle is empty', async () => {
  const { expired } = await pool;
  const plan = planCaBundle({ current: [expired[0].certPem] });
  assert.equal(plan.bundle, '');
  assert.equal(plan.certificates.length, 0);
  assert.equal(plan.unchanged, false);
});

test('maxCAs keeps the current CAs and the newest old ones', async () => {
  const { live } = await pool;
  const plan = planCaBundle({ current: [live[2].certPem], existing: b64(live[2].certPem + live[1].certPem + live[0].certPem), maxCAs: 2 });
  assert.deepEqual(pemsOf(plan.bundle), [derOf(live[2]), derOf(live[0])], 'live[0] is the newest');
  assert.equal(plan.overLimit, 1);
});

test('property: current CAs always present, nothing expired, no duplicates, order-insensitive, and a fixed point', async () => {
  const { live, expired } = await pool;
  const all = [...live, ...expired];
  await fc.assert(
    fc.asyncProperty(
      fc.subarray([0, 1, 2], { minLength: 1 }),
      fc.array(fc.integer({ min: 0, max: all.length - 1 }), { maxLength: 8 }),
      async (currentIdx, existingIdx) => {
        const current = currentIdx.map((i) => live[i].certPem);
        const existingPems = existingIdx.map((i) => all[i].certPem);
        const plan = planCaBundle({ current, existing: existingPems.length ? b64(existingPems.join('')) : undefined });
        const got = pemsOf(plan.bundle);
        assert.equal(new Set(got).size, got.length, 'no duplicates');
        assert.deepEqual(
          got.slice(0, currentIdx.length),
          currentIdx.map((i) => derOf(live[i])),
          'current CAs first, in order',
        );
        for (const e of expired) assert.ok(!got.includes(derOf(e)), 'no expired CA');
        for (const i of existingIdx) if (i < live.length) assert.ok(got.includes(derOf(live[i])), 'unexpired existing CA kept');
        // Planning again from the result changes nothing, whatever the order of the existing bundle.
        const again = planCaBundle({ current, existing: plan.bundle });
        assert.equal(again.unchanged, true);
        const reversed = planCaBundle({
          current,
          existing: b64(
            plan.certificates
              .map((c) => c.pem)
              .reverse()
              .join(''),
          ),
        });
        assert.equal(reversed.unchanged, true, 'same set in another order is not a change');
      },
    ),
    { numRuns: 100 },
  );
});
