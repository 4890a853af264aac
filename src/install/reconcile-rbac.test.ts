import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { generateInstall } from './build-manifests.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- generated objects are loose JSON */
type Obj = Record<string, any>;

async function objects(request: Parameters<typeof generateInstall>[0]): Promise<Obj[]> {
  return parseAllDocuments((await generateInstall(request)).yaml).map((d) => d.toJS() as Obj);
}

describe('manifests --reconcile', () => {
  it('is off by default: no reconcile RBAC, no flag', async () => {
    const docs = await objects({});
    assert.ok(!docs.some((d) => String(d.metadata?.name).endsWith('-reconcile')));
    assert.ok(!docs.find((d) => d.kind === 'Deployment')!.spec.template.spec.containers[0].args.includes('--reconcile'));
  });

  it('adds least-privilege RBAC: read pods/namespaces/ReplicaSets/Jobs, get its own webhook configuration, create Events, one Lease', async () => {
    const docs = await objects({ reconcile: true });
    const role = docs.find((d) => d.kind === 'ClusterRole' && d.metadata.name === 'sidecar-injector-reconcile')!;
    assert.deepEqual(role.rules, [
      { apiGroups: [''], resources: ['pods', 'namespaces'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['admissionregistration.k8s.io'], resources: ['mutatingwebhookconfigurations'], verbs: ['get'], resourceNames: ['sidecar-injector'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create'] },
    ]);
    const lease = docs.find((d) => d.kind === 'Role' && d.metadata.name === 'sidecar-injector-reconcile')!;
    assert.equal(lease.metadata.namespace, 'sidecar-injector');
    assert.deepEqual(lease.rules[1], {
      apiGroups: ['coordination.k8s.io'],
      resources: ['leases'],
      verbs: ['get', 'update'],
      resourceNames: ['sidecar-injector-reconcile'],
    });
    for (const kind of ['ClusterRoleBinding', 'RoleBinding']) {
      const b = docs.find((d) => d.kind === kind && d.metadata.name === 'sidecar-injector-reconcile')!;
      assert.deepEqual(b.subjects, [{ kind: 'ServiceAccount', name: 'sidecar-injector', namespace: 'sidecar-injector' }]);
    }
    const pod = docs.find((d) => d.kind === 'Deployment')!.spec.template.spec;
    assert.equal(pod.automountServiceAccountToken, true);
    assert.ok(pod.containers[0].args.includes('--reconcile'));
    assert.ok(!pod.containers[0].args.includes('--reconcile-restart'));
  });

  it('--reconcile-restart implies --reconcile and adds get/patch on the three restartable kinds only', async () => {
    const docs = await objects({ reconcileRestart: true, caBundleReconcile: false, certMode: 'generate' });
    const role = docs.find((d) => d.kind === 'ClusterRole' && d.metadata.name === 'sidecar-injector-reconcile')!;
    assert.deepEqual(role.rules.at(-1), { apiGroups: ['apps'], resources: ['deployments', 'statefulsets', 'daemonsets'], verbs: ['get', 'patch'] });
    const pod = docs.find((d) => d.kind === 'Deployment')!.spec.template.spec;
    assert.equal(pod.automountServiceAccountToken, true, 'the token is mounted even without the caBundle reconciler');
    assert.ok(pod.containers[0].args.includes('--reconcile-restart'));
  });

  it('refuses URL mode (no Deployment to run in)', async () => {
    await assert.rejects(generateInstall({ reconcile: true, webhookUrl: 'https://127.0.0.1:9443' }), /--webhook-url and --reconcile/);
  });
});
