/**
 * PodReconciler against a fake API: the gauge follows the pods, also when leadership comes
 * before the first config; watch events re-classify; Events are recorded on the workload.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Gauge, Registry } from 'prom-client';
import { defaultConfig } from '../profiles/index.js';
import type { LoadedConfig } from '../config/types.js';
import { webhookScopes } from '../install/webhook-rules.js';
import { EventRecorder } from './events.js';
import type { HealApi } from './kube.js';
import { PodReconciler } from './reconciler.js';

type Obj = Record<string, any>;
const config = defaultConfig();

const pod = (name: string): Obj => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace: 'shop', resourceVersion: name, labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'rs', controller: true }] },
  spec: { containers: [{ name: 'app', image: 'app:1' }] },
});

function fake() {
  const watchers = new Map<string, (type: string, obj: unknown) => void>();
  const events: Obj[] = [];
  const api = {
    defaultNamespace: 'default',
    async list(path: string) {
      if (path.endsWith('/pods')) return { items: [pod('a'), pod('b')], resourceVersion: '10' };
      if (path.endsWith('/namespaces')) return { items: [{ metadata: { name: 'shop', labels: { 'istio-injection': 'enabled' } } }], resourceVersion: '10' };
      if (path.endsWith('/replicasets')) return { items: [{ metadata: { name: 'web-1', namespace: 'shop', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep', controller: true }] } }], resourceVersion: '10' };
      return { items: [], resourceVersion: '10' };
    },
    async get(path: string) {
      return path.includes('mutatingwebhookconfigurations') ? { webhooks: webhookScopes(config.injectionKeys, { injectorNamespace: 'sidecar-injector' }) } : undefined;
    },
    async watch(path: string, _q: unknown, onEvent: (type: string, obj: unknown) => void) {
      watchers.set(path, onEvent);
      return { abort() {} };
    },
    async createEvent(_ns: string, e: Obj) {
      events.push(e);
    },
  } as unknown as HealApi;
  return { api, watchers, events };
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out: ${what}`);
}

describe('PodReconciler', () => {
  it('classifies once the config arrives (leadership first), follows watch events, records SidecarMissing on the Deployment', async () => {
    const { api, watchers, events } = fake();
    const registry = new Registry();
    const gauge = new Gauge({ name: 'sidecar_injector_pods', help: 'x', labelNames: ['state'] as const, registers: [registry] });
    let current: LoadedConfig | undefined;
    const recorder = new EventRecorder({ api, instance: 'me' });
    const r = new PodReconciler({
      api, getConfig: () => current, webhookConfig: 'sidecar-injector', injectorNamespace: 'sidecar-injector', namespaces: ['shop'],
      restart: false, rollout: { maxInFlight: 1, intervalMs: 0, timeoutMs: 1000 }, recorder, gauge, log: () => undefined, debounceMs: 5,
    });
    await r.start();
    assert.equal(r.report, undefined, 'nothing classified without a config');
    current = config;
    r.recompute();
    await until('the first report', () => r.report?.summary.missing === 2);
    assert.match(await registry.metrics(), /sidecar_injector_pods\{state="missing"\} 2/);
    await recorder.flush();
    assert.equal(events.length, 1);
    assert.deepEqual([events[0].reason, events[0].involvedObject.kind, events[0].involvedObject.name, events[0].involvedObject.uid], ['SidecarMissing', 'Deployment', 'web', 'dep']);

    watchers.get('/api/v1/namespaces/shop/pods')!('DELETED', pod('b'));
    await until('the deletion to count', () => r.report?.summary.missing === 1);
    // The namespace loses its label: the pod is no longer selected.
    watchers.get('/api/v1/namespaces')!('MODIFIED', { metadata: { name: 'shop', resourceVersion: '11', labels: {} } });
    await until('the label change to count', () => r.report?.summary.skipped === 1);
    await r.stop();
    assert.doesNotMatch(await registry.metrics(), /sidecar_injector_pods\{/, 'a replica that stops leading exports no counts');
  });
});
