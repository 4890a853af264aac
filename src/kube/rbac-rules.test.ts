import { test } from 'node:test';
import assert from 'node:assert/strict';
import { caBundleRules, grantText, leaderLeaseRules, podReconcilerRules, tlsSecretRules } from './rbac-rules.js';

test('each grant the install writes is named exactly in the 403 hint', () => {
  assert.equal(grantText(caBundleRules('inj')), 'get and patch on mutatingwebhookconfigurations/inj');
  assert.equal(grantText(tlsSecretRules('inj-certs', true)), 'get and update on secrets/inj-certs');
  assert.equal(grantText(tlsSecretRules('inj-certs', false)), 'get on secrets/inj-certs');
  assert.equal(grantText(leaderLeaseRules('inj-reconcile')), 'create on leases');
});

test('the pod reconciler may restart workloads only when asked to', () => {
  const patches = (rules: ReturnType<typeof podReconcilerRules>) => rules.filter((r) => r.verbs.includes('patch')).flatMap((r) => r.resources);
  assert.deepEqual(patches(podReconcilerRules('inj', false)), []);
  assert.deepEqual(patches(podReconcilerRules('inj', true)), ['deployments', 'statefulsets', 'daemonsets']);
  const mwc = podReconcilerRules('inj', false).find((r) => r.resources.includes('mutatingwebhookconfigurations'));
  assert.deepEqual(mwc, { apiGroups: ['admissionregistration.k8s.io'], resources: ['mutatingwebhookconfigurations'], verbs: ['get'], resourceNames: ['inj'] });
});
