/**
 * rollOut against a fake cluster whose controllers create pods from the new template a few
 * polls after the restart patch (injected or not, per workload).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterApi } from '../kube/cluster-api.js';
import type { PlannedWorkload } from './restart-plan.js';
import { planRestart } from './restart-plan.js';
import { buildReport } from './report.js';
import { RESTARTED_AT, restartedAtValue, rollOut, selectorString, settledTargets } from './restart-workloads.js';
import type { Classification } from './types.js';

type Obj = Record<string, any>;

interface FakeWorkload {
  /** Polls after the patch until the controller has made the new pods. */
  after: number;
  /** Whether the webhook injects them. */
  injects: boolean;
}

function fakeCluster(workloads: Record<string, FakeWorkload>) {
  const state = new Map<string, { restartedAt?: string; generation: number; polls: number }>();
  let rolling = 0;
  let maxRolling = 0;
  const order: string[] = [];
  const api: ClusterApi = {
    defaultNamespace: 'default',
    async listPages(path: string, query: Record<string, string>, onPage: (items: unknown[]) => void | Promise<void>) {
      const l = await this.list(path, query);
      await onPage(l.items);
      return { resourceVersion: l.resourceVersion, count: l.items.length };
    },
    async list(path, query) {
      const name = /app=(\w+)/.exec(query?.labelSelector ?? '')![1];
      const s = state.get(name)!;
      if (s.restartedAt === undefined || s.polls < workloads[name].after) return { items: [], resourceVersion: '1' };
      const pod = {
        metadata: { name: `${name}-new`, namespace: 'ns', annotations: { [RESTARTED_AT]: s.restartedAt, injected: String(workloads[name].injects) } },
      };
      return { items: [pod], resourceVersion: '1' };
    },
    async find(path) {
      const name = path.split('/').pop()!;
      const s = state.get(name)!;
      s.polls++;
      if (s.polls === workloads[name].after) {
        // Progress (or not) is decided now: the workload stops "rolling" for the counter.
        rolling--;
      }
      return { metadata: { name, generation: s.generation }, status: { observedGeneration: s.generation } };
    },
    async patchWorkload(ref, body) {
      const s = state.get(ref.name) ?? { generation: 1, polls: 0 };
      s.generation++;
      s.polls = 0;
      s.restartedAt = (body as Obj).spec.template.metadata.annotations[RESTARTED_AT];
      state.set(ref.name, s);
      rolling++;
      maxRolling = Math.max(maxRolling, rolling);
      order.push(ref.name);
      return { metadata: { name: ref.name, generation: s.generation }, spec: { selector: { matchLabels: { app: ref.name } } } };
    },
    async patchMerge() {
      throw new Error('not used');
    },
    async createEvent() {},
    async watch() {
      return { abort() {} };
    },
    leases: { get: async () => undefined, create: async (_n, l) => l, replace: async (_n, l) => l },
  };
  for (const name of Object.keys(workloads)) state.set(name, { generation: 1, polls: 0 });
  return { api, stats: () => ({ maxRolling, order }) };
}

const classify = (pod: unknown): Classification => {
  const injected = (pod as Obj).metadata.annotations.injected === 'true';
  return injected ? { state: 'current', reason: 'policy-enabled', message: '' } : { state: 'missing', reason: 'policy-enabled', message: 'no sidecar' };
};

const target = (name: string): PlannedWorkload => ({ workload: { kind: 'Deployment', name, namespace: 'ns' }, stale: 1, missing: 0, why: [] });

function deps(api: ClusterApi, log: string[] = []) {
  return { api, classify, now: () => new Date(), sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)), log: (l: string) => void log.push(l) };
}

describe('rollOut', () => {
  it('rolls one at a time by default, in order, each waited for until its new pods are injected', async () => {
    const { api, stats } = fakeCluster({ a: { after: 3, injects: true }, b: { after: 2, injects: true }, c: { after: 4, injects: true } });
    const outcomes = await rollOut([target('a'), target('b'), target('c')], deps(api), { maxInFlight: 1, intervalMs: 0, timeoutMs: 10_000, pollMs: 2 });
    assert.deepEqual(
      outcomes.map((o) => o.result),
      ['progressed', 'progressed', 'progressed'],
    );
    assert.deepEqual(stats(), { maxRolling: 1, order: ['a', 'b', 'c'] });
    assert.equal(outcomes[0].newPods, 1);
    assert.match(outcomes[0].restartedAt!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('never has more than maxInFlight rolling at once', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const { api, stats } = fakeCluster(Object.fromEntries(names.map((n, i) => [n, { after: 2 + (i % 3), injects: true }])));
    const outcomes = await rollOut(names.map(target), deps(api), { maxInFlight: 2, intervalMs: 0, timeoutMs: 10_000, pollMs: 2 });
    assert.ok(outcomes.every((o) => o.result === 'progressed'));
    assert.equal(stats().maxRolling, 2);
  });

  it('stops after a workload whose new pods are not injected, and reports the rest as not started', async () => {
    const { api, stats } = fakeCluster({ a: { after: 1, injects: true }, b: { after: 1, injects: false }, c: { after: 1, injects: true } });
    const log: string[] = [];
    const outcomes = await rollOut([target('a'), target('b'), target('c')], deps(api, log), { maxInFlight: 1, intervalMs: 0, timeoutMs: 100, pollMs: 5 });
    assert.deepEqual(
      outcomes.map((o) => o.result),
      ['progressed', 'timeout', 'not-started'],
    );
    assert.match(outcomes[1].detail, /1 of 1 new pods are not current \(missing: policy-enabled\)/);
    assert.deepEqual(stats().order, ['a', 'b']);
    assert.ok(log.some((l) => l.startsWith('timeout deployment/b')));
  });

  it('ends at once when a new pod was injected by another config (a replica that has not reloaded), instead of waiting out the timeout', async () => {
    // Found on the node: the leader restarted as soon as it reloaded the ConfigMap; the other
    // replica reloaded 3 s later and injected the new pods with the old sidecar meanwhile.
    const { api } = fakeCluster({ a: { after: 1, injects: true } });
    const lagging = (pod: unknown): Classification => ({
      ...classify(pod),
      state: 'stale',
      changes: [{ what: 'container', item: 'containers/proxy', detail: 'containers/proxy args changed' }],
    });
    const started = Date.now();
    const [o] = await rollOut([target('a')], { ...deps(api), classify: lagging }, { maxInFlight: 1, intervalMs: 0, timeoutMs: 60_000, pollMs: 2 });
    assert.equal(o.result, 'other-config');
    assert.match(o.detail, /another config \(containers\/proxy args changed\)/);
    assert.ok(Date.now() - started < 30_000, 'not the 60 s timeout');
  });

  it('a workload whose controller makes no pods times out with that reason', async () => {
    const { api } = fakeCluster({ a: { after: 1_000_000, injects: true } });
    const [o] = await rollOut([target('a')], deps(api), { maxInFlight: 1, intervalMs: 0, timeoutMs: 50, pollMs: 5 });
    assert.equal(o.result, 'timeout');
    assert.match(o.detail, /no pod from the new template was created/);
  });
});

describe('workloads being deleted', () => {
  // Found on a real node: serve --reconcile-restart restarted a Deployment whose namespace was
  // being deleted; no pod could be created there, so it waited out the whole timeout (5 min)
  // while a healthy stale Deployment elsewhere waited behind it.
  const objects: Record<string, Obj | undefined> = {
    '/apis/apps/v1/namespaces/live/deployments/ok': {
      metadata: { name: 'ok', generation: 2 },
      spec: { replicas: 1 },
      status: { observedGeneration: 2, updatedReplicas: 1 },
    },
    '/apis/apps/v1/namespaces/live/deployments/rolling': {
      metadata: { name: 'rolling', generation: 3 },
      spec: { replicas: 1 },
      status: { observedGeneration: 2 },
    },
    '/apis/apps/v1/namespaces/live/deployments/marked': {
      metadata: { name: 'marked', generation: 1, deletionTimestamp: '2026-11-28T08:25:00Z' },
      status: { observedGeneration: 1, updatedReplicas: 1 },
    },
    '/apis/apps/v1/namespaces/going/deployments/web': {
      metadata: { name: 'web', generation: 1 },
      spec: { replicas: 1 },
      status: { observedGeneration: 1, updatedReplicas: 1 },
    },
    '/api/v1/namespaces/live': { metadata: { name: 'live' }, status: { phase: 'Active' } },
    '/api/v1/namespaces/going': { metadata: { name: 'going', deletionTimestamp: '2026-11-28T08:25:00Z' }, status: { phase: 'Terminating' } },
  };
  const api = { defaultNamespace: 'default', find: async (path: string) => objects[path] } as unknown as ClusterApi;
  const at = (namespace: string, name: string): PlannedWorkload => ({ workload: { kind: 'Deployment', name, namespace }, stale: 1, missing: 0, why: [] });

  it('are neither restarted nor waited for: gone, marked for deletion, or in a namespace being deleted', async () => {
    const { ready, rolling, deleting } = await settledTargets(api, [
      at('going', 'web'),
      at('live', 'ok'),
      at('live', 'rolling'),
      at('live', 'marked'),
      at('live', 'gone'),
    ]);
    assert.deepEqual(
      ready.map((p) => p.workload.name),
      ['ok'],
    );
    assert.deepEqual(
      rolling.map((p) => p.workload.name),
      ['rolling'],
    );
    assert.deepEqual(
      deleting.map((p) => p.workload.name),
      ['web', 'marked', 'gone'],
    );
  });

  it('a workload deleted while it rolls out ends its rollout at once, not at the timeout', async () => {
    let gets = 0;
    const vanishing = {
      defaultNamespace: 'default',
      patchWorkload: async () => ({ metadata: { generation: 2 }, spec: { selector: { matchLabels: { app: 'web' } } } }),
      find: async () => (++gets < 3 ? { metadata: { generation: 2 }, status: { observedGeneration: 2 } } : undefined),
      list: async () => ({ items: [], resourceVersion: '1' }),
    } as unknown as ClusterApi;
    const t0 = Date.now();
    const [o] = await rollOut([target('web')], deps(vanishing), { maxInFlight: 1, intervalMs: 0, timeoutMs: 60_000, pollMs: 5 });
    assert.equal(o.result, 'failed');
    assert.match(o.detail, /deleted while it rolled out/);
    assert.ok(Date.now() - t0 < 10_000, 'waited for the timeout');
  });
});

describe('planRestart', () => {
  it('restarts Deployments, StatefulSets and DaemonSets; reports bare pods and Jobs; honours --stale/--missing', () => {
    const c = (state: Classification['state']): Classification => ({
      state,
      reason: 'policy-enabled',
      message: '',
      ...(state === 'stale' ? { changes: [{ what: 'image', detail: 'image a -> b' }] } : {}),
    });
    const report = buildReport([
      { name: 'w1', workload: { kind: 'Deployment', name: 'web', namespace: 'ns' }, classification: c('stale') },
      { name: 'd0', workload: { kind: 'StatefulSet', name: 'db', namespace: 'ns' }, classification: c('missing') },
      { name: 'x', workload: { kind: 'Pod', name: 'x', namespace: 'ns' }, classification: c('missing') },
      { name: 'j', workload: { kind: 'Job', name: 'j', namespace: 'ns' }, classification: c('stale') },
      { name: 'ok', workload: { kind: 'DaemonSet', name: 'ok', namespace: 'ns' }, classification: c('current') },
    ]);
    const both = planRestart(report, { stale: true, missing: true });
    assert.deepEqual(
      both.restart.map((p) => p.workload.name),
      ['web', 'db'],
    );
    assert.deepEqual(
      both.reportOnly.map((p) => p.workload.kind),
      ['Job', 'Pod'],
    );
    assert.deepEqual(both.restart[0].why, ['stale: image a -> b']);
    assert.deepEqual(
      planRestart(report, { stale: false, missing: true }).restart.map((p) => p.workload.name),
      ['db'],
    );
    assert.deepEqual(
      planRestart(report, { stale: true, missing: false }).restart.map((p) => p.workload.name),
      ['web'],
    );
  });
});

describe('settledTargets', () => {
  const deployment = (ns: string, name: string, rolling: boolean): Obj => ({
    metadata: { name, namespace: ns, generation: 2 },
    spec: { replicas: 1 },
    status: { observedGeneration: rolling ? 1 : 2, updatedReplicas: 1 },
  });
  // ns2 is being deleted: its workloads are neither restarted nor waited for, by either path.
  const namespaces: Obj[] = [
    { metadata: { name: 'ns0' } },
    { metadata: { name: 'ns1' } },
    { metadata: { name: 'ns2', deletionTimestamp: '2026-11-28T08:25:00Z' }, status: { phase: 'Terminating' } },
  ];
  function api(objects: Obj[]) {
    const calls: string[] = [];
    const a = {
      async find(path: string) {
        calls.push(`get ${path}`);
        const ns = namespaces.find((n) => path === `/api/v1/namespaces/${n.metadata.name}`);
        if (ns !== undefined) return ns;
        const o = objects.find((x) => path.endsWith(`/namespaces/${x.metadata.namespace}/deployments/${x.metadata.name}`));
        return o === undefined ? undefined : { ...o, kind: 'Deployment' };
      },
      async listPages(path: string, _q: Record<string, string>, onPage: (items: unknown[]) => void) {
        calls.push(`list ${path}`);
        if (path === '/api/v1/namespaces') return void onPage(namespaces);
        onPage(objects.filter((o) => !path.includes('/namespaces/') || path.includes(`/namespaces/${o.metadata.namespace}/`)));
        return { resourceVersion: '1', count: objects.length };
      },
    } as unknown as ClusterApi;
    return { a, calls };
  }
  const t = (ns: string, name: string): PlannedWorkload => ({
    workload: { kind: 'Deployment', name, namespace: ns, apiVersion: 'apps/v1' },
    stale: 1,
    missing: 0,
    why: [],
  });

  it('a few targets: GETs of each and its namespace; many: one list per kind, cluster-wide, and one of namespaces, with the same split', async () => {
    const objects = Array.from({ length: 30 }, (_, i) => deployment(`ns${i % 3}`, `d${i}`, i % 4 === 0));
    const few = api(objects);
    const small = await settledTargets(
      few.a,
      objects.slice(0, 6).map((o) => t(o.metadata.namespace, o.metadata.name)),
    );
    assert.equal(few.calls.filter((c) => c.startsWith('get')).length, 12);
    assert.deepEqual(
      small.rolling.map((p) => p.workload.name),
      ['d0', 'd4'],
    );
    assert.deepEqual(
      small.deleting.map((p) => p.workload.name),
      ['d2', 'd5'],
    );

    const many = api(objects);
    const all = await settledTargets(many.a, [...objects.map((o) => t(o.metadata.namespace, o.metadata.name)), t('ns9', 'gone')]);
    assert.deepEqual(many.calls, ['list /apis/apps/v1/deployments', 'list /api/v1/namespaces']);
    assert.deepEqual(
      all.rolling.map((p) => p.workload.name),
      ['d0', 'd4', 'd12', 'd16', 'd24', 'd28'],
    );
    assert.deepEqual(
      all.deleting.map((p) => p.workload.name),
      ['d2', 'd5', 'd8', 'd11', 'd14', 'd17', 'd20', 'd23', 'd26', 'd29', 'gone'],
    );
    assert.equal(all.ready.length, 14);

    const inNs1 = Array.from({ length: 25 }, (_, i) => deployment('ns1', `e${i}`, false));
    const one = api(inNs1);
    await settledTargets(
      one.a,
      inNs1.map((o) => t('ns1', o.metadata.name)),
    );
    assert.deepEqual(one.calls, ['list /apis/apps/v1/namespaces/ns1/deployments', 'list /api/v1/namespaces']);
  });
});

describe('helpers', () => {
  it("restartedAt is kubectl's RFC 3339 in whole seconds; selectors become label queries", () => {
    assert.equal(restartedAtValue(new Date('2026-11-25T12:34:56.789Z')), '2026-11-25T12:34:56Z');
    assert.equal(
      selectorString({
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['a', 'b'] },
          { key: 'x', operator: 'DoesNotExist' },
          { key: 'y', operator: 'Exists' },
          { key: 'z', operator: 'NotIn', values: ['q'] },
        ],
      }),
      'app=web,tier in (a,b),!x,y,z notin (q)',
    );
  });
});
