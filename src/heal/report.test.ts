import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { indexControllers, workloadOf, EMPTY_OWNER_INDEX } from './owners.js';
import { buildReport, formatTable, needsAttention } from './report.js';
import type { Classification } from './types.js';

const ref = (kind: string, name: string) => [
  { apiVersion: kind === 'Job' || kind === 'CronJob' ? 'batch/v1' : 'apps/v1', kind, name, uid: `${name}-uid`, controller: true },
];
const obj = (name: string, owners?: unknown[]) => ({ metadata: { name, namespace: 'shop', ...(owners ? { ownerReferences: owners } : {}) } });

describe('workloadOf', () => {
  const index = {
    replicaSets: indexControllers([obj('web-5d8f', ref('Deployment', 'web')), obj('orphan-rs')]),
    jobs: indexControllers([obj('nightly-29012345', ref('CronJob', 'nightly')), obj('once')]),
  };
  const pod = (owners?: unknown[]) => obj('p', owners);

  it('Deployment via its ReplicaSet, CronJob via its Job, the rest as themselves, bare pods as Pod', () => {
    assert.deepEqual(workloadOf(pod(ref('ReplicaSet', 'web-5d8f')), index), {
      kind: 'Deployment',
      name: 'web',
      namespace: 'shop',
      apiVersion: 'apps/v1',
      uid: 'web-uid',
    });
    assert.equal(workloadOf(pod(ref('ReplicaSet', 'orphan-rs')), index).kind, 'ReplicaSet');
    assert.deepEqual(workloadOf(pod(ref('Job', 'nightly-29012345')), index), {
      kind: 'CronJob',
      name: 'nightly',
      namespace: 'shop',
      apiVersion: 'batch/v1',
      uid: 'nightly-uid',
    });
    assert.equal(workloadOf(pod(ref('Job', 'once')), index).kind, 'Job');
    assert.equal(workloadOf(pod(ref('StatefulSet', 'db')), index).kind, 'StatefulSet');
    assert.equal(workloadOf(pod(ref('DaemonSet', 'agent')), index).kind, 'DaemonSet');
    assert.deepEqual(workloadOf(pod(), index), { kind: 'Pod', name: 'p', namespace: 'shop', apiVersion: 'v1' });
    // A non-controller owner does not make a workload.
    assert.equal(workloadOf(pod([{ kind: 'ReplicaSet', name: 'x', controller: false }]), index).kind, 'Pod');
    // An unknown ReplicaSet is reported as itself, not guessed from its name.
    assert.equal(workloadOf(pod(ref('ReplicaSet', 'web-5d8f')), EMPTY_OWNER_INDEX).kind, 'ReplicaSet');
  });
});

describe('buildReport and formatTable', () => {
  const c = (state: Classification['state'], reason = 'policy-enabled', detail?: string): Classification =>
    detail ? { state, reason, message: reason, changes: [{ what: 'image', detail }] } : { state, reason, message: reason };
  const web = { kind: 'Deployment', name: 'web', namespace: 'shop' };
  const db = { kind: 'StatefulSet', name: 'db', namespace: 'shop' };
  const bare = { kind: 'Pod', name: 'debug', namespace: 'shop' };

  it('groups by workload, takes the worst state, lists distinct changes, counts everything', () => {
    const report = buildReport([
      { name: 'web-1', workload: web, classification: c('stale', 'policy-enabled', 'containers/sidecar-proxy image a -> b') },
      { name: 'web-2', workload: web, classification: c('stale', 'policy-enabled', 'containers/sidecar-proxy image a -> b') },
      { name: 'web-3', workload: web, classification: { ...c('current'), revision: 'canary' } },
      { name: 'db-0', workload: db, classification: c('missing') },
      { name: 'debug', workload: bare, classification: c('skipped', 'explicit-disabled') },
    ]);
    assert.deepEqual(report.summary, { current: 1, stale: 2, missing: 1, skipped: 1, foreign: 0, pods: 5, workloads: 3 });
    assert.deepEqual(
      report.workloads.map((w) => [w.kind, w.state, w.details]),
      [
        ['Deployment', 'stale', ['containers/sidecar-proxy image a -> b']],
        ['Pod', 'skipped', ['explicit-disabled']],
        ['StatefulSet', 'missing', ['policy-enabled']],
      ],
    );
    assert.equal(needsAttention(report), true);
    const table = formatTable(report, false).split('\n');
    assert.match(table[0], /^WORKLOAD\s+PODS\s+CURRENT\s+STALE\s+MISSING\s+SKIPPED\s+FOREIGN\s+REVISION\s+STATE\s+DETAIL$/);
    assert.match(table[1], /^deployment\/web\s+3\s+1\s+2\s+0\s+0\s+0\s+canary\s+stale\s+containers\/sidecar-proxy image a -> b$/);
    assert.match(table[3], /^statefulset\/db\s+1\s+0\s+0\s+1\s+0\s+0\s+-\s+missing/, 'no revision: none injected');
    assert.deepEqual(report.workloads[0]!.revisions, ['canary']);
    assert.equal(report.workloads[0]!.pods.find((p) => p.name === 'web-3')!.revision, 'canary');
    assert.equal(table[0].indexOf('PODS'), table[1].indexOf('3'));
    assert.match(formatTable(report, true), /^NAMESPACE\s+WORKLOAD/);
  });

  it('all current or skipped needs no attention; no pods says so', () => {
    assert.equal(
      needsAttention(
        buildReport([
          { name: 'a', workload: web, classification: c('current') },
          { name: 'b', workload: bare, classification: c('skipped') },
        ]),
      ),
      false,
    );
    assert.match(formatTable(buildReport([]), false), /^No pods found\./);
  });
});
