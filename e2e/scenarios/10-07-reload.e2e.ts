/**
 * Scenario 9 of the control-plane issue: the config is reloaded (a mounted ConfigMap's `..data`
 * symlink swap, as kubelet does it) while Deployments scale up. No pod creation fails during
 * the switch, every pod is injected, and pods created after the reload carry the new template.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../cluster/paths.js';
import { createNamespace, deleteNamespaces, getJson, kubectl, pods, waitFor, type Obj } from '../lib/kube.js';
import { appPod, dryRunCreate, startWebhook, waitUntilInjecting, type RunningWebhook } from '../lib/webhook.js';
import { ENABLED, SIDECAR, assertInjected } from '../lib/injected.js';

const NS = 'e2e-reload';
const OLD = 'docker.io/istio/proxyv2:1.24.2';
const NEW = 'docker.io/istio/proxyv2:1.24.3';
let hook: RunningWebhook;
let configDir: string;

/** A directory laid out as kubelet mounts a ConfigMap: files are links through `..data`. */
async function writeVersion(version: string, values: string): Promise<void> {
  const dir = join(configDir, `..${version}`);
  await mkdir(dir);
  await writeFile(join(dir, 'config'), await readFile(join(repoRoot, 'defaults/config.yaml')));
  await writeFile(join(dir, 'values'), values);
  await symlink(`..${version}`, join(configDir, '..data_tmp'));
  await rename(join(configDir, '..data_tmp'), join(configDir, '..data'));
}

before(async () => {
  configDir = await mkdtemp(join(tmpdir(), 'si-e2e-config-'));
  const values = await readFile(join(repoRoot, 'defaults/values.yaml'), 'utf8');
  assert.match(values, /tag: "1\.24\.2"/);
  await writeVersion('v1', values);
  for (const f of ['config', 'values']) await symlink(`..data/${f}`, join(configDir, f));
  await createNamespace(NS, ENABLED);
  hook = await startWebhook({ name: 'e2e-reload', config: configDir });
  await waitUntilInjecting(NS, SIDECAR);
});
after(async () => {
  await hook?.remove();
  await deleteNamespaces(NS);
  await rm(configDir, { recursive: true, force: true });
});

const sidecarImage = (pod: Obj): string => (pod.spec.containers as Obj[]).find((c) => c.name === SIDECAR)!.image;
const deployment = (name: string): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } },
  },
});
const scale = (name: string, n: number) => kubectl(['-n', NS, 'scale', 'deployment', name, `--replicas=${n}`]);
const waitPods = (name: string, n: number) =>
  waitFor(
    `${n} pods of ${name}`,
    async () => {
      const list = await pods(NS, `app=${name}`);
      return list.length >= n ? list : undefined;
    },
    120_000,
    300,
  );

test('scenario 9: a config reload while Deployments scale up fails no creation; pods after it carry the new template', async () => {
  const names = ['scale-a', 'scale-b'];
  for (const n of names) await kubectl(['-n', NS, 'create', '-f', '-'], { input: JSON.stringify(deployment(n)) });
  for (const n of names) await scale(n, 3);
  for (const n of names) for (const pod of await waitPods(n, 3)) assert.equal(sidecarImage(pod), OLD);

  // Scale up and swap the config at the same moment.
  const values = (await readFile(join(repoRoot, 'defaults/values.yaml'), 'utf8')).replace('tag: "1.24.2"', 'tag: "1.24.3"');
  await Promise.all([...names.map((n) => scale(n, 8)), writeVersion('v2', values)]);
  await waitFor('the reloaded config to inject the new image', async () => sidecarImage(await dryRunCreate(NS, appPod('probe'))) === NEW, 30_000, 200);
  const before = new Map<string, Set<string>>();
  for (const n of names) before.set(n, new Set((await waitPods(n, 8)).map((p) => p.metadata.name as string)));
  for (const n of names) await scale(n, 12);

  for (const n of names) {
    const list = await waitPods(n, 12);
    assert.equal(list.length, 12, `${n}: exactly the replicas asked for`);
    for (const pod of list) {
      assertInjected(pod, `${n}/${pod.metadata.name}`);
      assert.ok([OLD, NEW].includes(sidecarImage(pod)), `${pod.metadata.name}: the old or the new sidecar, nothing in between`);
    }
    const later = list.filter((p) => !before.get(n)!.has(p.metadata.name));
    assert.equal(later.length, 4);
    // Created after the reload was observed: all on the new template.
    for (const pod of later) assert.equal(sidecarImage(pod), NEW, `${pod.metadata.name} (created after the reload)`);
  }
  const failed = await getJson(['events', '-n', NS, '--field-selector', 'reason=FailedCreate']);
  assert.deepEqual(
    failed.items.map((e: Obj) => e.message),
    [],
    'no pod creation failed during the switch',
  );
});
