/**
 * @module heal/rollout-settled.test
 * "Workloads still rolling out are left alone" (issue 27, item 9): a Deployment whose new
 * ReplicaSet has all its pods but whose old pods are still there (they wait for the new ones to
 * be ready) is still rolling out, as `kubectl rollout status` says; one whose pods are all from
 * the current template is settled, ready or not, so a first restart still happens.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rolloutInProgress } from './restart-workloads.js';

const deployment = (status: Record<string, number>, replicas = 2) => ({
  kind: 'Deployment',
  metadata: { name: 'web', generation: 3 },
  spec: { replicas },
  status: { observedGeneration: 3, ...status },
});

test('a restarted Deployment with its new pods created but old ones pending termination is still rolling out', () => {
  // What the controller reports after `restart` when the new pods never get ready (maxUnavailable 0, maxSurge 1 per step).
  assert.equal(rolloutInProgress(deployment({ replicas: 4, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 })), true);
  assert.equal(rolloutInProgress(deployment({ replicas: 3, updatedReplicas: 1 })), true);
});

test('a Deployment whose pods are all from the current template is settled, even with none ready', () => {
  assert.equal(rolloutInProgress(deployment({ replicas: 2, updatedReplicas: 2, readyReplicas: 0, availableReplicas: 0 })), false);
  assert.equal(rolloutInProgress(deployment({ replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 })), false);
});

test('a generation the controller has not observed yet is rolling out', () => {
  assert.equal(
    rolloutInProgress({ ...deployment({ replicas: 2, updatedReplicas: 2 }), status: { observedGeneration: 2, replicas: 2, updatedReplicas: 2 } }),
    true,
  );
});
