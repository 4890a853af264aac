import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterApi } from '../kube/cluster-api.js';
import { INJECTOR_SELECTOR, MWC_PATH } from '../kube/live-webhook-config.js';
import { findWebhookConfiguration } from './webhook-find.js';

const mwc = (name: string) => ({ metadata: { name, labels: { 'app.kubernetes.io/name': 'sidecar-injector' } }, webhooks: [] });

function api(objects: ReturnType<typeof mwc>[]): ClusterApi {
  return {
    defaultNamespace: 'default',
    async find(path: string) {
      return objects.find((o) => path === `${MWC_PATH}/${o.metadata.name}`);
    },
    async list(path: string, query?: Record<string, string>) {
      assert.equal(path, MWC_PATH);
      assert.equal(query?.labelSelector, INJECTOR_SELECTOR);
      return { items: objects, resourceVersion: '1' };
    },
  } as unknown as ClusterApi;
}

describe('findWebhookConfiguration', () => {
  it('the default name first, then (a Helm release) the one labelled app.kubernetes.io/name=sidecar-injector', async () => {
    const notes: string[] = [];
    assert.equal((await findWebhookConfiguration(api([mwc('sidecar-injector'), mwc('other')]), undefined, notes))?.name, 'sidecar-injector');
    const helm = await findWebhookConfiguration(api([mwc('my-release')]), undefined, notes);
    assert.deepEqual([helm?.name, helm?.by], ['my-release', 'label']);
    assert.match(
      notes.join('\n'),
      /using MutatingWebhookConfiguration my-release \(labelled app\.kubernetes\.io\/name=sidecar-injector; --webhook-config chooses another\)/,
    );
  });

  it('a name given is looked up by that name only', async () => {
    const notes: string[] = [];
    assert.equal(await findWebhookConfiguration(api([mwc('my-release')]), 'other', notes), undefined);
    assert.deepEqual(notes, ['MutatingWebhookConfiguration other not found']);
  });

  it('several labelled and no name: the user chooses (SI_USAGE naming them)', async () => {
    await assert.rejects(
      findWebhookConfiguration(api([mwc('a'), mwc('b')]), undefined, []),
      (e: Error & { code?: string }) => e.code === 'SI_USAGE' && /a, b; choose one with --webhook-config/.test(e.message),
    );
  });
});
