/**
 * Issue 14's end-to-end proof: the image `npm run image` builds (here: the same build into a
 * scratch directory) is what `manifests` deploys by default, and the apiserver accepts that
 * Deployment under the restricted Pod Security profile the manifests' Namespace enforces; the
 * ReplicaSet controller then creates pods that run the image's entrypoint (`sidecar-injector`)
 * with `serve` arguments, as the image's user. Also accepted: the same install pinned to the
 * image's digest (`--image repository@sha256:...`). This is about admission: whether the pods
 * then run is scenario 25-02's job (and the smoke test's, scripts/release/image.test.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { buildImage, type BuiltImage } from '../../scripts/release/image.js';
import { buildExe } from '../../scripts/release/test-support.js';
import { apply, cli, deleteNamespaces, getJson, kubectl, pods, waitFor, type Obj } from '../lib/kube.js';

const skip =
  process.getuid?.() !== 0
    ? 'building the image needs root (umoci)'
    : spawnSync('umoci', ['--version']).error
      ? 'umoci is not installed (scripts/install-image-tools.sh)'
      : false;
const dir = mkdtempSync(join(tmpdir(), 'i14-e2e-'));
const cleanup: Array<() => Promise<unknown>> = [];
let image: BuiltImage;
let imageConfig: { User: string; Entrypoint: string[]; Cmd: string[] };

before(() => {
  if (skip !== false) return;
  image = buildImage({
    exe: buildExe(join(dir, 'out')),
    layout: join(dir, 'image'),
    archive: join(dir, 'image.oci.tar'),
    epoch: 1_700_000_000,
    revision: 'e2e',
  });
  const blob = (digest: string) => JSON.parse(readFileSync(join(image.layout, 'blobs', ...digest.split(':')), 'utf8')) as Obj;
  imageConfig = blob(blob(image.digest).config.digest).config as typeof imageConfig;
});
after(async () => {
  for (const c of cleanup.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

const docs = (yaml: string): Obj[] =>
  parseAllDocuments(yaml)
    .map((d) => d.toJS() as Obj)
    .filter((o) => o && o.kind);

/** `manifests` for `name` (namespace = name), applied without the webhook configuration; the stored Deployment. */
async function install(name: string, extra: string[]): Promise<{ deployment: Obj; generated: Obj }> {
  cleanup.push(() => deleteNamespaces(name));
  const objects = docs((await cli(['manifests', '--name', name, '--namespace', name, ...extra])).stdout);
  for (const o of objects.filter((x) => x.kind.startsWith('Cluster')))
    cleanup.push(() => kubectl(['delete', o.kind.toLowerCase(), o.metadata.name, '--ignore-not-found'], { allowFail: true }));
  // The webhook configuration is left out: it would point opted-in pods at a server that never
  // runs here (scenario 1a applies it); the Deployment is what this scenario is about.
  await apply(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects.filter((o) => o.kind !== 'MutatingWebhookConfiguration') }));
  const generated = objects.find((o) => o.kind === 'Deployment');
  assert.ok(generated, 'manifests wrote no Deployment');
  return { deployment: await getJson(['deployment', name, '-n', name]), generated };
}

test('scenario 14a: manifests deploys the image this build produces by default; the apiserver accepts the Deployment and its pods under the restricted profile', {
  skip,
}, async () => {
  const name = 'i14-image';
  const { deployment, generated } = await install(name, []);
  const container = deployment.spec.template.spec.containers[0] as Obj;
  assert.equal(container.image, image.reference, 'the default --image is not the image npm run image tags');
  assert.deepEqual(generated.spec.template.spec.containers[0].image, image.reference);
  // The pod gives only args: the image's entrypoint runs them (`sidecar-injector serve ...`).
  assert.equal(container.command, undefined);
  assert.equal(container.args[0], imageConfig.Cmd[0]);
  assert.deepEqual(imageConfig.Entrypoint, ['/usr/local/bin/sidecar-injector']);
  // The pod runs as the image's user, which the restricted profile (enforced on the Namespace) requires to be non-root.
  const [uid, gid] = imageConfig.User.split(':').map(Number);
  const podSecurity = deployment.spec.template.spec.securityContext as Obj;
  assert.equal(podSecurity.runAsUser ?? container.securityContext?.runAsUser, uid);
  assert.equal(podSecurity.runAsGroup ?? container.securityContext?.runAsGroup, gid);
  const ns = await getJson(['namespace', name]);
  assert.equal(ns.metadata.labels['pod-security.kubernetes.io/enforce'], 'restricted');
  // The ReplicaSet controller creates the pods: Pod Security admission let them in.
  const created = await waitFor(
    'the injector pods',
    async () => {
      const list = await pods(name);
      return list.length === deployment.spec.replicas ? list : undefined;
    },
    60_000,
  );
  for (const pod of created) assert.equal(pod.spec.containers[0].image, image.reference);
});

test('scenario 14b: the same install pinned to the image digest is accepted', { skip }, async () => {
  const name = 'i14-image-digest';
  const pinned = `${image.reference.slice(0, image.reference.lastIndexOf(':'))}@${image.digest}`;
  const { deployment } = await install(name, ['--image', pinned]);
  assert.equal(deployment.spec.template.spec.containers[0].image, pinned);
  await waitFor('a pod with the pinned image', async () => (await pods(name)).some((p) => p.spec.containers[0].image === pinned), 60_000);
});
