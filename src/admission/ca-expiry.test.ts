import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateCA, issueServingCert } from '../certs/create-certs.js';
import { servingCaNotAfter } from './ca-expiry.js';

test('the expiry of the CA that issued the leaf, also when a rollover bundle holds another CA first', async () => {
  const oldCa = await generateCA({ validityDays: 30 });
  const newCa = await generateCA({ validityDays: 3650 });
  const leaf = await issueServingCert(newCa, { dnsNames: ['svc.ns.svc'] });
  assert.equal(servingCaNotAfter(leaf.certPem, newCa.certPem)?.getTime(), Math.floor(newCa.notAfter.getTime() / 1000) * 1000);
  const bundle = `${oldCa.certPem}${newCa.certPem}`;
  assert.equal(servingCaNotAfter(leaf.certPem, bundle)?.getTime(), Math.floor(newCa.notAfter.getTime() / 1000) * 1000, 'not the old CA listed first');
  const oldLeaf = await issueServingCert(oldCa, { dnsNames: ['svc.ns.svc'] });
  assert.equal(servingCaNotAfter(oldLeaf.certPem, bundle)?.getTime(), Math.floor(oldCa.notAfter.getTime() / 1000) * 1000);
});

test('no answer when the CA text holds no issuer of the leaf or does not parse', async () => {
  const a = await generateCA();
  const b = await generateCA();
  const leaf = await issueServingCert(a, { ipAddresses: ['127.0.0.1'] });
  assert.equal(servingCaNotAfter(leaf.certPem, b.certPem), undefined);
  assert.equal(servingCaNotAfter(leaf.certPem, 'not pem'), undefined);
  assert.equal(servingCaNotAfter('garbage', a.certPem), undefined);
});
