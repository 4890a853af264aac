import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateCA } from '../certs/create-certs.js';
import { inClusterEndpoint } from '../kube/endpoint.js';
import { KubeClient } from '../kube/client.js';
import { loadInClusterConfig } from '../kube/in-cluster.js';
import { CaBundleReconciler } from '../cluster/ca-bundle-reconciler.js';
import { silentLogger } from '../telemetry/log.js';
import { createMetrics } from '../telemetry/metrics.js';
import { FakeApiServer } from '../../test/support/fake-apiserver.js';
import { caBundleEventListener } from './serve-run.js';

const inSync = async (m: ReturnType<typeof createMetrics>): Promise<string | undefined> =>
  /^sidecar_injector_cabundle_in_sync\{webhook_configuration="inj"\} (\d)$/m.exec((await m.render()).body)?.[1];

test('serve --webhook-config: cabundle_in_sync is absent before the first check, 1 after a patch, 0 while checks fail, 1 again after', async () => {
  const fake = await FakeApiServer.start({ tokens: ['t'] });
  const dir = await mkdtemp(join(tmpdir(), 'si-in-sync-'));
  await fake.writeServiceAccount(dir, 't');
  const client = new KubeClient(inClusterEndpoint(await loadInClusterConfig({ dir, env: fake.env() })), { timeoutMs: 2000 });
  fake.addWebhookConfiguration({
    metadata: { name: 'inj' },
    webhooks: [
      {
        name: 'namespace.sidecar-injector.io',
        clientConfig: { service: { name: 'inj', namespace: 'mesh', path: '/inject' } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  });
  const metrics = createMetrics({ processMetrics: false });
  const reconciler = new CaBundleReconciler({
    api: client,
    webhookConfigName: 'inj',
    service: { name: 'inj', namespace: 'mesh' },
    caPems: [(await generateCA()).certPem],
    intervalMs: 60_000,
    backoffInitialMs: 10,
    backoffMaxMs: 20,
    jitter: 0,
    onEvent: caBundleEventListener('inj', metrics, silentLogger()),
  });
  try {
    assert.equal(await inSync(metrics), undefined, 'no series before a check: unknown is not "out of sync"');
    assert.equal((await reconciler.reconcileNow()).outcome, 'patched');
    assert.equal(await inSync(metrics), '1');
    fake.failNextRequests(1, 403);
    await assert.rejects(reconciler.reconcileNow());
    assert.equal(await inSync(metrics), '0', 'a check that cannot read or patch the configuration');
    assert.match((await metrics.render()).body, /^sidecar_injector_cabundle_reconcile_total\{result="failure"\} 1$/m);
    assert.equal((await reconciler.reconcileNow()).outcome, 'unchanged');
    assert.equal(await inSync(metrics), '1');
  } finally {
    await reconciler.stop();
    client.close();
    await fake.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
