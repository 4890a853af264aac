/**
 * Issue 25, the examples with pods that run.
 *
 * 25-4a examples/nginx-sidecar, the tutorial's static sidecar, by its README's cluster steps
 *       (`manifests --config examples/nginx-sidecar/config.yaml --image ... --certs-dir`, apply,
 *       label the namespace, apply app.yaml): the pod runs 2/2, and the real nginx (Debian's,
 *       packed by e2e/build/images.sh as e2e.local/nginx:1.22, in place of nginx:1.12.2) answers
 *       with the text of the ConfigMap-mounted nginx.conf. The app's alpine image is replaced by
 *       busybox (the same `sh -c "sleep infinity"`); nothing else in the example is changed.
 * 25-4b uninject round trip on a running workload: `inject -f` (as with istioctl kube-inject)
 *       applied runs 2/2 with the sidecar answering; `uninject` of the live Deployment, applied,
 *       rolls out pods that run without the sidecar, with the pod template the user wrote.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { repoRoot } from '../cluster/paths.js';
import { cli, createNamespace, deleteNamespaces, getJson, kubectl, pods, waitFor, type Obj } from '../lib/kube.js';
import { appDeployment, CHECKS_SIDECAR, getPodsTable, httpGet, IMAGES, noNodeReason, ourImage, podStatus, waitRunning } from '../lib/node.js';
import { e2eValues, scratchDir, waitInjectorReady, writeFile } from '../lib/install.js';

const skip = await noNodeReason();
const INJECTOR = 'i25-nginx-injector';
const TEST_NS = 'sidecar-injector-test'; // examples/nginx-sidecar/app.yaml's namespace
const MANUAL = 'i25-manual';
const dir = scratchDir('i25-examples-');
let installed: Obj[] = [];

before(async () => {
  if (skip !== false) return;
  await deleteNamespaces(TEST_NS, MANUAL);
});
after(async () => {
  if (skip === false) {
    for (const o of installed.filter((x) => x.kind.startsWith('Cluster') || x.kind === 'MutatingWebhookConfiguration')) {
      await kubectl(['delete', o.kind.toLowerCase(), o.metadata.name, '--ignore-not-found'], { allowFail: true });
    }
    await deleteNamespaces(TEST_NS, MANUAL, INJECTOR);
  }
  rmSync(dir, { recursive: true, force: true });
});

const example = (f: string): string => readFileSync(join(repoRoot, 'examples/nginx-sidecar', f), 'utf8');

test('scenario 25-4a: examples/nginx-sidecar by its README: 2/2 Running, nginx serves the ConfigMap-mounted nginx.conf', { skip }, async (t) => {
  const config = writeFile(dir, 'nginx-config.yaml', example('config.yaml').replace('image: nginx:1.12.2', `image: ${IMAGES.nginx}`));
  assert.notEqual(readFileSync(config, 'utf8'), example('config.yaml'), 'the example no longer names nginx:1.12.2');
  const app = writeFile(dir, 'app.yaml', example('app.yaml').replace('image: alpine:3.20', `image: ${IMAGES.busybox}`));
  const out = await cli([
    'manifests',
    '--config',
    config,
    '--image',
    ourImage().reference,
    '--certs-dir',
    join(dir, 'certs'),
    '--name',
    INJECTOR,
    '--namespace',
    INJECTOR,
  ]);
  installed = parseAllDocuments(out.stdout)
    .map((d) => d.toJS() as Obj)
    .filter((o) => o?.kind);
  await kubectl(['apply', '-f', '-'], { input: out.stdout });
  await waitInjectorReady(INJECTOR, INJECTOR, INJECTOR, 2);
  await createNamespace(TEST_NS);
  await kubectl(['label', 'namespace', TEST_NS, 'sidecar-injector=enabled']);
  await kubectl(['apply', '-f', app]);
  const [pod] = await waitRunning(TEST_NS, 'app=alpine', 1);
  t.diagnostic(`kubectl -n ${TEST_NS} get pods\n${await getPodsTable(TEST_NS)}`);
  const names = (pod!.spec.containers as Obj[]).map((c) => c.name);
  assert.deepEqual(names, ['alpine', 'sidecar-nginx']);
  assert.ok((pod!.spec.volumes as Obj[]).some((v) => v.configMap?.name === 'nginx-configmap'));
  const { ip } = await podStatus(TEST_NS, pod!.metadata.name);
  const answer = await waitFor(
    'nginx to answer',
    async () => {
      try {
        return await httpGet(`http://${ip}:80/`, 2000);
      } catch {
        return undefined;
      }
    },
    30_000,
  );
  assert.equal(answer.body, 'hello from the nginx sidecar\n', 'nginx did not serve the mounted nginx.conf');
  assert.match(String(answer.headers.server), /^nginx\/1\.22/);
});

test('scenario 25-4b: uninject round trip on a running workload: inject -f applied runs with the sidecar; uninject applied runs without', {
  skip,
}, async (t) => {
  const config = scratchDir('i25-inject-config-');
  writeFile(config, 'config', readFileSync(join(repoRoot, 'defaults/config.yaml'), 'utf8'));
  writeFile(config, 'values', e2eValues());
  await createNamespace(MANUAL);
  const original = appDeployment('orders', MANUAL, { args: CHECKS_SIDECAR });
  const injected = await cli(['inject', '-f', '-', '--config', config], { input: original });
  await kubectl(['apply', '-f', '-'], { input: injected.stdout });
  const [withSidecar] = await waitRunning(MANUAL, 'app=orders', 1);
  const answer = await httpGet(`http://${(await podStatus(MANUAL, withSidecar!.metadata.name)).ip}:15006/`);
  assert.equal(answer.headers['x-proxied-by'], `sidecar-proxy/${withSidecar!.metadata.name}`);
  assert.equal(answer.headers['x-checked-at-start'], 'yes');

  const live = (await kubectl(['-n', MANUAL, 'get', 'deployment', 'orders', '-o', 'yaml'])).stdout;
  const uninjected = await cli(['uninject', '-f', '-'], { input: live });
  await kubectl(['replace', '-f', '-'], { input: uninjected.stdout });
  await kubectl(['-n', MANUAL, 'rollout', 'status', 'deployment/orders', '--timeout=120s'], { timeoutMs: 130_000 });
  await waitFor(
    'the injected pod to be gone',
    async () => (await pods(MANUAL, 'app=orders')).every((p) => p.metadata.name !== withSidecar!.metadata.name),
    60_000,
  );
  const [plain] = await waitRunning(MANUAL, 'app=orders', 1);
  t.diagnostic(`kubectl -n ${MANUAL} get pods\n${await getPodsTable(MANUAL)}`);
  assert.deepEqual(
    (plain!.spec.containers as Obj[]).map((c) => c.name),
    ['orders'],
  );
  assert.equal(plain!.spec.initContainers, undefined);
  const ip = (await podStatus(MANUAL, plain!.metadata.name)).ip;
  const direct = await httpGet(`http://${ip}:8080/`);
  assert.equal(direct.headers['x-checked-at-start'], 'no', "a sidecar answered at the uninjected app's start");
  await assert.rejects(httpGet(`http://${ip}:15006/`, 2000), 'something still listens on the sidecar port');
  // The template is the one the user wrote: what uninject gives back is the original.
  const template = (await getJson(['deployment', 'orders', '-n', MANUAL])).spec.template as Obj;
  const want = (parse(original) as Obj).spec.template as Obj;
  assert.deepEqual(template.metadata.labels, want.metadata.labels);
  assert.equal(
    Object.keys(template.metadata.annotations ?? {}).filter((k) => !k.startsWith('kubectl.kubernetes.io/restartedAt')).length,
    0,
    `annotations left: ${JSON.stringify(template.metadata.annotations)}`,
  );
  assert.equal(template.spec.volumes, undefined);
  assert.deepEqual(
    template.spec.containers.map((c: Obj) => [c.name, c.image, c.args]),
    want.spec.containers.map((c: Obj) => [c.name, c.image, c.args]),
  );
  rmSync(config, { recursive: true, force: true });
});
