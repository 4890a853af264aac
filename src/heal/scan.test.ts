/**
 * scanCluster against a fake API: the webhook configuration's entries decide (or the defaults,
 * with a note), namespaces' labels are read, finished and terminating pods are left out,
 * owners resolve through the listed ReplicaSets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig } from '../profiles/index.js';
import { injectPod } from '../inject/pipeline.js';
import { webhookScopes } from '../install/webhook-rules.js';
import type { ClusterApi } from '../kube/cluster-api.js';
import { scanCluster, scopesFromWebhooks } from './scan.js';

type Obj = Record<string, any>;
const config = defaultConfig();

const pod = (name: string, extra: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'shop',
    labels: { app: 'web' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d8f', uid: 'rs', controller: true }],
    ...extra.metadata,
  },
  spec: { containers: [{ name: 'app', image: 'app:1' }] },
  status: { phase: 'Pending', ...extra.status },
});

function fakeApi(objects: { mwc?: Obj; namespaces: Obj[]; pods: Obj[] }): { api: ClusterApi; paths: string[] } {
  const paths: string[] = [];
  const api = {
    defaultNamespace: 'default',
    async listPages(path: string, query: Record<string, string>, onPage: (items: unknown[]) => void | Promise<void>) {
      const l = await (this as unknown as ClusterApi).list(path, query);
      await onPage(l.items);
      return { resourceVersion: l.resourceVersion, count: l.items.length };
    },
    async list(path: string) {
      paths.push(path);
      if (path.endsWith('/pods')) return { items: objects.pods, resourceVersion: '1' };
      if (path.endsWith('/replicasets'))
        return {
          items: [
            {
              metadata: {
                name: 'web-5d8f',
                namespace: 'shop',
                ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd', controller: true }],
              },
            },
          ],
          resourceVersion: '1',
        };
      if (path.endsWith('/namespaces')) return { items: objects.namespaces, resourceVersion: '1' };
      return { items: [], resourceVersion: '1' };
    },
    async find(path: string) {
      paths.push(path);
      if (path.includes('mutatingwebhookconfigurations')) return objects.mwc;
      return objects.namespaces.find((n) => path.endsWith(`/${n.metadata.name}`));
    },
  } as unknown as ClusterApi;
  return { api, paths };
}

describe('scanCluster', () => {
  const injected = injectPod(pod('a'), { namespace: 'shop', mode: 'webhook' }, config);
  const pods = [
    injected.kind === 'injected' ? injected.pod : pod('a'),
    pod('b'),
    pod('done', { status: { phase: 'Succeeded' } }),
    pod('going', { metadata: { deletionTimestamp: '2026-11-25T12:00:00Z' } }),
  ];

  it('classifies live pods by Deployment, with the namespace labels, using the live webhook configuration', async () => {
    const mwc = { webhooks: webhookScopes(config.injectionKeys, { injectorNamespace: 'sidecar-injector' }) };
    const { api, paths } = fakeApi({ mwc, namespaces: [{ metadata: { name: 'shop', labels: { 'istio-injection': 'enabled' } } }], pods });
    const { report, notes } = await scanCluster(api, config, { namespace: 'shop', webhookConfig: 'sidecar-injector', injectorNamespace: 'sidecar-injector' });
    assert.deepEqual(notes, []);
    assert.deepEqual(report.summary, { current: 1, stale: 0, missing: 1, skipped: 0, foreign: 0, pods: 2, workloads: 1 });
    assert.deepEqual([report.workloads[0].kind, report.workloads[0].name, report.workloads[0].uid], ['Deployment', 'web', 'd']);
    assert.ok(paths.includes('/api/v1/namespaces/shop/pods'));
    assert.ok(paths.includes('/api/v1/namespaces/shop'), 'reads the namespace for its labels');
  });

  it("the live configuration's selectors decide: an entry selecting another label skips the namespace", async () => {
    const mwc = { webhooks: [{ name: 'only.example.io', namespaceSelector: { matchLabels: { other: 'yes' } }, objectSelector: {} }] };
    const { api } = fakeApi({ mwc, namespaces: [{ metadata: { name: 'shop', labels: { 'istio-injection': 'enabled' } } }], pods });
    const { report } = await scanCluster(api, config, { namespace: 'shop', webhookConfig: 'x', injectorNamespace: 'sidecar-injector' });
    assert.equal(report.workloads[0].pods.find((p) => p.name === 'b')!.reason, 'namespace-not-selected');
    // The injected pod is stale now: the webhook would not be called for it any more.
    assert.equal(report.summary.stale, 1);
  });

  it('without the webhook configuration, assumes the one manifests writes and says so', async () => {
    const { api } = fakeApi({ namespaces: [{ metadata: { name: 'shop', labels: { 'istio-injection': 'enabled' } } }], pods });
    const { report, notes } = await scanCluster(api, config, { webhookConfig: 'gone', injectorNamespace: 'sidecar-injector' });
    assert.match(notes.join('\n'), /MutatingWebhookConfiguration gone not found\nassuming the webhook configuration manifests writes/);
    assert.equal(report.summary.missing, 1);
  });

  it('scopesFromWebhooks keeps names, selectors and match conditions, and skips junk', () => {
    assert.deepEqual(
      scopesFromWebhooks([
        null,
        { name: 'a', namespaceSelector: { matchLabels: { x: 'y' } }, matchConditions: [{ name: 'c', expression: 'true' }] },
        { noName: true },
      ]),
      [{ name: 'a', namespaceSelector: { matchLabels: { x: 'y' } }, objectSelector: {}, matchConditions: [{ name: 'c', expression: 'true' }] }],
    );
  });
});
