/**
 * `rollout` (plan and run) against a simulated cluster whose webhook configurations are the ones
 * `manifests` writes, and whose pods are injected by whichever configuration the namespace's
 * labels select at creation (testing/fake-revision-cluster). Readiness there is simulated; the
 * e2e scenario 32 proves the same on a node whose pods run.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ISTIO_INJECTION_KEYS } from '../config/istio-names.js';
import { generateInstall, type InstallRequest } from '../install/build-manifests.js';
import { fakeRevisionCluster, type FakeRevisionCluster } from '../../test/support/fake-revision-cluster.js';
import { formatPlan, formatResults } from './rollout-format.js';
import { planRollout, type RolloutRequest } from './rollout-plan.js';
import { executeRollout, type NamespaceResult } from './run.js';
import { MOVE_ANNOTATION } from './targets.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- loose JSON objects

const keys = ISTIO_INJECTION_KEYS;
const ON_DEFAULT = { 'istio-injection': 'enabled' };
let dir: string;
let defaultMwc: Obj;
let canaryMwc: Obj;
let prodTag: Obj;
let defaultTag: Obj;

async function mwcs(request: InstallRequest): Promise<Obj[]> {
  const r = await generateInstall({ webhookUrl: 'https://127.0.0.1:9443', certsDir: join(dir, request.revision ?? 'default'), ...request });
  return r.objects as unknown as Obj[];
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'si-rollout-'));
  [defaultMwc] = await mwcs({});
  [canaryMwc, prodTag, defaultTag] = await mwcs({ revision: 'canary', tags: ['prod', 'default'] });
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function cluster(
  namespaces: Record<string, Record<string, string>> = { a: ON_DEFAULT, b: ON_DEFAULT, c: ON_DEFAULT },
  configs = [defaultMwc, canaryMwc, prodTag],
): FakeRevisionCluster {
  return fakeRevisionCluster(configs, namespaces, ['web', 'api']);
}

const request = (r: Partial<RolloutRequest>): RolloutRequest => ({
  keys,
  statusKey: keys.status,
  undo: false,
  all: false,
  now: new Date('2026-11-30T10:00:00Z'),
  ...r,
});
const options = { batchSize: 1, maxInFlight: 1, intervalMs: 0, timeoutMs: 300, pollMs: 1 };

async function run(c: FakeRevisionCluster, r: Partial<RolloutRequest>, opts = options): Promise<{ results: NamespaceResult[]; log: string[] }> {
  const log: string[] = [];
  const moves = await planRollout(c.api, request(r));
  const results = await executeRollout(moves, opts, {
    api: c.api,
    statusKey: keys.status,
    now: () => new Date(),
    sleep: (ms) => new Promise((res) => setTimeout(res, ms)),
    log: (l) => void log.push(l),
  });
  return { results, log };
}

const revisionsIn = (c: FakeRevisionCluster, ns: string) => [
  ...new Set(['web', 'api'].flatMap((app) => c.podsOf(ns, app).map((p) => JSON.parse(p.metadata.annotations['sidecar.istio.io/status']).revision as string))),
];

describe('rollout plan', () => {
  it('names the labels, who serves the namespace before and after, and what restarts', async () => {
    const c = cluster();
    const moves = await planRollout(c.api, request({ from: 'default', to: 'canary', namespaces: ['b', 'a'] }));
    assert.deepEqual(
      moves.map((m) => m.namespace),
      ['b', 'a'],
      'in the order given',
    );
    const [b] = moves;
    assert.deepEqual(b!.labels, {
      before: { 'istio-injection': 'enabled', 'istio.io/rev': null },
      after: { 'istio.io/rev': 'canary', 'istio-injection': null },
    });
    assert.deepEqual([b!.from.revision, b!.to.revision], ['default', 'canary']);
    assert.match(b!.to.via, /revision canary \(MutatingWebhookConfiguration sidecar-injector-canary\)/);
    assert.deepEqual(
      b!.restart.map((w) => [w.workload.kind, w.workload.name, w.pods, w.revisions]),
      [
        ['Deployment', 'api', 2, ['default']],
        ['Deployment', 'web', 2, ['default']],
      ],
    );
    assert.deepEqual(JSON.parse(b!.record.after!), {
      labels: { 'istio-injection': 'enabled', 'istio.io/rev': null },
      revision: 'default',
      to: 'canary',
      at: '2026-11-30T10:00:00.000Z',
    });
    const text = formatPlan(moves, 2, true);
    assert.match(text, /^batch 1: b, a$/m);
    assert.match(text, /would restart deployment\/web: 2 pods on default/);
    assert.doesNotMatch(text, /labels now/);
    assert.match(
      formatPlan(moves, 2, true, true),
      /^  namespace b: istio.io\/rev=canary, istio-injection removed\n    labels now: istio-injection=enabled\n/m,
      '-o wide: the labels replaced',
    );
    assert.deepEqual(c.restarts, [], 'planning changes nothing');
  });

  it('-A takes every namespace on the source; a tag resolves to its revision', async () => {
    const c = cluster({ a: ON_DEFAULT, b: {}, c: ON_DEFAULT, d: { 'istio.io/rev': 'canary' } });
    const moves = await planRollout(c.api, request({ from: 'default', to: 'prod', all: true }));
    assert.deepEqual(
      moves.map((m) => m.namespace),
      ['a', 'c'],
    );
    assert.equal(moves[0]!.to.revision, 'canary');
    assert.match(moves[0]!.to.via, /revision canary through tag prod/);
  });

  it('refuses, changing nothing: an unknown target, a namespace not on the source, two injectors at once, no source to go back to', async () => {
    const c = cluster({ a: ON_DEFAULT, b: { 'istio.io/rev': 'canary' }, x: {} });
    await assert.rejects(
      planRollout(c.api, request({ from: 'default', to: 'v2', namespaces: ['a'] })),
      /labelled istio.io\/rev=v2, istio-injection removed: no installed injector would serve it: install v2 first/,
    );
    await assert.rejects(
      planRollout(c.api, request({ from: 'default', to: 'canary', namespaces: ['b'] })),
      /namespace b is not on default: it has istio-injection removed, istio.io\/rev=canary/,
    );
    await assert.rejects(planRollout(c.api, request({ from: 'default', to: 'canary', namespaces: ['nope'] })), /namespace nope not found/);
    await assert.rejects(planRollout(c.api, request({ from: 'canary', to: 'canary', namespaces: ['b'] })), /both canary: nothing to move/);
    await assert.rejects(planRollout(c.api, request({ undo: true, namespaces: ['a'] })), /no move record/);
    // The default tag beside the default install: both take istio-injection=enabled.
    const both = cluster({ a: ON_DEFAULT }, [defaultMwc, canaryMwc, defaultTag]);
    await assert.rejects(
      planRollout(both.api, request({ from: 'default', to: 'canary', namespaces: ['a'] })),
      /revision default \(MutatingWebhookConfiguration sidecar-injector\) and revision canary through tag default .* would all inject its pods/,
    );
    const none = cluster({ a: ON_DEFAULT }, []);
    await assert.rejects(
      planRollout(none.api, request({ from: 'default', to: 'canary', namespaces: ['a'] })),
      /no sidecar-injector webhook configuration in the cluster/,
    );
    assert.deepEqual(c.restarts, []);
  });
});

describe('rollout run', () => {
  it('moves namespaces one at a time: relabelled, restarted, every new pod ready on the new revision; no pod created without a sidecar', async () => {
    const c = cluster();
    const { results } = await run(c, { from: 'default', to: 'canary', namespaces: ['a', 'b', 'c'] });
    assert.deepEqual(
      results.map((r) => [r.namespace, r.result]),
      [
        ['a', 'moved'],
        ['b', 'moved'],
        ['c', 'moved'],
      ],
    );
    for (const ns of ['a', 'b', 'c']) {
      assert.deepEqual(c.namespaces.get(ns)!.labels, { 'istio.io/rev': 'canary' });
      assert.deepEqual(revisionsIn(c, ns), ['canary']);
    }
    assert.deepEqual(c.restarts, ['a/api', 'a/web', 'b/api', 'b/web', 'c/api', 'c/web']);
    assert.ok(
      c.creates.every((p) => p.revision !== undefined),
      'every pod created got a sidecar',
    );
    assert.match(formatResults(results), /^moved a: on canary: 2 workloads restarted, every new pod ready with revision canary's sidecar$/m);
    // -o wide: the batch, when each restart began, how long until its new pods were ready.
    const wide = formatResults(results, true);
    assert.match(wide, /^moved a \(batch 1\): on canary/m);
    assert.match(wide, /^  progressed deployment\/api: .* \[restarted \d{4}-\d\d-\d\dT[\d:.]+Z, \d+\.\ds, 2\/2 new pods ready\]$/m);
    for (const w of results.flatMap((r) => r.workloads))
      assert.ok(Date.parse(w.finishedAt!) >= Date.parse(w.startedAt!), 'each restart says when it began and ended');
  });

  it('a revision whose sidecar never gets ready: stops at the first namespace, moves it back, says why; the others never move', async () => {
    const c = cluster();
    c.healthy.canary = false;
    const { results, log } = await run(c, { from: 'default', to: 'canary', namespaces: ['a', 'b', 'c'] });
    assert.deepEqual(
      results.map((r) => [r.namespace, r.result]),
      [
        ['a', 'rolled-back'],
        ['b', 'not-started'],
        ['c', 'not-started'],
      ],
    );
    const a = results[0]!;
    assert.equal(a.workloads[0]!.result, 'timeout');
    assert.match(
      a.workloads[0]!.detail,
      /1 of 1 new pods are not ready with the new sidecar \(pod api-2-\d+ is not Ready \(app: running, ready; sidecar-proxy: running, not ready\)\)/,
    );
    assert.match(a.workloads[0]!.diagnosis!.pods[0]!.events[0]!, /^Warning Unhealthy: Readiness probe failed: HTTP probe failed with statuscode: 503 \(x3\)$/);
    assert.deepEqual(
      a.rollback!.map((w) => [w.workload.name, w.result]),
      [['api', 'progressed']],
      'only the workload that got canary pods is restarted back',
    );
    assert.deepEqual(c.namespaces.get('a')!.labels, ON_DEFAULT);
    assert.equal(c.namespaces.get('a')!.annotations[MOVE_ANNOTATION], undefined, 'the record is as it was: none');
    assert.deepEqual(revisionsIn(c, 'a'), ['default']);
    for (const ns of ['b', 'c']) {
      assert.deepEqual(c.namespaces.get(ns)!.labels, ON_DEFAULT);
      assert.deepEqual(revisionsIn(c, ns), ['default']);
    }
    assert.deepEqual(c.restarts, ['a/api', 'a/api'], 'b and c never restarted; a/web never started');
    assert.ok(log.some((l) => l.startsWith('rolling back a: deployment/api -n a: no progress')));
    const text = formatResults(results);
    assert.match(text, /^rolled-back a: back on default \(istio-injection=enabled, istio.io\/rev removed\) because deployment\/api -n a/m);
    assert.match(text, /containers: app: running, ready; sidecar-proxy: running, not ready/);
    assert.match(text, /event: Warning Unhealthy: Readiness probe failed/);
  });

  it('batches: the namespaces of a batch move together and are rolled back together', async () => {
    const c = cluster();
    c.healthy.canary = false;
    const { results } = await run(c, { from: 'default', to: 'canary', namespaces: ['a', 'b', 'c'] }, { ...options, batchSize: 2, maxInFlight: 4 });
    assert.deepEqual(
      results.map((r) => [r.namespace, r.batch, r.result]),
      [
        ['a', 1, 'rolled-back'],
        ['b', 1, 'rolled-back'],
        ['c', 2, 'not-started'],
      ],
    );
    for (const ns of ['a', 'b']) assert.deepEqual(revisionsIn(c, ns), ['default']);
  });

  it('--undo puts back exactly what the last move replaced, and removes the record', async () => {
    const c = cluster({ a: ON_DEFAULT, b: { ...ON_DEFAULT, team: 'x' } });
    await run(c, { from: 'default', to: 'prod', all: true });
    assert.deepEqual(c.namespaces.get('b')!.labels, { team: 'x', 'istio.io/rev': 'prod' });
    assert.deepEqual(revisionsIn(c, 'b'), ['canary']);
    const moves = await planRollout(c.api, request({ undo: true, all: true }));
    assert.deepEqual(
      moves.map((m) => [m.namespace, m.to.name, m.to.revision]),
      [
        ['a', 'default', 'default'],
        ['b', 'default', 'default'],
      ],
    );
    const { results } = await run(c, { undo: true, all: true });
    assert.deepEqual(
      results.map((r) => r.result),
      ['moved', 'moved'],
      formatResults(results),
    );
    assert.deepEqual(c.namespaces.get('b')!.labels, { team: 'x', 'istio-injection': 'enabled' });
    assert.equal(c.namespaces.get('b')!.annotations[MOVE_ANNOTATION], undefined);
    assert.deepEqual(revisionsIn(c, 'b'), ['default']);
    await assert.rejects(planRollout(c.api, request({ undo: true, all: true })), /nothing to undo/);
  });
});
