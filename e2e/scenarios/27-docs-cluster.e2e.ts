/**
 * Issue 27, "every command the docs show runs as written": README.md's `# needs: a cluster`
 * blocks run against the node, as a reader runs them, in order, in one scratch directory (a
 * clone's files, `sidecar-injector` on PATH the built CLI). The blocks come from README.md itself
 * (`shellBlocks`), so an edit of the README is what runs. The only things prepared are what a
 * reader already has before the first block (each fixture below says why it exists).
 *
 * 27-1a the Helm install block, then the label / restart / get pods block: both exit 0, and
 *       `kubectl -n shop get pods` shows every web pod 2/2 Running, as the README's sample does.
 * 27-1b the self-healing block (`status`, `restart --stale --missing` dry run and `--yes`) exits
 *       0 (nothing stale or missing right after the restart) and prints the README's header line.
 * 27-1c the kubectl install block (the alternative to Helm), after `helm uninstall`: exits 0, and
 *       a restart of web gives pods with the sidecar, 2/2 Running.
 * 27-1d examples/policy-nginx-sidecar/README.md's block (policy mode, no webhook): exits 0; the
 *       apiserver itself injects the nginx sidecar, the pod runs 2/2, nginx answers with the
 *       ConfigMap's nginx.conf.
 * 27-1e docs/policy-mode.md's block (the same config, default name, namespace shop): exits 0.
 * Each file's blocks run in a scratch directory of their own, as the shell-blocks test does.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { repoRoot } from '../cluster/paths.js';
import { apply, cliPath, createNamespace, deleteNamespaces, getJson, kubectl, pods, run, waitFor, type Obj } from '../lib/kube.js';
import { appDeployment, getPodsTable, httpGet, IMAGES, noNodeReason, ourImage, podStatus, tagImage, waitRunning } from '../lib/node.js';
import { helm, injectorSelector, writeFile } from '../lib/install.js';
import { blockScript, sandbox, shellBlocks, type ShellBlock } from '../../test/support/shell-blocks.js';

const skip = await noNodeReason();
const INJ = 'sidecar-injector'; // the README's release, namespace and webhook configuration name
const SHOP = 'shop'; // the README's namespace
const cluster = shellBlocks('README.md').filter((b) => b.needs === 'a cluster');
const block = (what: string, needle: string): ShellBlock => {
  const found = cluster.find((b) => b.text.includes(needle));
  if (!found)
    throw new Error(`README.md has no "# needs: a cluster" block with "${needle}" (${what}); update e2e/scenarios/27-docs-cluster.e2e.ts with the README`);
  return found;
};
const HELM = block('the Helm install', 'helm install sidecar-injector');
const KUBECTL = block('the kubectl install', 'kubectl apply -f sidecar-injector.yaml');
const LABEL = block('label, restart, get pods', 'kubectl label namespace shop');
const STATUS = block('status and restart', 'sidecar-injector status -n shop');
const POLICY_EXAMPLE = shellBlocks('examples/policy-nginx-sidecar/README.md').filter((b) => b.needs === 'a cluster');
const POLICY_DOC = shellBlocks('docs/policy-mode.md').filter((b) => b.needs === 'a cluster');
const TEST_NS = 'sidecar-injector-test'; // examples/policy-nginx-sidecar/app.yaml's namespace
const builtCli = `"${process.execPath}" "${cliPath()}"`;
const box = sandbox(builtCli);
const exampleBox = sandbox(builtCli);
const docBox = sandbox(builtCli);

before(async () => {
  if (skip !== false) return;
  await kubectl(['delete', 'namespace', SHOP, INJ, '--ignore-not-found', '--wait=true', '--timeout=120s']);
});
after(async () => {
  if (skip === false) {
    await helm(['uninstall', INJ, '-n', INJ, '--wait', '--timeout', '2m'], 150_000).catch(() => undefined);
    // What the kubectl install created outside its namespace, as the README's uninstall says.
    await kubectl(['delete', '-f', join(box.dir, 'sidecar-injector.yaml'), '--ignore-not-found', '--wait=false'], { allowFail: true });
    await kubectl(['delete', 'mutatingwebhookconfiguration', '-l', 'app.kubernetes.io/name=sidecar-injector', '--ignore-not-found'], { allowFail: true });
    // The policies and bindings (cluster-scoped), as the example's README removes them.
    for (const d of [exampleBox.dir, docBox.dir]) {
      await kubectl(['delete', '-f', join(d, 'nginx-policy.yaml'), '--ignore-not-found'], { allowFail: true });
    }
    await deleteNamespaces(SHOP, INJ, TEST_NS);
  }
  for (const d of [box.dir, exampleBox.dir, docBox.dir]) rmSync(d, { recursive: true, force: true });
});

/** Runs a README block in the scratch directory, as the reader's shell would; it must exit 0. */
async function runBlock(t: { diagnostic(m: string): void }, b: ShellBlock, where = box, timeoutMs = 300_000): Promise<string> {
  const t0 = Date.now();
  const script = writeFile(where.dir, `.block-${b.line}.sh`, `cd "${where.dir}"\n${blockScript(b)}`);
  const r = await run('bash', [script], { allowFail: true, timeoutMs, env: { ...process.env, PATH: `${where.bin}:${process.env.PATH}` } });
  const output = r.stdout + r.stderr;
  t.diagnostic(`${b.file}:${b.line} exited ${r.code} in ${((Date.now() - t0) / 1000).toFixed(1)}s\n${output}`);
  assert.equal(r.code, 0, `${b.file}:${b.line} exited ${r.code}:\n${b.text}\n---\n${output}`);
  return r.stdout;
}

/** Waits for `kubectl -n shop get pods` to list only web pods, `count` of them, all 2/2 Running. */
async function webPodsInjected(count: number): Promise<string> {
  const [, ...rows] = await waitFor(
    `${count} web pods 2/2 Running and nothing else in ${SHOP}`,
    async () => {
      await waitRunning(SHOP, 'app=web', count);
      const lines = (await getPodsTable(SHOP)).trimEnd().split('\n');
      return lines.length === count + 1 && lines.slice(1).every((l) => /^web-\S+\s+2\/2\s+Running\s/.test(l)) ? lines : undefined;
    },
    180_000,
    1000,
  );
  return rows.join('\n');
}

test('scenario 27-1a: README: the Helm install block, then label, restart, get pods: web pods 2/2 Running', { skip }, async (t) => {
  // The reader pushed our image to their registry under the name the README uses ("push it,
  // above"): the node has it as ghcr.io/...; this gives it the README's name (nothing is pulled).
  const { tag } = ourImage();
  tagImage(ourImage().reference, `registry.example.com/sidecar-injector:${tag}`);
  // The chart's default config injects Istio's proxyv2 (defaults/values.yaml: hub/proxy:tag),
  // which a reader's cluster pulls from Docker Hub; here the stand-in proxy has that name.
  const values = parse(readFileSync(join(repoRoot, 'defaults/values.yaml'), 'utf8')) as Obj;
  tagImage(IMAGES.proxy, `${values.global.hub}/${values.global.proxy.image}:${values.global.tag}`);
  // The reader's app: a namespace shop with a Deployment web, running before injection is on.
  // Its pods opt out of traffic capture with Istio's own annotation: the default config's
  // proxy-init runs istio-iptables, which the stand-in proxy image does not have.
  await createNamespace(SHOP);
  await apply(appDeployment('web', SHOP, { replicas: 2, annotations: { 'sidecar.istio.io/interceptionMode': 'NONE' } }));
  await waitRunning(SHOP, 'app=web', 2);

  await runBlock(t, HELM);
  assert.ok((await pods(INJ, injectorSelector(INJ))).every((p) => p.spec.containers[0].image === `registry.example.com/sidecar-injector:${tag}`));
  const out = await runBlock(t, LABEL);
  assert.match(out, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m, "the block's own kubectl get pods printed no table");
  // The block's `get pods` runs right after the restart (the pods are still starting); the
  // README's sample is what it shows once they run.
  const rows = await webPodsInjected(2);
  t.diagnostic(`kubectl -n ${SHOP} get pods, once the rollout is done:\n${rows}`);
  for (const p of await pods(SHOP, 'app=web')) {
    assert.ok(
      p.spec.containers.some((c: Obj) => c.name === 'sidecar-proxy'),
      `${p.metadata.name} has no sidecar`,
    );
  }
});

test("scenario 27-1b: README: the self-healing block (status, restart dry run, restart --yes) exits 0 with the README's header", { skip }, async (t) => {
  // The reader's ./injector-config is the config they installed (the chart's ConfigMap: the
  // built-in config and values), which `status` compares the pods' sidecars with.
  const cm = await getJson(['configmap', INJ, '-n', INJ]);
  mkdirSync(join(box.dir, 'injector-config'));
  writeFile(box.dir, 'injector-config/config', cm.data.config as string);
  writeFile(box.dir, 'injector-config/values', cm.data.values as string);
  const out = await runBlock(t, STATUS);
  const header = /^# (WORKLOAD .*)$/m.exec(STATUS.text)?.[1];
  assert.ok(header, "README.md's status block shows no header line");
  const words = header.split(/\s+/);
  assert.ok(
    out.split('\n').some((l) => l.trim().split(/\s+/).join(' ') === words.join(' ')),
    `no line "${header}" in:\n${out}`,
  );
  assert.match(out, /^deployment\/web\s+2\s+2\s+0\s+0\s/m, "status does not show web's 2 pods current");
});

test('scenario 27-1c: README: the kubectl install block, after helm uninstall; restarted web pods 2/2 with the sidecar', { skip }, async (t) => {
  await helm(['uninstall', INJ, '-n', INJ, '--wait', '--timeout', '2m'], 150_000);
  await kubectl(['delete', 'namespace', INJ, '--wait=true', '--timeout=120s']);
  await runBlock(t, KUBECTL);
  const before = new Set((await pods(SHOP, 'app=web')).map((p) => p.metadata.name as string));
  await kubectl(['-n', SHOP, 'rollout', 'restart', 'deployment/web']);
  await waitFor(
    'the web pods from before the restart to be gone',
    async () => (await pods(SHOP, 'app=web')).every((p) => !before.has(p.metadata.name)),
    180_000,
    1000,
  );
  t.diagnostic(await webPodsInjected(2));
});

test('scenario 27-1d: examples/policy-nginx-sidecar/README.md: the policy injects nginx, the pod runs 2/2, nginx answers', { skip }, async (t) => {
  assert.equal(POLICY_EXAMPLE.length, 1, 'examples/policy-nginx-sidecar/README.md: expected one "# needs: a cluster" block');
  // The images the example names, which a reader's cluster pulls from Docker Hub: Debian's nginx
  // and busybox stand in (the same `nginx -g 'daemon off;'` and `sh -c "sleep infinity"`).
  const config = parse(readFileSync(join(repoRoot, 'examples/policy-nginx-sidecar/config.yaml'), 'utf8')) as Obj;
  tagImage(IMAGES.nginx, `docker.io/library/${config.values.image}`);
  const app = readFileSync(join(repoRoot, 'examples/policy-nginx-sidecar/app.yaml'), 'utf8');
  const alpine = /image: (alpine:\S+)/.exec(app)?.[1];
  assert.ok(alpine, 'examples/policy-nginx-sidecar/app.yaml no longer runs alpine');
  tagImage(IMAGES.busybox, `docker.io/library/${alpine}`);
  await kubectl(['delete', 'namespace', TEST_NS, '--ignore-not-found', '--wait=true', '--timeout=120s']);

  await runBlock(t, POLICY_EXAMPLE[0]!, exampleBox);
  const [pod] = await waitRunning(TEST_NS, 'app=alpine', 1);
  t.diagnostic(`kubectl -n ${TEST_NS} get pods\n${await getPodsTable(TEST_NS)}`);
  assert.deepEqual(
    pod!.spec.containers.map((c: Obj) => c.name),
    ['alpine', 'sidecar-nginx'],
  );
  assert.ok(pod!.metadata.annotations['sidecar-injector-webhook.morven.me/status'], 'no status annotation: not injected by the policy');
  const { ip } = await podStatus(TEST_NS, pod!.metadata.name);
  assert.equal((await httpGet(`http://${ip}:80/`)).body, 'hello from the nginx sidecar\n');
});

test('scenario 27-1e: docs/policy-mode.md: the policy block exits 0', { skip }, async (t) => {
  assert.equal(POLICY_DOC.length, 1, 'docs/policy-mode.md: expected one "# needs: a cluster" block');
  // The example's policy (27-1d) goes first: the doc compiles the same config under the default name.
  await kubectl(['delete', '-f', join(exampleBox.dir, 'nginx-policy.yaml'), '--ignore-not-found']);
  await runBlock(t, POLICY_DOC[0]!, docBox);
  const policies = await getJson(['mutatingadmissionpolicies']);
  assert.ok((policies.items as Obj[]).length >= 1, 'no MutatingAdmissionPolicy after the block');
  assert.equal((await getJson(['namespace', SHOP])).metadata.labels['sidecar-injector'], 'enabled');
  // What the doc promises: the apiserver injects an opted-in pod of shop (what it would store;
  // the apiserver starts applying a new policy about a second after it is created).
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'opted-in', namespace: SHOP, annotations: { 'sidecar-injector-webhook.morven.me/inject': 'true' } },
    spec: { containers: [{ name: 'app', image: IMAGES.app }] },
  };
  const t0 = Date.now();
  await waitFor(
    'the policy to inject an opted-in pod of shop',
    async () => {
      const stored = JSON.parse((await kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], { input: JSON.stringify(pod) })).stdout) as Obj;
      return stored.spec.containers.some((c: Obj) => c.name === 'sidecar-nginx');
    },
    30_000,
    300,
  );
  t.diagnostic(`the policy injected ${((Date.now() - t0) / 1000).toFixed(1)}s after the block ended`);
});
