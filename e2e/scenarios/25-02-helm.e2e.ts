/**
 * Issue 25, the injector as users run it: installed by `helm install` of its own chart, with our
 * image (`npm run image`), in service mode (the apiserver calls it through its Service), with
 * certificates from `sidecar-injector certs`. Its pods, and the pods it injects, run on the node.
 *
 * 25-2a install: 2 replicas Ready, 2 Service endpoints; the caBundle, cleared, is set again by
 *       the injector's own reconciler (in a pod, through the `kubernetes` Service).
 * 25-2b README's promise: label the namespace, restart, `kubectl get pods` shows 2/2 Running; the
 *       app answers through the sidecar (header X-Proxied-By); the native sidecar started
 *       before the app (start times, and the app saw it answer when it started).
 * 25-2c a Job with the injected native sidecar completes; the sidecar does not keep it running.
 * 25-2d `helm upgrade` (new config and image tag) under 5 pod creations/s with failurePolicy
 *       Fail: 0 refused, 0 without the sidecar, never fewer ready endpoints than the PDB's
 *       minAvailable; a second eviction is refused by the PDB; the same with one replica's pod
 *       deleted. One replica's process killed (SIGKILL): 0 without the sidecar, and refusals
 *       only for connections the dead process refused in the 3 s after the kill (see Tolerated).
 * 25-2e no self-deadlock: every injector pod deleted at once; with no operator action the
 *       Deployment's new pods are admitted (they are never sent to the webhook) and admission
 *       recovers.
 * 25-2f `restart --stale --yes` after the config change replaces the running pods: the rollout
 *       completes, old pods gone, new ones Running with the new sidecar, `status` clean.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../cluster/paths.js';
import { apply, cli, createNamespace, deleteNamespaces, getJson, kubectl, pods, waitFor, type Obj } from '../lib/kube.js';
import {
  appDeployment,
  CHECKS_SIDECAR,
  getPodsTable,
  httpGet,
  IMAGES,
  nodeCtr,
  noNodeReason,
  ourImage,
  podStatus,
  tagImage,
  waitRunning,
} from '../lib/node.js';
import {
  CHART,
  caBundles,
  chartFlags,
  e2eValues,
  helm,
  injectorSelector,
  makeCerts,
  readyEndpoints,
  scratchDir,
  waitInjectorReady,
  writeFile,
} from '../lib/install.js';
import { adminAgent, apiRequest, kubeconfigCredentials, sample, startLoad } from '../lib/load.js';

const skip = await noNodeReason();
const NAME = 'sidecar-injector';
const INJ = 'sidecar-injector';
const SHOP = 'shop';
const LOAD = 'i25-load';
const dir = scratchDir('i25-helm-');
let certs: { ca: string; cert: string; key: string };

before(async () => {
  if (skip !== false) return;
  await deleteNamespaces(SHOP, LOAD);
  certs = await makeCerts(NAME, INJ, dir);
});
after(async () => {
  if (skip === false) {
    await helm(['uninstall', NAME, '-n', INJ, '--wait', '--timeout', '2m'], 150_000).catch(() => undefined);
    await deleteNamespaces(SHOP, LOAD, INJ);
  }
  rmSync(dir, { recursive: true, force: true });
});

const sidecarOf = (pod: Obj): Obj | undefined => [...(pod.spec.initContainers ?? []), ...pod.spec.containers].find((c: Obj) => c.name === 'sidecar-proxy');

test('scenario 25-2a: helm install in service mode: 2 replicas Ready, Service endpoints, caBundle set by the injector itself', { skip }, async (t) => {
  const t0 = Date.now();
  await helm(['install', NAME, CHART, '-n', INJ, '--create-namespace', ...chartFlags(writeFile(dir, 'values.yaml', e2eValues()), certs)]);
  const injectors = await waitInjectorReady(INJ, NAME, NAME, 2);
  t.diagnostic(`helm install to 2 ready replicas and endpoints: ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  assert.ok(
    injectors.every((p) => p.spec.containers[0].image === ourImage().reference),
    'the injector does not run our image',
  );
  const ca = readFileSync(certs.ca).toString('base64');
  assert.deepEqual(new Set(await caBundles(NAME)), new Set([ca]));
  // Clear every caBundle: the injector's reconciler (serve --webhook-config, in its pods) puts it back.
  const mwc = await getJson(['mutatingwebhookconfiguration', NAME]);
  const clear = (mwc.webhooks as Obj[]).map((_, i) => ({ op: 'remove', path: `/webhooks/${i}/clientConfig/caBundle` }));
  await kubectl(['patch', 'mutatingwebhookconfiguration', NAME, '--type=json', '-p', JSON.stringify(clear)]);
  const t1 = Date.now();
  await waitFor('the injector to restore the caBundle', async () => (await caBundles(NAME)).every((b) => b === ca), 60_000);
  t.diagnostic(`caBundle restored by the injector in ${((Date.now() - t1) / 1000).toFixed(1)}s`);
});

test('scenario 25-2b: README: label the namespace, restart, 2/2 Running; the app answers through the sidecar, which started first', { skip }, async (t) => {
  await createNamespace(SHOP);
  await apply(`${appDeployment('web', SHOP, { args: CHECKS_SIDECAR })}---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: ${SHOP}}
spec: {selector: {app: web}, ports: [{port: 80, targetPort: 15006}]}
`);
  const [plain] = await waitRunning(SHOP, 'app=web', 1);
  assert.equal(sidecarOf(plain!), undefined, 'injected before the namespace was labelled');
  // The README's commands, as written.
  await kubectl(['label', 'namespace', SHOP, 'istio-injection=enabled']);
  await kubectl(['-n', SHOP, 'rollout', 'restart', 'deployment']);
  await kubectl(['-n', SHOP, 'rollout', 'status', 'deployment/web', '--timeout=120s'], { timeoutMs: 130_000 });
  const [pod] = await waitRunning(SHOP, 'app=web', 1);
  await waitFor('the old pod to be gone', async () => (await pods(SHOP, 'app=web')).length === 1, 60_000);
  const table = await getPodsTable(SHOP);
  t.diagnostic(`kubectl -n ${SHOP} get pods\n${table}`);
  // What README.md shows after the same commands: this output, and the README's sample, match.
  const shape = /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\nweb-[a-z0-9]{8,10}-[a-z0-9]{5}\s+2\/2\s+Running\s+0\s+\d+s\n$/;
  assert.match(table, shape);
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const sample = /kubectl -n shop get pods\n((?:# .*\n)+)/.exec(readme)?.[1]?.replace(/^# /gm, '');
  assert.match(sample ?? '(no sample after `kubectl -n shop get pods` in README.md)', shape);
  const sidecar = sidecarOf(pod!);
  assert.equal(sidecar?.restartPolicy, 'Always', 'the sidecar is not a native sidecar');
  // The app reached through the sidecar: directly, and through the Service (port 80 -> 15006).
  const { ip, started } = await podStatus(SHOP, pod!.metadata.name);
  const direct = await httpGet(`http://${ip}:15006/`);
  assert.equal(direct.body, `hello from ${pod!.metadata.name}\n`);
  assert.equal(direct.headers['x-proxied-by'], `sidecar-proxy/${pod!.metadata.name}`);
  const svc = (await getJson(['service', 'web', '-n', SHOP])).spec.clusterIP as string;
  assert.equal((await httpGet(`http://${svc}/`)).headers['x-proxied-by'], `sidecar-proxy/${pod!.metadata.name}`);
  assert.match((await httpGet(`http://${ip}:15090/stats/prometheus`)).body, /^e2e_proxy_requests_total [1-9]/m);
  // The native sidecar started before the app: by the kubelet's clock, and as the app saw it.
  assert.ok(started['sidecar-proxy']! <= started.web!, `sidecar started ${started['sidecar-proxy']}, app ${started.web}`);
  assert.equal(direct.headers['x-checked-at-start'], 'yes', 'the sidecar did not answer when the app started');
  // No -c: the injected kubectl.kubernetes.io/default-container annotation picks the app, not the sidecar.
  assert.match((await kubectl(['-n', SHOP, 'logs', pod!.metadata.name])).stdout, /at start, http:\/\/127\.0\.0\.1:15021\/healthz\/ready answered/);
});

test('scenario 25-2c: a Job with the injected native sidecar completes; the sidecar does not keep it running', { skip }, async (t) => {
  await apply(`
apiVersion: batch/v1
kind: Job
metadata: {name: report, namespace: ${SHOP}}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: report, image: ${IMAGES.app}, command: [/app, get, 'http://127.0.0.1:15021/healthz/ready']}
`);
  const t0 = Date.now();
  await kubectl(['-n', SHOP, 'wait', '--for=condition=Complete', 'job/report', '--timeout=90s'], { timeoutMs: 100_000 });
  t.diagnostic(`Job complete ${((Date.now() - t0) / 1000).toFixed(1)}s after creation`);
  const [pod] = await pods(SHOP, 'job-name=report');
  assert.equal(pod!.status.phase, 'Succeeded');
  assert.equal(sidecarOf(pod!)?.restartPolicy, 'Always', 'the Job pod has no native sidecar');
  const app = (pod!.status.containerStatuses as Obj[]).find((s) => s.name === 'report')!;
  assert.equal(app.state.terminated?.exitCode, 0, 'the job container failed: was the sidecar up?');
  const side = (pod!.status.initContainerStatuses as Obj[]).find((s) => s.name === 'sidecar-proxy')!;
  assert.ok(side.state.terminated, 'the sidecar still runs after the Job completed');
});

/** Deletes, evicts or kills while pods are created at 5/s; returns what the load saw. */
/**
 * Refusals a scenario accepts: none, or (a killed process) only connections refused or reset by
 * the dead replica before the kubelet restarts it and kube-proxy stops sending to it. A SIGKILL
 * leaves no time to drain, and the apiserver does not retry a webhook call on a refused
 * connection; a client's retry (as every controller does) then succeeds.
 */
interface Tolerated {
  from: () => number;
  withinMs: number;
  pattern: RegExp;
}

async function underLoad(t: { diagnostic(m: string): void }, what: string, action: () => Promise<void>, tolerated?: Tolerated): Promise<void> {
  const endpoints = sample(async () => (await readyEndpoints(INJ, NAME)).length);
  const load = startLoad(LOAD, 'sidecar-proxy', { rate: 5 });
  await new Promise((r) => setTimeout(r, 3000));
  const t0 = Date.now();
  await action();
  await waitInjectorReady(INJ, NAME, NAME, 2);
  await new Promise((r) => setTimeout(r, 3000));
  const result = await load.stop();
  const ready = await endpoints.stop();
  t.diagnostic(
    `${what}: ${((Date.now() - t0) / 1000).toFixed(1)}s; ${result.sent} creations (${result.admitted} admitted, ` +
      `${result.refused.length} refused${result.refused.map((r) => ` ${r.at - (tolerated?.from() ?? t0)} ms after the action: ${r.message.slice(-60)}`).join(';')}), ` +
      `sidecars ${JSON.stringify(result.sidecarImages)}; ready endpoints min ${Math.min(...ready)} over ${ready.length} samples`,
  );
  const unexpected = result.refused.filter(
    (r) => !tolerated || r.at < tolerated.from() || r.at > tolerated.from() + tolerated.withinMs || !tolerated.pattern.test(r.message),
  );
  assert.deepEqual(unexpected, [], `${what}: pod creations refused`);
  assert.equal(result.withoutSidecar, 0, `${what}: pods admitted without the sidecar`);
  assert.equal(result.admitted + result.refused.length, result.sent);
  // After the action, every creation is admitted again.
  const lastRefused = Math.max(0, ...result.refused.map((r) => r.at));
  assert.ok(result.admittedAt.filter((at) => at > lastRefused).length >= 10, `${what}: admission did not go on`);
  assert.ok(result.sent >= 25, `${what}: only ${result.sent} creations sent`);
  assert.ok(Math.min(...ready) >= 1, `${what}: the Service had no ready endpoint (PodDisruptionBudget minAvailable 1)`);
}

test('scenario 25-2d: helm upgrade, evictions and a deleted pod under 5 pod creations/s: 0 refused, 0 without sidecar, PDB kept; a killed process: refusals only while it restarts', {
  skip,
}, async (t) => {
  await createNamespace(LOAD, { 'istio-injection': 'enabled' });
  const mwc = await getJson(['mutatingwebhookconfiguration', NAME]);
  assert.ok((mwc.webhooks as Obj[]).every((w) => w.failurePolicy === 'Fail'));
  const image = ourImage();
  const newTag = `${image.tag}-e2e-upgrade`;
  tagImage(image.reference, `${image.repository}:${newTag}`);
  const values = writeFile(dir, 'values-2.yaml', e2eValues({ logLevel: 'info' }));
  await underLoad(t, 'helm upgrade (config and image tag)', async () => {
    await helm(
      [
        'upgrade',
        NAME,
        CHART,
        '-n',
        INJ,
        '--reuse-values',
        '--set',
        `image.tag=${newTag}`,
        '--set-file',
        `injector.values=${values}`,
        '--wait',
        '--timeout',
        '3m',
      ],
      200_000,
    );
  });
  const injectors = await waitRunning(INJ, injectorSelector(NAME), 2);
  assert.ok(
    injectors.every((p) => p.spec.containers[0].image === `${image.repository}:${newTag}`),
    'not every replica runs the new tag',
  );

  // The PodDisruptionBudget (minAvailable 1): one eviction is allowed, the second is refused.
  const creds = kubeconfigCredentials();
  const agent = adminAgent(creds);
  const evict = (pod: Obj) =>
    apiRequest(creds, agent, 'POST', `/api/v1/namespaces/${INJ}/pods/${pod.metadata.name}/eviction`, {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: pod.metadata.name, namespace: INJ },
    });
  await underLoad(t, 'evictions', async () => {
    assert.equal((await evict(injectors[0]!)).status, 201);
    const second = await evict(injectors[1]!);
    assert.equal(second.status, 429, `the PDB did not refuse the second eviction: ${JSON.stringify(second.body?.message)}`);
  });
  agent.destroy();

  await underLoad(t, 'one replica pod deleted', async () => {
    const [victim] = await waitRunning(INJ, injectorSelector(NAME), 2);
    await kubectl(['-n', INJ, 'delete', 'pod', victim!.metadata.name, '--wait=false']);
  });
  let killedAt = 0;
  await underLoad(
    t,
    'one replica process killed',
    async () => {
      const [victim] = await waitRunning(INJ, injectorSelector(NAME), 2);
      const id = (victim!.status.containerStatuses[0].containerID as string).replace('containerd://', '');
      killedAt = Date.now();
      nodeCtr(['tasks', 'kill', '--signal', 'SIGKILL', id]);
      await waitFor(
        'the killed container to restart',
        async () => ((await getJson(['pod', victim!.metadata.name, '-n', INJ])).status.containerStatuses[0].restartCount as number) >= 1,
        60_000,
      );
    },
    { from: () => killedAt, withinMs: 3000, pattern: /sidecar-injector.*(connection refused|connection reset|EOF)/ },
  );
});

test('scenario 25-2e: no self-deadlock: every injector pod gone, failurePolicy Fail: the Deployment recreates them and admission recovers', {
  skip,
}, async (t) => {
  const old = new Set((await waitRunning(INJ, injectorSelector(NAME), 2)).map((p) => p.metadata.name as string));
  const load = startLoad(LOAD, 'sidecar-proxy', { rate: 5 });
  await new Promise((r) => setTimeout(r, 2000));
  const t0 = Date.now();
  // Gone at once, as on a node failure: no graceful drain.
  await kubectl(['-n', INJ, 'delete', 'pods', '-l', injectorSelector(NAME), '--grace-period=0', '--force']);
  await waitFor('the webhook to be down (a creation refused)', async () => load.result.refused.length > 0, 60_000, 100);
  // No operator action: the ReplicaSet creates new injector pods, which are never sent to the webhook.
  const fresh = await waitInjectorReady(INJ, NAME, NAME, 2);
  const readyAt = Date.now();
  await new Promise((r) => setTimeout(r, 4000));
  const result = await load.stop();
  const lastRefused = Math.max(...result.refused.map((r) => r.at));
  t.diagnostic(
    `outage: ${result.refused.length} of ${result.sent} creations refused, the last ${((lastRefused - t0) / 1000).toFixed(1)}s ` +
      `after the deletion; new injector pods ready after ${((readyAt - t0) / 1000).toFixed(1)}s; a refusal: ${result.refused[0]!.message.slice(0, 200)}`,
  );
  assert.ok(
    fresh.every((p) => !old.has(p.metadata.name)),
    'the injector pods were not recreated',
  );
  assert.ok(
    result.refused.every((r) => /sidecar-injector/.test(r.message)),
    'a refusal does not name the webhook',
  );
  assert.equal(result.withoutSidecar, 0, 'a pod was admitted without the sidecar during the outage');
  assert.equal(result.admitted + result.refused.length, result.sent);
  // Recovered: no refusal once the new pods are ready and their endpoints programmed, and admissions since.
  assert.ok(lastRefused <= readyAt, `a creation was refused ${lastRefused - readyAt} ms after the injector was back`);
  assert.ok(result.admittedAt.filter((at) => at > lastRefused).length >= 10, 'admission did not recover');
});

test('scenario 25-2f: after the config change, restart --stale --yes replaces the running pods; the rollout completes', { skip }, async (t) => {
  const cm = await getJson(['configmap', NAME, '-n', INJ]);
  const config = scratchDir('i25-config-');
  writeFile(config, 'config', cm.data.config as string);
  writeFile(config, 'values', cm.data.values as string);
  const before = await waitRunning(SHOP, 'app=web', 1);
  const status = await cli(['status', '-n', SHOP, '--config', config], { allowFail: true });
  assert.equal(status.code, 9, `status did not find the stale pod: ${status.stdout}${status.stderr}`);
  assert.match(status.stdout, /deployment\/web\s+1\s+0\s+1\s+0\s.*stale/);
  const t0 = Date.now();
  const restart = await cli(['restart', '--stale', '--yes', '-n', SHOP, '--config', config, '--interval', '0s', '--timeout', '2m'], { timeoutMs: 180_000 });
  t.diagnostic(`restart --stale --yes: ${((Date.now() - t0) / 1000).toFixed(1)}s\n${restart.stdout}`);
  const after = await waitRunning(SHOP, 'app=web', 1);
  assert.notEqual(after[0]!.metadata.name, before[0]!.metadata.name, 'the pod was not replaced');
  await waitFor('the old pod to be gone', async () => (await pods(SHOP, 'app=web')).every((p) => p.metadata.name !== before[0]!.metadata.name), 60_000);
  assert.ok((sidecarOf(after[0]!)?.args as string[]).includes('--proxyLogLevel=info'), 'the new pod does not have the new sidecar');
  const clean = await cli(['status', '-n', SHOP, '--config', config], { allowFail: true });
  assert.equal(clean.code, 0, `status after the restart: ${clean.stdout}${clean.stderr}`);
  rmSync(config, { recursive: true, force: true });
});
