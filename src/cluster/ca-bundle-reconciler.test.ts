import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeApiServer } from '../../test/support/fake-apiserver.js';
import { generateCA, type CertificateAuthority } from '../certs/create-certs.js';
import { caBundleFor } from '../certs/ca-bundle.js';
import { decodeCertificates } from '../certs/pem.js';
import type { JsonObject } from '../util/json.js';
import { KubeApiError } from '../kube/api-error.js';
import { inClusterEndpoint } from '../kube/endpoint.js';
import { KubeClient } from '../kube/client.js';
import type { KubeApi } from './ca-bundle-reconciler.js';
import { loadInClusterConfig } from '../kube/in-cluster.js';
import { CaBundleReconciler, type CaBundleReconcilerOptions, type ReconcilerEvent } from './ca-bundle-reconciler.js';
import { caBundleRules, grantText } from '../kube/rbac-rules.js';

const NAME = 'sidecar-injector';
const DAY = 86_400_000;

const unhandled: unknown[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));
after(() => assert.deepEqual(unhandled, [], 'no unhandled rejections'));

const [caA, caB] = await Promise.all([generateCA({ validityDays: 30 }), generateCA({ validityDays: 3650 })]);
const foreignCA = await generateCA();

function mwc(): JsonObject {
  const svc = (name: string) => ({ service: { name, namespace: 'injector-system', path: '/inject' } });
  return {
    metadata: { name: NAME },
    webhooks: [
      { name: 'pods.injector.example.com', clientConfig: svc('injector'), sideEffects: 'None', admissionReviewVersions: ['v1'] },
      {
        name: 'other.example.com',
        clientConfig: { ...svc('someone-else'), caBundle: caBundleFor(foreignCA.certPem) },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
      { name: 'ns.injector.example.com', clientConfig: { ...svc('injector'), caBundle: '' }, sideEffects: 'None', admissionReviewVersions: ['v1'] },
    ],
  };
}

interface Harness {
  fake: FakeApiServer;
  client: KubeClient;
  saDir: string;
  events: ReconcilerEvent[];
  make(options?: Partial<CaBundleReconcilerOptions>): CaBundleReconciler;
  bundles(): Record<string, string | undefined>;
  waitFor(predicate: () => boolean, what: string): Promise<void>;
}

async function harness(fn: (h: Harness) => Promise<void>): Promise<void> {
  const fake = await FakeApiServer.start({ tokens: ['t1'] });
  const dir = await mkdtemp(join(tmpdir(), 'si-reconciler-'));
  const saDir = join(dir, 'sa');
  await fake.writeServiceAccount(saDir, 't1');
  const client = new KubeClient(inClusterEndpoint(await loadInClusterConfig({ dir: saDir, env: fake.env() })), { timeoutMs: 2000 });
  fake.addWebhookConfiguration(mwc());
  const events: ReconcilerEvent[] = [];
  const made: CaBundleReconciler[] = [];
  const h: Harness = {
    fake,
    client,
    saDir,
    events,
    make(options = {}) {
      const r = new CaBundleReconciler({
        api: client,
        webhookConfigName: NAME,
        service: { name: 'injector', namespace: 'injector-system' },
        caPems: [caA.certPem],
        intervalMs: 60_000,
        backoffInitialMs: 20,
        backoffMaxMs: 80,
        conflictBackoffMs: 1,
        jitter: 0,
        onEvent: (e) => events.push(e),
        ...options,
      });
      made.push(r);
      return r;
    },
    bundles() {
      const obj = fake.getWebhookConfiguration(NAME) as { webhooks: Array<{ name: string; clientConfig: { caBundle?: string } }> };
      return Object.fromEntries(obj.webhooks.map((w) => [w.name, w.clientConfig.caBundle]));
    },
    async waitFor(predicate, what) {
      const deadline = Date.now() + 5000;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events.map((e) => e.type))}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
  };
  try {
    await fn(h);
  } finally {
    await Promise.all(made.map((r) => r.stop()));
    client.close();
    await fake.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const certsIn = (bundle: string | undefined) => (bundle ? decodeCertificates(Buffer.from(bundle, 'base64').toString()).map((d) => d.toString('base64')) : []);
const der = (ca: CertificateAuthority) => decodeCertificates(ca.certPem)[0].toString('base64');

test('at start it patches the caBundle of our webhooks only, with one conditional JSON patch', async () => {
  await harness(async (h) => {
    const readVersion = (h.fake.getWebhookConfiguration(NAME)?.metadata as { resourceVersion: string }).resourceVersion;
    const r = h.make();
    r.start();
    await h.waitFor(() => h.events.some((e) => e.type === 'patched'), 'the first patch');
    const bundles = h.bundles();
    assert.equal(bundles['pods.injector.example.com'], caBundleFor(caA.certPem));
    assert.equal(bundles['ns.injector.example.com'], caBundleFor(caA.certPem));
    assert.equal(bundles['other.example.com'], caBundleFor(foreignCA.certPem), 'a webhook of another service is never touched');
    const patches = h.fake.patches();
    assert.equal(patches.length, 1);
    assert.equal(patches[0].contentType, 'application/json-patch+json');
    assert.equal(patches[0].status, 200);
    const ops = patches[0].body as Array<{ op: string; path: string; value: unknown }>;
    assert.deepEqual(ops[0], { op: 'replace', path: '/metadata/resourceVersion', value: readVersion }, 'conditional on the version read');
    assert.deepEqual(
      ops.slice(1).map((o) => `${o.op} ${o.path}`),
      ['test /webhooks/0/name', 'add /webhooks/0/clientConfig/caBundle', 'test /webhooks/2/name', 'add /webhooks/2/clientConfig/caBundle'],
    );
    const patched = h.events.find((e) => e.type === 'patched');
    assert.deepEqual(patched, {
      type: 'patched',
      trigger: 'start',
      webhooks: ['pods.injector.example.com', 'ns.injector.example.com'],
      caCount: 1,
      retained: 0,
      expiredRemoved: 0,
    });
    assert.equal(r.stats.patches, 1);
  });
});

test('when the caBundle is already right it only reads: no PATCH', async () => {
  await harness(async (h) => {
    const r = h.make();
    assert.equal((await r.reconcileNow()).outcome, 'patched');
    const before = h.fake.requests.length;
    const result = await r.reconcileNow();
    assert.equal(result.outcome, 'unchanged');
    assert.deepEqual(
      h.fake.requests.slice(before).map((q) => q.method),
      ['GET'],
    );
    assert.equal(r.stats.unchanged, 1);
  });
});

test('drift (manifest re-applied without caBundle) is repaired at the next periodic check', async () => {
  await harness(async (h) => {
    const r = h.make({ intervalMs: 30 });
    r.start();
    await h.waitFor(() => r.stats.patches === 1, 'the first patch');
    h.fake.setCaBundle(NAME, 'pods.injector.example.com', undefined);
    await h.waitFor(() => r.stats.patches === 2, 'the repair');
    assert.equal(h.bundles()['pods.injector.example.com'], caBundleFor(caA.certPem));
    assert.equal(h.events.filter((e) => e.type === 'patched').at(-1)?.trigger, 'periodic');
  });
});

test('CA rollover: the new CA goes first and the old one stays until it expires', async () => {
  await harness(async (h) => {
    let now = new Date();
    const r = h.make({ now: () => now });
    r.start();
    await h.waitFor(() => r.stats.patches === 1, 'the first patch');
    assert.equal(r.setCAs([caA.certPem]), false, 'same CA: nothing to do');
    assert.equal(r.setCAs([caB.certPem]), true);
    await h.waitFor(() => r.stats.patches === 2, 'the rollover patch');
    assert.deepEqual(certsIn(h.bundles()['pods.injector.example.com']), [der(caB), der(caA)]);
    assert.equal(h.events.filter((e) => e.type === 'patched').at(-1)?.trigger, 'ca-changed');
    // A restarted replica that only knows B keeps A too: it is read back from the live bundle.
    const fresh = h.make({ caPems: [caB.certPem], now: () => now });
    assert.equal((await fresh.reconcileNow()).outcome, 'unchanged');
    // After A expires, the next check drops it.
    now = new Date(caA.notAfter.getTime() + DAY);
    assert.equal((await r.reconcileNow()).outcome, 'patched');
    assert.deepEqual(certsIn(h.bundles()['pods.injector.example.com']), [der(caB)]);
  });
});

test('a 409 conflict is retried with a fresh read; a persistent conflict fails the run', async () => {
  await harness(async (h) => {
    const r = h.make({ conflictRetries: 3 });
    h.fake.conflictOnNextPatches(2);
    assert.equal((await r.reconcileNow()).outcome, 'patched');
    assert.deepEqual(
      h.fake.requests.map((q) => `${q.method} ${q.status}`),
      ['GET 200', 'PATCH 409', 'GET 200', 'PATCH 409', 'GET 200', 'PATCH 200'],
    );
    assert.equal(r.stats.conflicts, 2);
    assert.equal(h.bundles()['pods.injector.example.com'], caBundleFor(caA.certPem));

    r.setCAs([caB.certPem]);
    h.fake.conflictOnNextPatches(10);
    const before = patchCount(h);
    const err = await r.reconcileNow().catch((e: unknown) => e);
    assert.ok(err instanceof KubeApiError && err.status === 409);
    assert.equal(r.stats.failures, 1);
    assert.equal(patchCount(h) - before, 4, 'conflictRetries: 3 means 1 PATCH + 3 retries, then the run fails');
    assert.equal(r.stats.conflicts, 2 + 3);
  });
});

test('by default a run makes 6 PATCH attempts on a persistent conflict (1 + 5 retries)', async () => {
  await harness(async (h) => {
    const r = h.make();
    h.fake.conflictOnNextPatches(100);
    const err = await r.reconcileNow().catch((e: unknown) => e);
    assert.ok(err instanceof KubeApiError && err.status === 409);
    assert.equal(patchCount(h), 6);
  });
});

function patchCount(h: { fake: { patches(): unknown[] } }): number {
  return h.fake.patches().length;
}

test('webhooks reordered between read and write: the name test fails (422) and the retry patches the right entries', async () => {
  await harness(async (h) => {
    let reorder = true;
    const api: KubeApi = {
      get: (path, o) => h.client.get(path, o),
      patch: async (path, body, type, o) => {
        if (reorder) {
          reorder = false;
          h.fake.update(NAME, (obj) => void (obj.webhooks as JsonObject[]).reverse());
        }
        return h.client.patch(path, body, type, o);
      },
    };
    const r = h.make({ api });
    assert.equal((await r.reconcileNow()).outcome, 'patched');
    assert.deepEqual(
      h.fake.patches().map((p) => p.status),
      [422, 200],
    );
    const bundles = h.bundles();
    assert.equal(bundles['pods.injector.example.com'], caBundleFor(caA.certPem));
    assert.equal(bundles['other.example.com'], caBundleFor(foreignCA.certPem));
  });
});

test('apiserver down: failures back off exponentially to the cap, nothing throws, and it recovers', async () => {
  await harness(async (h) => {
    await h.fake.stop();
    const r = h.make();
    r.start();
    await h.waitFor(() => r.stats.failures >= 5, 'five failures');
    const delays = h.events.flatMap((e) => (e.type === 'failure' ? [e.retryInMs] : []));
    assert.deepEqual(delays.slice(0, 5), [20, 40, 80, 80, 80]);
    const failure = h.events.find((e) => e.type === 'failure');
    assert.match(failure?.type === 'failure' ? failure.error.message : '', /ECONNREFUSED/);
    await h.fake.restart();
    await h.waitFor(() => r.stats.patches === 1, 'recovery');
    assert.equal(r.stats.consecutiveFailures, 0);
    assert.equal(h.bundles()['pods.injector.example.com'], caBundleFor(caA.certPem));
  });
});

test('token rotation: a refused token fails, the rotated file is picked up on the next try', async () => {
  await harness(async (h) => {
    const r = h.make();
    h.fake.tokens.clear();
    h.fake.tokens.add('t2');
    r.start();
    await h.waitFor(() => r.stats.failures === 1, 'a 401');
    const failure = h.events.find((e) => e.type === 'failure');
    assert.equal(failure?.type === 'failure' && failure.error instanceof KubeApiError && failure.error.status, 401);
    await writeFile(join(h.saDir, 'token'), 't2');
    await h.waitFor(() => r.stats.patches === 1, 'success with the new token');
    assert.equal(h.fake.requests.at(-1)?.authorization, 'Bearer t2');
  });
});

test('explicit webhook names; none found, a missing configuration and expired CAs are failures without a PATCH; no CA yet is a no-op', async () => {
  await harness(async (h) => {
    const named = h.make({ webhookNames: ['ns.injector.example.com', 'gone.example.com'], service: undefined });
    assert.deepEqual((await named.reconcileNow()).webhooks, ['ns.injector.example.com']);
    assert.equal(h.bundles()['pods.injector.example.com'], undefined);
    assert.ok(h.events.some((e) => e.type === 'warning' && /"gone.example.com" are not in/.test(e.message)));

    const none = h.make({ webhookNames: ['nope'], service: undefined });
    await assert.rejects(none.reconcileNow(), (e: unknown) => (e as { code?: string }).code === 'SI_CLUSTER_WEBHOOK_MISSING');
    const absent = h.make({ webhookConfigName: 'not-there' });
    await assert.rejects(absent.reconcileNow(), (e: unknown) => e instanceof KubeApiError && e.status === 404);
    const expired = h.make({ now: () => new Date(caB.notAfter.getTime() + DAY), caPems: [caA.certPem] });
    const before = h.fake.patches().length;
    await assert.rejects(expired.reconcileNow(), /every current CA has expired/);
    assert.equal(h.fake.patches().length, before);
    assert.throws(() => named.setCAs(['not a certificate']), /no "BEGIN CERTIFICATE"/);
    const noCA = h.make({ caPems: undefined });
    const requests = h.fake.requests.length;
    assert.equal((await noCA.reconcileNow()).outcome, 'no-ca');
    assert.equal(h.fake.requests.length, requests, 'without a CA it does not even read');
  });
});

test('stop() cancels the timer and an in-flight request; a throwing listener breaks nothing', async () => {
  await harness(async (h) => {
    const r = h.make({
      intervalMs: 10,
      onEvent: () => {
        throw new Error('listener bug');
      },
    });
    r.start();
    await h.waitFor(() => r.stats.attempts >= 3, 'a few periodic runs');
    await r.stop();
    // A request aborted by stop() may still reach the server; let those land, then expect silence
    // for many periods of the 10 ms timer.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const count = h.fake.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(h.fake.requests.length, count, 'no request after stop');

    let aborted = false;
    const hanging: KubeApi = {
      get: (_path, o) =>
        new Promise((_resolve, reject) => {
          o?.signal?.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          });
        }),
      patch: () => Promise.reject(new Error('unused')),
    };
    const stuck = h.make({ api: hanging });
    stuck.start();
    await h.waitFor(() => stuck.stats.attempts === 1, 'the hanging run');
    await stuck.stop();
    assert.equal(aborted, true);
    assert.equal(stuck.stats.failures, 0, 'a cancelled run is not a failure');
  });
});

test('RBAC: get and patch on that one MutatingWebhookConfiguration, nothing else', () => {
  assert.deepEqual(caBundleRules('sidecar-injector'), [
    { apiGroups: ['admissionregistration.k8s.io'], resources: ['mutatingwebhookconfigurations'], verbs: ['get', 'patch'], resourceNames: ['sidecar-injector'] },
  ]);
  assert.equal(
    grantText(caBundleRules('sidecar-injector')),
    'get and patch on mutatingwebhookconfigurations/sidecar-injector',
    'the hint on a 403 names the grant',
  );
});
