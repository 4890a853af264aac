/**
 * Issue 25, the same install from `manifests`' output (kubectl apply), and self-healing by
 * itself: `manifests --reconcile-restart --no-certs` with our image, the TLS Secret made from
 * `sidecar-injector certs`, and no caBundle in what was applied.
 *
 * 25-3a 2 replicas Ready, 2 Service endpoints, the caBundle filled by the injector itself (there
 *       was none), and a labelled namespace's Deployment running 2/2 with the sidecar.
 * 25-3b after a config change (the ConfigMap edited; the servers reload it), `serve --reconcile
 *       --reconcile-restart` in the injector's pods, under the RBAC `manifests` wrote, restarts
 *       the stale Deployment by itself: old pods gone, new ones Running with the new sidecar,
 *       and the Events say so.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../cluster/paths.js';
import { apply, cli, createNamespace, deleteNamespaces, getJson, kubectl, pods, waitFor, type Obj } from '../lib/kube.js';
import { appDeployment, noNodeReason, ourImage, waitRunning } from '../lib/node.js';
import { caBundles, e2eValues, makeCerts, scratchDir, waitInjectorReady, writeFile } from '../lib/install.js';

const skip = await noNodeReason();
const NAME = 'si-manifests';
const APP = 'i25-heal';
const dir = scratchDir('i25-manifests-');
let objects: Obj[] = [];

before(async () => {
  if (skip !== false) return;
  await deleteNamespaces(APP);
});
after(async () => {
  if (skip === false) {
    for (const o of objects.filter((x) => x.kind.startsWith('Cluster') || x.kind === 'MutatingWebhookConfiguration')) {
      await kubectl(['delete', o.kind.toLowerCase(), o.metadata.name, '--ignore-not-found'], { allowFail: true });
    }
    await deleteNamespaces(APP, NAME);
  }
  rmSync(dir, { recursive: true, force: true });
});

const sidecarOf = (pod: Obj): Obj | undefined => [...(pod.spec.initContainers ?? []), ...pod.spec.containers].find((c: Obj) => c.name === 'sidecar-proxy');

test('scenario 25-3a: manifests --no-certs --reconcile-restart applied: 2 replicas Ready, endpoints, caBundle filled by the injector, 2/2 pods', {
  skip,
}, async (t) => {
  writeFile(dir, 'config', readFileSync(join(repoRoot, 'defaults/config.yaml'), 'utf8'));
  writeFile(dir, 'values', e2eValues());
  const out = await cli([
    'manifests',
    '--name',
    NAME,
    '--namespace',
    NAME,
    '--image',
    ourImage().reference,
    '--no-certs',
    '--reconcile-restart',
    '--config',
    dir,
  ]);
  objects = parseAllDocuments(out.stdout)
    .map((d) => d.toJS() as Obj)
    .filter((o) => o?.kind);
  const mwc = objects.find((o) => o.kind === 'MutatingWebhookConfiguration')!;
  assert.ok(
    (mwc.webhooks as Obj[]).every((w) => !w.clientConfig.caBundle),
    'manifests --no-certs wrote a caBundle',
  );
  const t0 = Date.now();
  await kubectl(['apply', '-f', '-'], { input: out.stdout });
  const certs = await makeCerts(NAME, NAME, join(dir, 'certs'));
  await kubectl([
    '-n',
    NAME,
    'create',
    'secret',
    'generic',
    `${NAME}-tls`,
    `--from-file=tls.crt=${certs.cert}`,
    `--from-file=tls.key=${certs.key}`,
    `--from-file=ca.crt=${certs.ca}`,
  ]);
  const injectors = await waitInjectorReady(NAME, NAME, NAME, 2);
  const ca = readFileSync(certs.ca).toString('base64');
  await waitFor('the injector to fill the caBundle', async () => (await caBundles(NAME)).every((b) => b === ca), 60_000);
  t.diagnostic(`kubectl apply to 2 ready replicas and the caBundle filled: ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  // Only the server's own lines: no runtime warning (the single executable printed one with --reconcile).
  for (const p of injectors) assert.doesNotMatch((await kubectl(['-n', NAME, 'logs', p.metadata.name])).stdout, /Warning/);

  await createNamespace(APP, { 'istio-injection': 'enabled' });
  await apply(appDeployment('api', APP, { replicas: 2 }));
  const running = await waitRunning(APP, 'app=api', 2);
  assert.ok(
    running.every((p) => sidecarOf(p)),
    'a pod runs without the sidecar',
  );
});

test('scenario 25-3b: serve --reconcile-restart in the injector restarts the stale Deployment by itself after a config change', { skip }, async (t) => {
  const before = await waitRunning(APP, 'app=api', 2);
  await kubectl(['-n', NAME, 'patch', 'configmap', NAME, '--type=merge', '-p', JSON.stringify({ data: { values: e2eValues({ logLevel: 'debug' }) } })]);
  const t0 = Date.now();
  const renewed = await waitFor(
    'the reconciler to replace the stale pods',
    async () => {
      const list = (await pods(APP, 'app=api')).filter((p) => !p.metadata.deletionTimestamp);
      const fresh = list.filter((p) => (sidecarOf(p)?.args as string[]).includes('--proxyLogLevel=debug'));
      const ready = fresh.filter((p) => (p.status?.conditions ?? []).some((c: Obj) => c.type === 'Ready' && c.status === 'True'));
      return list.length === 2 && ready.length === 2 ? ready : undefined;
    },
    240_000,
    2000,
  ).catch(async (err: Error) => {
    // What the injector did instead: its reconcile log lines, and the Deployment's Events.
    const logs = await Promise.all(
      (await pods(NAME)).map(async (p) =>
        (await kubectl(['-n', NAME, 'logs', p.metadata.name], { allowFail: true })).stdout
          .split('\n')
          .filter((l) => /reconcile|restart|config/.test(l) && !/"msg":"admission/.test(l))
          .slice(-15)
          .join('\n'),
      ),
    );
    const events = await kubectl(['-n', APP, 'get', 'events', '--field-selector', 'involvedObject.name=api'], { allowFail: true });
    throw new Error(`${err.message}\ninjector logs:\n${logs.join('\n--\n')}\nevents:\n${events.stdout}`);
  });
  t.diagnostic(`config change to both pods replaced by the reconciler: ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  const old = new Set(before.map((p) => p.metadata.name));
  assert.ok(renewed.every((p) => !old.has(p.metadata.name)));
  await waitFor('the old pods to be gone', async () => (await pods(APP, 'app=api')).every((p) => !old.has(p.metadata.name)), 60_000);
  const events = await getJson(['events', '-n', APP, '--field-selector', 'involvedObject.kind=Deployment,involvedObject.name=api']);
  const reasons = (events.items as Obj[]).map((e) => e.reason as string);
  assert.ok(reasons.includes('SidecarRestarted'), `no SidecarRestarted event: ${reasons.join(', ')}`);
});
