import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ObjectMeta, Pod } from '../inject/pod-types.js';
import { deployMetaOf } from './deploy-meta.js';

const pod = (meta: ObjectMeta): Pod => ({ metadata: meta, spec: { containers: [] } });
const owner = (kind: string, name: string, apiVersion = 'apps/v1') => [{ apiVersion, kind, name, uid: 'u', controller: true }];

describe("deployMetaOf (Istio's GetDeployMetaFromPod)", () => {
  it('uses the workload given by the caller', () => {
    assert.deepEqual(deployMetaOf(pod({}), 'ns', { kind: 'StatefulSet', name: 'db', apiVersion: 'apps/v1' }), {
      typeMeta: { kind: 'StatefulSet', apiVersion: 'apps/v1' },
      deployMeta: { name: 'db', namespace: 'ns' },
    });
  });

  it('ReplicaSet x-<hash> with the pod-template-hash label is Deployment x', () => {
    const m = deployMetaOf(
      pod({ generateName: 'web-5d4f-', labels: { 'pod-template-hash': '5d4f' }, ownerReferences: owner('ReplicaSet', 'web-5d4f') }),
      'ns',
      undefined,
    );
    assert.deepEqual(m, { typeMeta: { kind: 'Deployment', apiVersion: 'apps/v1' }, deployMeta: { name: 'web', namespace: 'ns' } });
  });

  it('Job x-<8..10 digits> is CronJob x (batch/v1); other Jobs stay Jobs', () => {
    assert.deepEqual(
      deployMetaOf(pod({ generateName: 'r-', ownerReferences: owner('Job', 'report-28391234', 'batch/v1') }), 'ns', undefined).deployMeta.name,
      'report',
    );
    assert.deepEqual(deployMetaOf(pod({ generateName: 'r-', ownerReferences: owner('Job', 'report-28391234', 'batch/v1') }), 'ns', undefined).typeMeta, {
      kind: 'CronJob',
      apiVersion: 'batch/v1',
    });
    assert.deepEqual(deployMetaOf(pod({ generateName: 'r-', ownerReferences: owner('Job', 'once', 'batch/v1') }), 'ns', undefined).typeMeta.kind, 'Job');
  });

  it('a ReplicationController of a DeploymentConfig; Argo Rollouts', () => {
    assert.equal(
      deployMetaOf(
        pod({ generateName: 'a-', labels: { deploymentconfig: 'dc' }, ownerReferences: owner('ReplicationController', 'dc-1', 'v1') }),
        '',
        undefined,
      ).deployMeta.name,
      'dc',
    );
    const r = deployMetaOf(
      pod({ generateName: 'a-', labels: { 'rollouts-pod-template-hash': 'abc' }, ownerReferences: owner('ReplicaSet', 'ro-abc', 'apps/v1') }),
      '',
      undefined,
    );
    assert.deepEqual(r.typeMeta, { kind: 'Rollout', apiVersion: 'v1alpha1' });
  });

  it('named pods are their own workload; a pod with only generateName and no controller is named after it', () => {
    assert.deepEqual(deployMetaOf(pod({ name: 'solo', ownerReferences: owner('ReplicaSet', 'x') }), 'ns', undefined).deployMeta.name, 'solo');
    assert.deepEqual(deployMetaOf(pod({ generateName: 'batch-' }), 'ns', undefined), {
      typeMeta: { kind: 'Pod', apiVersion: 'v1' },
      deployMeta: { name: 'batch', namespace: 'ns' },
    });
  });
});
