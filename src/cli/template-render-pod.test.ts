/**
 * `template render -f POD --config CFG` renders exactly what injection renders (issue 12): the
 * overlay equals the core's, `--merged` equals `inject`, a template error exits 3 with Go's
 * message, an unknown --template names the ones there are.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { loadConfig } from '../profiles/index.js';
import { injectPod } from '../inject/index.js';
import { memoryIO } from '../../test/support/memory-io.js';
import { runCli } from './command-tree.js';

let dir: string;
let podFile: string;
const OLD_NGINX = `policy: disabled
injectionKeys:
  inject: sidecar-injector-webhook.morven.me/inject
defaultTemplates: [nginx]
templates:
  nginx: |
    spec:
      containers:
      - name: sidecar-nginx
        image: {{ .Values.image | quote }}
      volumes:
      - name: nginx-conf
        configMap:
          name: {{ annotation .ObjectMeta "example.com/nginx-config" .Values.configMapName | quote }}
  broken: |
    spec:
      containers:
      - name: x
        image: {{ fail "no image for x" }}
values:
  image: nginx:1.27-alpine
  configMapName: nginx-configmap
`;
const POD = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    metadata:
      annotations: {example.com/nginx-config: my-conf}
    spec:
      containers: [{name: web, image: nginx}]
`;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'si-render-pod-'));
  podFile = join(dir, 'pod.yaml');
  await writeFile(podFile, POD);
  await writeFile(join(dir, 'config.yaml'), OLD_NGINX);
});
after(() => rm(dir, { recursive: true, force: true }));

async function run(...argv: string[]) {
  const io = memoryIO();
  const code = await runCli(['template', 'render', ...argv], io);
  return { code, out: io.out, err: io.err };
}

describe('template render -f POD --config CFG', () => {
  it('renders the config template with the typed pod data (.ObjectMeta works) and prints the overlay', async () => {
    const r = await run('-c', join(dir, 'config.yaml'), '-f', podFile);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^# template: nginx\n/);
    assert.deepEqual(parse(r.out), {
      spec: { containers: [{ name: 'sidecar-nginx', image: 'nginx:1.27-alpine' }], volumes: [{ name: 'nginx-conf', configMap: { name: 'my-conf' } }] },
    });
  });

  it('--merged prints what injection gives', async () => {
    const r = await run('-c', join(dir, 'config.yaml'), '-f', podFile, '--merged');
    assert.equal(r.code, 0, r.err);
    const config = await loadConfig(join(dir, 'config.yaml'));
    const template = (parse(POD) as { spec: { template: Record<string, unknown> } }).spec.template;
    const want = injectPod(template, { namespace: 'shop', mode: 'manual', owner: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' } }, config);
    assert.equal(want.kind, 'injected');
    // A whole Pod: the workload's template with apiVersion, kind, the workload's name and the namespace.
    if (want.kind === 'injected') {
      const meta = want.pod.metadata as Record<string, unknown>;
      assert.deepEqual(parse(r.out), { apiVersion: 'v1', kind: 'Pod', ...want.pod, metadata: { name: 'web', namespace: 'shop', ...meta } });
      assert.match(r.out, /^apiVersion: v1\nkind: Pod\nmetadata:\n {2}name: web\n {2}namespace: shop\n/);
    }
  });

  it("--template picks one; a template error exits 3 with Go's message; an unknown name lists the known ones", async () => {
    const broken = await run('-c', join(dir, 'config.yaml'), '-f', podFile, '--template', 'broken');
    assert.equal(broken.code, 3);
    assert.match(broken.err, /template: broken:4:\d+: executing "broken" at <fail "no image for x">: error calling fail: no image for x/);
    const nope = await run('-c', join(dir, 'config.yaml'), '-f', podFile, '--template', 'nope');
    assert.equal(nope.code, 6);
    assert.match(nope.err, /no template named "nope" in the config; it has: nginx, broken/);
  });

  it('the built-in config by default; a file without pods says so; a template file and -f together is a usage error', async () => {
    const r = await run('-f', podFile);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /# template: sidecar/);
    await writeFile(join(dir, 'svc.yaml'), 'apiVersion: v1\nkind: Service\nmetadata: {name: s}\n');
    const none = await run('-f', join(dir, 'svc.yaml'));
    assert.equal(none.code, 5);
    assert.match(none.err, /holds no pod or pod template/);
    assert.equal((await run('x.tpl', '-f', podFile)).code, 2);
    assert.equal((await run()).code, 2);
  });
});
