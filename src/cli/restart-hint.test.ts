/**
 * @module cli/restart-hint.test
 * `restart --stale` warns when the webhook in the cluster serves another config than --config
 * (issue 27, item 9). The cluster objects are the ones `manifests` writes (the Helm chart renders
 * the same ones, helm-chart.test): the Deployment's `serve --config` mount leads to the ConfigMap.
 * The same config in another layout is no difference; URL mode has nothing to read. The e2e
 * self-healing scenario runs it against a real apiserver.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { defaultConfig, loadConfig } from '../profiles/index.js';
import { generateInstall, type InstallRequest } from '../install/build-manifests.js';
import type { ClusterApi } from '../kube/cluster-api.js';
import { MWC_PATH } from '../kube/live-webhook-config.js';
import { servedConfigHint, servedConfigMap } from './restart-hint.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- generated objects are loose JSON

let dir: string;
let newer: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'si-restart-hint-'));
  newer = join(dir, 'newer');
  const values = await readFile(new URL('../../defaults/values.yaml', import.meta.url), 'utf8');
  const config = await readFile(new URL('../../defaults/config.yaml', import.meta.url), 'utf8');
  await mkdir(newer);
  await writeFile(join(newer, 'config'), config);
  await writeFile(join(newer, 'values'), values.replace(/tag: "[^"]+"/, 'tag: "9.9.9"'));
});
after(() => rm(dir, { recursive: true, force: true }));

/** A ClusterApi over the objects `manifests` writes. */
async function cluster(request: InstallRequest): Promise<{ api: ClusterApi; objects: Obj[] }> {
  const objects = (await generateInstall({ certsDir: join(dir, 'certs'), ...request })).objects as Obj[];
  const path = (o: Obj): string => {
    if (o.kind === 'MutatingWebhookConfiguration') return `${MWC_PATH}/${o.metadata.name}`;
    if (o.kind === 'Deployment') return `/apis/apps/v1/namespaces/${o.metadata.namespace}/deployments/${o.metadata.name}`;
    return `/api/v1/namespaces/${o.metadata.namespace}/${o.kind.toLowerCase()}s/${o.metadata.name}`;
  };
  const api = {
    defaultNamespace: 'default',
    async find(p: string) {
      return objects.find((o) => path(o) === p);
    },
    async list() {
      return { items: objects.filter((o) => o.kind === 'MutatingWebhookConfiguration'), resourceVersion: '1' };
    },
  } as unknown as ClusterApi;
  return { api, objects };
}

test('the Deployment manifests writes leads to its ConfigMap', async () => {
  const { objects } = await cluster({ name: 'mesh-injector', namespace: 'mesh' });
  const deployment = objects.find((o) => o.kind === 'Deployment')!;
  assert.equal(servedConfigMap(deployment), objects.find((o) => o.kind === 'ConfigMap')!.metadata.name);
});

test('--config other than the served one: a warning naming the Deployment, the ConfigMap and what to do', async () => {
  const { api } = await cluster({ name: 'mesh-injector', namespace: 'mesh' });
  const hint = await servedConfigHint(api, await loadConfig(newer), 'mesh-injector');
  assert.match(
    hint ?? '',
    /^the webhook \(Deployment mesh\/mesh-injector\) serves the config in ConfigMap mesh\/mesh-injector, not the config given with --config \(.*newer\): /,
  );
  assert.match(
    hint ?? '',
    /pods restarted now get the served config and may still be stale\. Update the served config first \(sidecar-injector manifests -c CONFIG \| kubectl apply -f -, or helm upgrade\)/,
  );
});

test('the served config given again in another layout (config.yaml/values.yaml) is no difference; the webhook found by label too', async () => {
  const { api } = await cluster({ name: 'sidecar-injector', config: newer });
  const copy = join(dir, 'copy');
  await mkdir(copy);
  await writeFile(join(copy, 'config.yaml'), await readFile(join(newer, 'config'), 'utf8'));
  await writeFile(join(copy, 'values.yaml'), `# a comment changes nothing\n${await readFile(join(newer, 'values'), 'utf8')}`);
  assert.equal(await servedConfigHint(api, await loadConfig(copy), undefined), undefined);
  // The built-in config against a cluster serving the newer tag: said, naming the built-in one.
  assert.match((await servedConfigHint(api, defaultConfig(), undefined)) ?? '', /not the built-in config \(no --config given\)/);
});

test("restart --revision: the revision's served config read as that revision is no difference; another config is", async () => {
  const { api } = await cluster({ name: 'sidecar-injector', config: newer, revision: 'canary' });
  // status and restart load --config as the revision (values.revision set): the served one must be read the same way.
  assert.equal(await servedConfigHint(api, await loadConfig(newer, { revision: 'canary' }), 'sidecar-injector-canary', 'canary'), undefined);
  assert.match(
    (await servedConfigHint(api, defaultConfig({ revision: 'canary' }), 'sidecar-injector-canary', 'canary')) ?? '',
    /serves the config in ConfigMap sidecar-injector\/sidecar-injector-canary, not the built-in config/,
  );
});

test('URL mode (no Deployment in the cluster): nothing to compare, no warning', async () => {
  const { api } = await cluster({ name: 'dev', webhookUrl: 'https://127.0.0.1:9443' });
  assert.equal(await servedConfigHint(api, await loadConfig(newer), 'dev'), undefined);
});
