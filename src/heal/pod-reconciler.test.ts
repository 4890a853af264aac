/**
 * PodReconciler against an in-memory cluster (testing/heal-cluster): the gauge follows the
 * pods, also when leadership comes before the first config; ReplicaSets, Jobs and namespaces
 * are read as metadata; Events land on the workload, once; a namespace whose labels change
 * has its own pods listed again, a new config all of them; and after any sequence of changes
 * the reconciler's per-event bookkeeping equals a full `status` scan of the same cluster.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Counter, Gauge, Registry } from 'prom-client';
import { defaultConfig } from '../profiles/index.js';
import type { LoadedConfig } from '../config/types.js';
import { injectPod } from '../inject/pipeline.js';
import { webhookScopes } from '../install/webhook-rules.js';
import { defaultConfigWith } from '../../test/support/inject-fixtures.js';
import { FakeHealCluster } from '../../test/support/heal-cluster.js';
import { EventRecorder } from './events.js';
import { PodReconciler } from './pod-reconciler.js';
import { scanCluster } from './scan.js';

type Obj = Record<string, any>;
const config = defaultConfig();
const newer = defaultConfigWith({ global: { tag: '1.25.0' } });
const ENABLED = { 'istio-injection': 'enabled' };

function podOf(name: string, opts: { ns?: string; rs?: string; job?: string; injectWith?: LoadedConfig; optOut?: boolean } = {}): Obj {
  const ns = opts.ns ?? 'shop';
  const owner = opts.rs ?? opts.job;
  const pod: Obj = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ns,
      labels: { app: owner ?? name, ...(opts.optOut ? { 'sidecar.istio.io/inject': 'false' } : {}) },
      ...(owner
        ? {
            ownerReferences: [
              { apiVersion: opts.rs ? 'apps/v1' : 'batch/v1', kind: opts.rs ? 'ReplicaSet' : 'Job', name: owner, uid: `${owner}-uid`, controller: true },
            ],
          }
        : {}),
    },
    spec: { containers: [{ name: 'app', image: 'app:1' }] },
    status: { phase: 'Pending' },
  };
  if (opts.injectWith === undefined) return pod;
  const r = injectPod(pod, { namespace: ns, mode: 'webhook' }, opts.injectWith);
  assert.equal(r.kind, 'injected');
  return { ...(r.pod as Obj), status: pod.status };
}

const rs = (name: string, ns: string, deployment?: string): Obj => ({
  metadata: {
    name,
    namespace: ns,
    ...(deployment ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment, uid: `${deployment}-uid`, controller: true }] } : {}),
  },
  spec: { template: { spec: { containers: [{ name: 'app', image: 'app:1' }] } } },
});

function setup(options: { namespaces?: string[]; restart?: boolean; burst?: number; perMinute?: number } = {}) {
  const cluster = new FakeHealCluster();
  cluster.mwc = { webhooks: webhookScopes(config.injectionKeys, { injectorNamespace: 'sidecar-injector' }) };
  const registry = new Registry();
  const gauge = new Gauge({ name: 'sidecar_injector_pods', help: 'x', labelNames: ['state'] as const, registers: [registry] });
  const lists = new Counter({ name: 'lists_total', help: 'x', labelNames: ['resource', 'reason'] as const, registers: [registry] });
  let current: LoadedConfig | undefined = config;
  const recorder = new EventRecorder({
    api: cluster.api,
    instance: 'me',
    ...(options.burst !== undefined ? { burst: options.burst } : {}),
    ...(options.perMinute !== undefined ? { perMinute: options.perMinute } : {}),
  });
  const r = new PodReconciler({
    api: cluster.api,
    getConfig: () => current,
    webhookConfig: 'sidecar-injector',
    injectorNamespace: 'sidecar-injector',
    namespaces: options.namespaces ?? [],
    restart: false,
    rollout: { maxInFlight: 1, intervalMs: 0, timeoutMs: 1000 },
    recorder,
    gauge,
    lists,
    log: () => undefined,
    debounceMs: 1,
  });
  return {
    cluster,
    registry,
    r,
    recorder,
    setConfig: (c: LoadedConfig | undefined) => {
      current = c;
      r.configChanged();
    },
  };
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`timed out: ${what}`);
}

const gaugeOf = async (registry: Registry, state: string): Promise<number | undefined> => {
  const m = new RegExp(`sidecar_injector_pods\\{state="${state}"\\} (\\d+)`).exec(await registry.metrics());
  return m ? Number(m[1]) : undefined;
};

describe('PodReconciler', () => {
  it('classifies once the config arrives (leadership first), follows watch events, records SidecarMissing on the Deployment once', async () => {
    const { cluster, registry, r, recorder, setConfig } = setup({ namespaces: ['shop'] });
    cluster.put('namespaces', { metadata: { name: 'shop', labels: ENABLED } });
    cluster.put('replicasets', rs('web-1', 'shop', 'web'));
    for (const n of ['a', 'b', 'c']) cluster.put('pods', podOf(n, { rs: 'web-1' }));
    setConfig(undefined);
    await r.start();
    assert.equal(r.report, undefined, 'nothing classified without a config');
    setConfig(config);
    await until('the first count', async () => (await gaugeOf(registry, 'missing')) === 3);
    await recorder.flush();
    assert.equal(cluster.events.length, 1);
    assert.deepEqual(
      [cluster.events[0].reason, cluster.events[0].involvedObject.kind, cluster.events[0].involvedObject.name, cluster.events[0].involvedObject.uid],
      ['SidecarMissing', 'Deployment', 'web', 'web-uid'],
    );
    assert.ok(cluster.calls.includes('list /apis/apps/v1/namespaces/shop/replicasets (metadata)'));
    assert.ok(cluster.calls.includes('list /api/v1/namespaces (metadata)'));
    assert.ok(cluster.calls.includes('list /api/v1/namespaces/shop/pods'), 'pods are read whole (classification needs them) and kept as records');

    cluster.remove('pods', 'shop', 'b');
    await until('the deletion to count', async () => (await gaugeOf(registry, 'missing')) === 2);
    await recorder.flush();
    assert.equal(cluster.events.length, 1, 'the same state again is no second Event');
    // The namespace loses its label: only its own pods are listed again, and are no longer selected.
    const before = cluster.calls.length;
    cluster.put('namespaces', { metadata: { name: 'shop', labels: {} } });
    await until('the label change to count', async () => (await gaugeOf(registry, 'skipped')) === 2);
    assert.deepEqual(
      cluster.calls.slice(before).filter((c) => c.startsWith('list')),
      ['list /api/v1/namespaces/shop/pods'],
    );
    await r.stop();
    assert.doesNotMatch(await registry.metrics(), /sidecar_injector_pods\{/, 'a replica that stops leading exports no counts');
  });

  it('a new config relists the pods (once) and judges them with it', async () => {
    const { cluster, registry, r, setConfig } = setup();
    cluster.put('namespaces', { metadata: { name: 'shop', labels: ENABLED } });
    for (const n of ['a', 'b']) cluster.put('pods', podOf(n, { injectWith: config }));
    await r.start();
    await until('current', async () => (await gaugeOf(registry, 'current')) === 2);
    setConfig(newer);
    await until('stale under the new config', async () => (await gaugeOf(registry, 'stale')) === 2);
    assert.match(await registry.metrics(), /lists_total\{resource="pods",reason="resync"\} 1/);
    assert.match(r.report!.workloads[0].details.join(), /1\.24\.2 -> .*1\.25\.0/);
    await r.stop();
  });

  it('Events beyond the rate limit wait their turn and go out later, each once', async () => {
    const { cluster, r, recorder } = setup({ burst: 5, perMinute: 1200 });
    cluster.put('namespaces', { metadata: { name: 'shop', labels: ENABLED } });
    for (let i = 0; i < 30; i++) cluster.put('pods', podOf(`bare-${i}`));
    await r.start();
    await until(
      '30 Events',
      async () => {
        await recorder.flush();
        return cluster.events.length === 30;
      },
      15_000,
    );
    assert.equal(new Set(cluster.events.map((e) => e.involvedObject.name)).size, 30);
    assert.equal(recorder.stats.rateLimited, 0, 'it asked the limit first instead of being refused');
    await r.stop();
  });

  it('after any sequence of pod, ReplicaSet, Job and namespace changes, its counts and workloads equal a full status scan', async () => {
    type Op =
      | { op: 'pod'; name: number; ns: number; owner: number; kind: 'current' | 'stale' | 'missing' | 'skipped' }
      | { op: 'delete'; name: number; ns: number }
      | { op: 'rs'; owner: number; ns: number; deployment: boolean }
      | { op: 'label'; ns: number; on: boolean };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({
        op: fc.constant('pod' as const),
        name: fc.nat(5),
        ns: fc.nat(1),
        owner: fc.nat(3),
        kind: fc.constantFrom('current' as const, 'stale' as const, 'missing' as const, 'skipped' as const),
      }),
      fc.record({ op: fc.constant('delete' as const), name: fc.nat(5), ns: fc.nat(1) }),
      fc.record({ op: fc.constant('rs' as const), owner: fc.nat(3), ns: fc.nat(1), deployment: fc.boolean() }),
      fc.record({ op: fc.constant('label' as const), ns: fc.nat(1), on: fc.boolean() }),
    );
    const older = defaultConfigWith({ global: { tag: '1.23.0' } });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 8 }), fc.array(op, { maxLength: 12 }), async (before, after) => {
        const { cluster, r } = setup();
        const apply = (o: Op): void => {
          const ns = `ns${o.ns}`;
          if (o.op === 'label') cluster.put('namespaces', { metadata: { name: ns, labels: o.on ? ENABLED : {} } });
          else if (o.op === 'rs') cluster.put('replicasets', rs(`rs${o.owner}`, ns, o.deployment ? `dep${o.owner}` : undefined));
          else if (o.op === 'delete') cluster.remove('pods', ns, `p${o.name}`);
          else {
            const owned = o.owner === 0 ? {} : o.owner === 3 ? { job: 'job3' } : { rs: `rs${o.owner}` };
            const injectWith = o.kind === 'current' ? config : o.kind === 'stale' ? older : undefined;
            cluster.put('pods', podOf(`p${o.name}`, { ns, ...owned, injectWith, optOut: o.kind === 'skipped' }));
          }
        };
        for (const ns of ['ns0', 'ns1']) cluster.put('namespaces', { metadata: { name: ns, labels: ENABLED } });
        before.forEach(apply);
        await r.start();
        after.forEach(apply);
        const expected = (await scanCluster(cluster.api, config, { webhookConfig: 'sidecar-injector', injectorNamespace: 'sidecar-injector' })).report;
        let got: unknown;
        await until(
          'the same report as status',
          () => {
            got = r.report;
            return JSON.stringify(got) === JSON.stringify(expected);
          },
          3000,
        ).catch(() => assert.deepEqual(got, expected));
        await r.stop();
      }),
      { numRuns: 25 },
    );
  });
});
