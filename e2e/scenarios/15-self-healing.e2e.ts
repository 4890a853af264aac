/**
 * Issue 15, part 4, items 1-3: self-healing on the real control plane.
 * 1. Deployments created while the webhook was down (failurePolicy Ignore) show as missing;
 *    `restart --missing --yes` restarts them and their new pods are injected.
 * 2. A new sidecar image makes pods stale; `status` names the image change; `restart --stale
 *    --yes` rolls one workload at a time (never more than --max-in-flight).
 * 3. `serve --reconcile` in two processes: exactly one holds the Lease; when it stops the other
 *    takes over; SidecarMissing and SidecarRestarted Events appear on the workload.
 * And the webhook path's InjectionFailed Event on the Deployment of a pod it refused.
 *
 * Isolation on the shared cluster: each scenario's config renames the namespace label (one per
 * scenario, `<webhook>-injection`) and the pod opt-in key (`i15.example.com/inject`), and the
 * namespaces also carry `istio-injection: disabled`, so no other webhook (another scenario's,
 * or another engineer's) touches these pods and ours touch nobody else's. The pods' images do not
 * exist (without a node they stay Pending; with one they fail to pull), so no rollout finishes, and
 * "progress" is the new template's pods being created and injected.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { cli, cliPath, createNamespace, deleteNamespaces, ensureNode, getJson, kubectl, pods, waitFor, type Obj } from '../lib/kube.js';
import { freePort, startWebhook, waitUntilInjecting, type RunningWebhook } from '../lib/webhook.js';
import { SIDECAR, assertInjected, assertNotInjected } from '../lib/injected.js';

const NS = {
  missing: 'i15-heal-missing',
  stale: 'i15-heal-stale',
  lease: 'i15-heal-lease',
  failed: 'i15-heal-failed',
  rbac: 'i15-heal-rbac',
  kinds: 'i15-heal-kinds',
  hint: 'i15-heal-hint',
};
/** Cluster-scoped objects a scenario creates (deleted in after()). */
const clusterObjects: string[] = [];
const LABELS = { 'istio-injection': 'disabled' };
const OLD_TAG = '1.24.2';
const NEW_TAG = '1.25.0';
const hooks: RunningWebhook[] = [];
const children: ChildProcess[] = [];
const dirs: string[] = [];

/** A config directory (`config` + `values`, as a mounted ConfigMap) with our own keys and the proxy tag. */
async function configDir(tag: string, label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'i15-heal-config-'));
  dirs.push(dir);
  await writeConfig(dir, tag, label);
  return dir;
}

async function writeConfig(dir: string, tag: string, label: string): Promise<void> {
  const root = new URL('../../defaults/', import.meta.url);
  const config = await readFile(new URL('config.yaml', root), 'utf8');
  const values = await readFile(new URL('values.yaml', root), 'utf8');
  await writeFile(join(dir, 'config'), `${config}\ninjectionKeys:\n  namespaceLabel: ${label}\n  inject: i15.example.com/inject\n`);
  await writeFile(join(dir, 'values'), values.replace(`tag: "${OLD_TAG}"`, `tag: "${tag}"`));
}

const deployment = (name: string, replicas: number): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } },
  },
});

async function create(ns: string, obj: Obj): Promise<void> {
  await kubectl(['-n', ns, 'create', '-f', '-'], { input: JSON.stringify(obj) });
}

async function podsOf(ns: string, app: string, count: number): Promise<Obj[]> {
  return waitFor(
    `${count} pods of ${app} in ${ns}`,
    async () => {
      const list = await pods(ns, `app=${app}`);
      return list.length >= count ? list : undefined;
    },
    60_000,
    300,
  );
}

interface StatusJson {
  summary: Record<string, number>;
  workloads: {
    kind: string;
    name: string;
    state: string;
    counts: Record<string, number>;
    details: string[];
    pods: { name: string; state: string; changes?: Obj[] }[];
  }[];
}

async function status(ns: string, config: string, webhook: string): Promise<{ code: number; report: StatusJson; stderr: string }> {
  const r = await cli(['status', '-n', ns, '--config', config, '--webhook-config', webhook, '-o', 'json'], { allowFail: true });
  return { code: r.code, report: JSON.parse(r.stdout) as StatusJson, stderr: r.stderr };
}

const workload = (report: StatusJson, kind: string, name: string) => {
  const w = report.workloads.find((x) => x.kind === kind && x.name === name);
  assert.ok(w, `${kind}/${name} in the report: ${JSON.stringify(report.workloads.map((x) => `${x.kind}/${x.name}`))}`);
  return w;
};

/** Our webhook for one scenario, with its own config directory, ready (the apiserver calls it). */
async function webhookFor(
  ns: string,
  name: string,
  failurePolicy: 'Fail' | 'Ignore',
  serveArgs: string[] = [],
): Promise<{ hook: RunningWebhook; config: string; label: string }> {
  const label = `${name}-injection`;
  await kubectl(['label', 'namespace', ns, `${label}=enabled`, '--overwrite']);
  const config = await configDir(OLD_TAG, label);
  const hook = await startWebhook({ name, failurePolicy, config, serveArgs });
  hooks.push(hook);
  await waitUntilInjecting(ns, SIDECAR);
  return { hook, config, label };
}

/** The pods a Deployment made from its current template (the restartedAt value restart wrote). */
async function restartedPods(ns: string, name: string): Promise<Obj[]> {
  const d = await getJson(['-n', ns, 'deployment', name]);
  const restartedAt = d.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'] as string | undefined;
  assert.match(restartedAt ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, `${name}: the annotation kubectl rollout restart writes`);
  const fresh = (await pods(ns, `app=${name}`)).filter((p) => p.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'] === restartedAt);
  assert.ok(fresh.length >= 1, `${name}: the new ReplicaSet created pods`);
  return fresh;
}

before(async () => {
  for (const ns of Object.values(NS)) await createNamespace(ns, LABELS);
});

after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const h of hooks) await h.remove();
  for (const o of clusterObjects) await kubectl(['delete', o, '--ignore-not-found'], { allowFail: true });
  await deleteNamespaces(...Object.values(NS));
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

test('15.1: Deployments created while the webhook was down (Ignore) are missing; restart --missing --yes gives their new pods the sidecar', async () => {
  const ns = NS.missing;
  const { hook, config } = await webhookFor(ns, 'i15-heal-missing', 'Ignore');
  await hook.stop();

  await create(ns, deployment('web', 2));
  await create(ns, deployment('api', 1));
  await create(ns, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'bare', labels: { app: 'bare' } },
    spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] },
  });
  for (const p of [...(await podsOf(ns, 'web', 2)), ...(await podsOf(ns, 'api', 1)), ...(await podsOf(ns, 'bare', 1))]) assertNotInjected(p);

  const before = await status(ns, config, hook.name);
  assert.equal(before.code, 9, `status exits 9 (SI_HEAL_DRIFT) when pods are missing: ${before.stderr}`);
  assert.match(before.stderr, /SI_HEAL_DRIFT/);
  // The hint is the restart for what status looked at: same namespace, config and webhook configuration.
  assert.ok(before.stderr.includes(`sidecar-injector restart --stale --missing --yes -n ${ns} -c ${config} --webhook-config ${hook.name}\``), before.stderr);
  assert.deepEqual(workload(before.report, 'Deployment', 'web').counts.missing, 2);
  assert.deepEqual(workload(before.report, 'Deployment', 'api').counts.missing, 1);
  assert.equal(workload(before.report, 'Pod', 'bare').state, 'missing');
  const table = await cli(['status', '-n', ns, '--config', config, '--webhook-config', hook.name], { allowFail: true });
  assert.match(table.stdout, /^WORKLOAD\s+PODS\s+CURRENT\s+STALE\s+MISSING/m);
  assert.match(table.stdout, /^deployment\/web\s+2\s+0\s+0\s+2\s+0\s+0\s+-\s+missing\s+policy-enabled$/m);

  const dry = await cli(['restart', '--missing', '-n', ns, '--config', config, '--webhook-config', hook.name]);
  assert.match(dry.stdout, /would restart deployment\/web -n i15-heal-missing: 2 missing/);
  assert.match(dry.stdout, /not restarted pod\/bare .*a bare pod/);
  assert.match(dry.stdout, /dry run: nothing was changed/);
  assert.equal((await pods(ns, 'app=web')).length, 2, 'the dry run changed nothing');

  await hook.start();
  await waitUntilInjecting(ns, SIDECAR);
  const run = await cli(
    ['restart', '--missing', '--yes', '-n', ns, '--config', config, '--webhook-config', hook.name, '--interval', '0s', '--timeout', '90s', '-o', 'json'],
    { timeoutMs: 200_000 },
  );
  const result = JSON.parse(run.stdout) as { outcomes: Obj[]; reportOnly: Obj[] };
  assert.deepEqual(result.outcomes.map((o) => [o.workload.name, o.result]).sort(), [
    ['api', 'progressed'],
    ['web', 'progressed'],
  ]);
  assert.deepEqual(
    result.reportOnly.map((o) => o.workload.kind),
    ['Pod'],
  );

  for (const name of ['web', 'api']) for (const p of await restartedPods(ns, name)) assertInjected(p, `${name}: a pod of the restarted Deployment`);
  const afterwards = await status(ns, config, hook.name);
  assert.ok(workload(afterwards.report, 'Deployment', 'web').counts.current >= 1, 'status sees the new pods as current');
  await hook.remove();
});

test('15.2: a new sidecar image makes pods stale; status names the change; restart --stale rolls one workload at a time', async () => {
  const ns = NS.stale;
  const { hook, config, label } = await webhookFor(ns, 'i15-heal-stale', 'Fail');
  const names = ['one', 'two', 'three'];
  for (const n of names) await create(ns, deployment(n, 1));
  for (const n of names) for (const p of await podsOf(ns, n, 1)) assertInjected(p);
  const current = await status(ns, config, hook.name);
  assert.equal(current.code, 0, `all current: exit 0 (${current.stderr})`);
  assert.equal(current.report.summary.current, 3);

  // The config changes (a new proxy image); the webhook serves it after a restart.
  await writeConfig(config, NEW_TAG, label);
  await hook.stop();
  await hook.start();

  const stale = await status(ns, config, hook.name);
  assert.equal(stale.code, 9);
  for (const n of names) {
    const w = workload(stale.report, 'Deployment', n);
    assert.equal(w.state, 'stale');
    assert.ok(
      w.details.includes(`containers/sidecar-proxy image docker.io/istio/proxyv2:${OLD_TAG} -> docker.io/istio/proxyv2:${NEW_TAG}`),
      `the image change is shown: ${w.details.join(' | ')}`,
    );
  }

  const run = await cli(
    [
      'restart',
      '--stale',
      '--yes',
      '--max-in-flight',
      '1',
      '--interval',
      '0s',
      '--timeout',
      '90s',
      '-n',
      ns,
      '--config',
      config,
      '--webhook-config',
      hook.name,
      '-o',
      'json',
    ],
    { timeoutMs: 300_000 },
  );
  const outcomes = (JSON.parse(run.stdout) as { outcomes: Obj[] }).outcomes;
  assert.deepEqual(
    outcomes.map((o) => o.result),
    ['progressed', 'progressed', 'progressed'],
  );
  // One at a time: each rollout started after the previous one had progressed.
  const timeline = outcomes.map((o) => ({ start: Date.parse(o.startedAt), end: Date.parse(o.finishedAt) })).sort((a, b) => a.start - b.start);
  for (let i = 1; i < timeline.length; i++) assert.ok(timeline[i].start >= timeline[i - 1].end, `rollout ${i} started before rollout ${i - 1} progressed`);
  // And the cluster agrees: every new pod runs the new image, injected once.
  for (const n of names) {
    for (const p of await restartedPods(ns, n)) {
      assertInjected(p);
      assert.equal((p.spec.containers as Obj[]).find((c) => c.name === SIDECAR)!.image, `docker.io/istio/proxyv2:${NEW_TAG}`);
    }
  }
  await hook.remove();
});

/** `serve --reconcile` (development certificate: it is not the webhook the apiserver calls). */
async function reconciler(
  config: string,
  webhook: string,
  where = { ns: NS.lease, lease: 'i15-heal', kubeconfig: process.env.KUBECONFIG },
): Promise<{ child: ChildProcess; identity: string; metrics: () => Promise<string>; output: () => string }> {
  const port = await freePort();
  const monitoring = await freePort();
  const child = spawn(
    process.execPath,
    [
      cliPath(),
      'serve',
      '--port',
      String(port),
      '--address',
      '127.0.0.1',
      '--monitoring-port',
      String(monitoring),
      '--log-level',
      'info',
      '--config',
      config,
      '--reconcile',
      '--reconcile-restart',
      '--reconcile-namespace',
      where.ns,
      '--reconcile-lease-namespace',
      where.ns,
      '--reconcile-lease',
      where.lease,
      '--reconcile-webhook-config',
      webhook,
      '--reconcile-restart-timeout',
      '60s',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: where.kubeconfig } },
  );
  children.push(child);
  let out = '';
  child.stdout?.on('data', (c: Buffer) => {
    out = (out + c.toString()).slice(-50_000);
  });
  child.stderr?.on('data', (c: Buffer) => {
    out = (out + c.toString()).slice(-50_000);
  });
  const metrics = async (): Promise<string> => {
    const res = await fetch(`http://127.0.0.1:${monitoring}/metrics`);
    return res.text();
  };
  await waitFor(
    'serve --reconcile to answer /metrics',
    async () => (await metrics().catch(() => '')).includes('sidecar_injector_reconcile_leader'),
    30_000,
    200,
  );
  return { child, identity: `${hostname()}_${child.pid}`, metrics, output: () => out };
}

const isLeader = async (r: { metrics: () => Promise<string> }) => /^sidecar_injector_reconcile_leader 1$/m.test(await r.metrics().catch(() => ''));

async function sidecarEvents(ns: string, name: string): Promise<Obj[]> {
  const list = await getJson(['-n', ns, 'events', '--field-selector', `involvedObject.kind=Deployment,involvedObject.name=${name}`]);
  return (list.items as Obj[]).filter((e) => String(e.reason).startsWith('Sidecar'));
}

test('15.3: serve --reconcile in two processes: one Lease holder, takeover when it stops, Events on the workload', async () => {
  const ns = NS.lease;
  const { hook, config } = await webhookFor(ns, 'i15-heal-lease', 'Ignore');
  await hook.stop();
  await create(ns, deployment('shop', 2));
  for (const p of await podsOf(ns, 'shop', 2)) assertNotInjected(p);
  await hook.start();
  await waitUntilInjecting(ns, SIDECAR);

  const a = await reconciler(config, hook.name);
  const b = await reconciler(config, hook.name);
  const lease = () => getJson(['-n', ns, 'lease', 'i15-heal']);
  const first = await waitFor(
    'one replica to hold the Lease',
    async () => {
      const [la, lb] = [await isLeader(a), await isLeader(b)];
      if (la && lb) throw new Error('both replicas lead');
      return la ? a : lb ? b : undefined;
    },
    60_000,
    300,
  );
  const second = first === a ? b : a;
  assert.equal((await lease()).spec.holderIdentity, first.identity, 'the Lease names the leader');
  assert.equal(await isLeader(second), false, 'exactly one leader');
  // The leader's first list and classification land shortly after it wins.
  await waitFor(
    'the leader to export sidecar_injector_pods',
    async () => /^sidecar_injector_pods\{state="(missing|current)"\} [1-9]/m.test(await first.metrics()),
    30_000,
    300,
  ).catch((err: Error) => assert.fail(`${err.message}; leader output: ${first.output().slice(-3000)}`));
  assert.doesNotMatch(await second.metrics(), /^sidecar_injector_pods\{/m, 'the follower does not reconcile');

  const events = await waitFor(
    'SidecarMissing and SidecarRestarted on the Deployment',
    async () => {
      const ev = await sidecarEvents(ns, 'shop');
      const reasons = new Set(ev.map((e) => e.reason));
      return reasons.has('SidecarMissing') && reasons.has('SidecarRestarted') ? ev : undefined;
    },
    90_000,
    500,
  );
  const uid = (await getJson(['-n', ns, 'deployment', 'shop'])).metadata.uid;
  for (const e of events) {
    assert.equal(e.involvedObject.uid, uid, 'the Event is on the Deployment itself');
    assert.equal(e.reportingInstance, first.identity, 'recorded by the leader');
  }
  const restarted = events.find((e) => e.reason === 'SidecarRestarted')!;
  assert.match(restarted.message, /progressed/);
  for (const p of await restartedPods(ns, 'shop')) assertInjected(p, 'a pod the reconcile leader restarted');

  // The leader stops (SIGTERM releases the Lease); the other takes over and reports too.
  const transitions = (await lease()).spec.leaseTransitions ?? 0;
  const exited = new Promise((r) => first.child.once('exit', r));
  first.child.kill('SIGTERM');
  await exited;
  assert.equal(first.child.exitCode, 0, `the leader shut down cleanly: ${first.output().slice(-2000)}`);
  await waitFor(
    'the other replica to take the Lease over',
    async () => (await isLeader(second)) && (await lease()).spec.holderIdentity === second.identity,
    30_000,
    300,
  );
  assert.equal((await lease()).spec.leaseTransitions, transitions + 1);
  await waitFor(
    'an Event from the new leader on the Deployment',
    async () => (await sidecarEvents(ns, 'shop')).some((e) => e.reportingInstance === second.identity),
    60_000,
    500,
  );
  // It does not restart a Deployment whose rollout is still in progress (its pods never run: it never ends).
  const restarts = (await sidecarEvents(ns, 'shop')).filter((e) => e.reason === 'SidecarRestarted');
  assert.equal(restarts.length, 1, `restarted once: ${restarts.map((e) => `${e.reportingInstance}: ${e.message}`).join(' | ')}`);
  second.child.kill('SIGTERM');
  await hook.remove();
});

test('15.3b: the webhook (serve --reconcile) records InjectionFailed on the Deployment whose pod it refused', async () => {
  const ns = NS.failed;
  const name = 'i15-heal-failed';
  const { hook } = await webhookFor(ns, name, 'Fail', [
    '--reconcile',
    '--reconcile-namespace',
    ns,
    '--reconcile-lease-namespace',
    ns,
    '--reconcile-lease',
    name,
    '--reconcile-webhook-config',
    name,
  ]);
  const bad = deployment('bad', 1);
  bad.spec.template.metadata.annotations = { 'inject.istio.io/templates': 'no-such-template' };
  await create(ns, bad);
  const event = await waitFor(
    'InjectionFailed on the Deployment',
    async () => {
      const list = await getJson(['-n', ns, 'events', '--field-selector', 'involvedObject.kind=Deployment,involvedObject.name=bad,reason=InjectionFailed']);
      return (list.items as Obj[])[0];
    },
    60_000,
    500,
  );
  assert.match(event.message, /a pod was refused: SI_INJECT_TEMPLATE_MISSING: template "no-such-template"/);
  assert.equal(event.involvedObject.uid, (await getJson(['-n', ns, 'deployment', 'bad'])).metadata.uid);
  assert.equal(event.type, 'Warning');
  // The ReplicaSet keeps retrying; the Event is recorded once, not once per retry.
  await new Promise((r) => setTimeout(r, 3000));
  const all = await getJson(['-n', ns, 'events', '--field-selector', 'involvedObject.name=bad,reason=InjectionFailed']);
  assert.equal(all.items.length, 1, 'deduplicated');
  assert.equal((await pods(ns, 'app=bad')).length, 0, 'no pod without its sidecar');
  await hook.remove();
});

test('15.4: serve --reconcile-restart works under exactly the RBAC manifests --reconcile-restart writes (a ServiceAccount token)', async () => {
  const ns = NS.rbac;
  const name = 'i15-rbac';
  const { hook, config } = await webhookFor(ns, name, 'Ignore');
  await hook.stop();
  await create(ns, deployment('shop', 2));
  for (const p of await podsOf(ns, 'shop', 2)) assertNotInjected(p);
  await hook.start();
  await waitUntilInjecting(ns, SIDECAR);

  // The ServiceAccount and the reconcile RBAC, as manifests writes them for this name and namespace.
  const certs = await mkdtemp(join(tmpdir(), 'i15-rbac-certs-'));
  dirs.push(certs);
  const yaml = (
    await cli(['manifests', '--name', name, '--namespace', ns, '--reconcile-restart', '--no-ca-bundle-reconcile', '--certs-dir', certs, '--config', config])
  ).stdout;
  const docs = parseAllDocuments(yaml).map((d) => d.toJS() as Obj);
  const wanted = docs.filter((d) => d.kind === 'ServiceAccount' || String(d.metadata?.name) === `${name}-reconcile`);
  assert.deepEqual(wanted.map((d) => d.kind).sort(), ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'ServiceAccount']);
  clusterObjects.push(`clusterrole/${name}-reconcile`, `clusterrolebinding/${name}-reconcile`);
  await kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: wanted }) });

  // A kubeconfig with that ServiceAccount's token and nothing else.
  const token = (await kubectl(['-n', ns, 'create', 'token', name, '--duration', '1h'])).stdout.trim();
  const admin = JSON.parse((await kubectl(['config', 'view', '--raw', '--minify', '-o', 'json'])).stdout) as Obj;
  const cluster = admin.clusters[0].cluster as Obj;
  const kubeconfig = join(certs, 'sa.kubeconfig');
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'sa',
      clusters: [{ name: 'c', cluster: { server: cluster.server, 'certificate-authority-data': cluster['certificate-authority-data'] } }],
      users: [{ name: 'sa', user: { token } }],
      contexts: [{ name: 'sa', context: { cluster: 'c', user: 'sa', namespace: ns } }],
    }),
  );
  const can = async (...args: string[]) => (await kubectl(['--kubeconfig', kubeconfig, 'auth', 'can-i', ...args], { allowFail: true })).stdout.trim();
  assert.equal(await can('patch', 'deployments', '-n', ns), 'yes');
  assert.equal(await can('delete', 'pods', '-n', ns), 'no', 'least privilege: no pod deletion');
  assert.equal(await can('get', 'secrets', '-n', ns), 'no', 'least privilege: no secrets');
  assert.equal(await can('update', `leases/${name}-reconcile`, '-n', ns), 'yes');
  assert.equal(await can('update', 'leases/other-lease', '-n', ns), 'no', 'least privilege: only its own Lease');

  const r = await reconciler(config, name, { ns, lease: `${name}-reconcile`, kubeconfig });
  await waitFor(
    'the ServiceAccount-run reconciler to restart the Deployment',
    async () => (await sidecarEvents(ns, 'shop')).some((e) => e.reason === 'SidecarRestarted'),
    90_000,
    500,
  );
  const events = await sidecarEvents(ns, 'shop');
  assert.ok(events.some((e) => e.reason === 'SidecarMissing'));
  assert.match(events.find((e) => e.reason === 'SidecarRestarted')!.message, /progressed/);
  for (const p of await restartedPods(ns, 'shop')) assertInjected(p);
  assert.doesNotMatch(r.output(), /forbidden|HTTP 403/i, 'no request was refused');
  r.child.kill('SIGTERM');
  await hook.remove();
});

test('15.5: a DaemonSet rolls; a StatefulSet that cannot progress (OrderedReady, pods that never run) stops restart with a report and exit 10', async () => {
  const ns = NS.kinds;
  await ensureNode();
  const { hook, config } = await webhookFor(ns, 'i15-heal-kinds', 'Ignore');
  await hook.stop();
  const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'app', image: 'registry.example/app:1' }] } });
  await create(ns, {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: template('agent') },
  });
  for (const name of ['db-a', 'db-b']) {
    await create(ns, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name },
      spec: { replicas: 1, serviceName: name, selector: { matchLabels: { app: name } }, template: template(name) },
    });
  }
  for (const app of ['agent', 'db-a', 'db-b']) for (const p of await podsOf(ns, app, 1)) assertNotInjected(p);
  await waitFor(
    'the StatefulSets to report their pods',
    async () => {
      for (const name of ['db-a', 'db-b']) if ((await getJson(['-n', ns, 'statefulset', name])).status?.updatedReplicas !== 1) return false;
      return true;
    },
    30_000,
  );
  await hook.start();
  await waitUntilInjecting(ns, SIDECAR);

  const run = await cli(
    ['restart', '--missing', '--yes', '-n', ns, '--config', config, '--webhook-config', hook.name, '--interval', '0s', '--timeout', '10s', '-o', 'json'],
    { allowFail: true, timeoutMs: 120_000 },
  );
  assert.equal(run.code, 10, `exit 10 (SI_HEAL_RESTART_STALLED): ${run.stderr}`);
  assert.match(run.stderr, /SI_HEAL_RESTART_STALLED.*statefulset\/db-a: no progress within 10s/);
  const outcomes = (JSON.parse(run.stdout) as { outcomes: Obj[] }).outcomes;
  assert.deepEqual(
    outcomes.map((o) => [o.workload.kind, o.workload.name, o.result]),
    [
      ['DaemonSet', 'agent', 'progressed'],
      ['StatefulSet', 'db-a', 'timeout'],
      ['StatefulSet', 'db-b', 'not-started'],
    ],
  );
  assert.match(outcomes[1].detail, /no pod from the new template was created/);
  const ds = await getJson(['-n', ns, 'daemonset', 'agent']);
  const restartedAt = ds.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt'];
  const fresh = (await pods(ns, 'app=agent')).filter((p) => p.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'] === restartedAt);
  assert.equal(fresh.length, 1);
  assertInjected(fresh[0], 'the DaemonSet pod made from the restarted template');
  const dbB = await getJson(['-n', ns, 'statefulset', 'db-b']);
  assert.equal(dbB.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'], undefined, 'db-b was not touched after db-a stalled');
  await hook.remove();
});

test('15.6: restart --stale warns when the webhook in the cluster serves another config than --config', async () => {
  const ns = NS.hint;
  const name = 'i15-heal-hint';
  const served = await configDir(OLD_TAG, `${name}-injection`);
  const newer = await configDir(NEW_TAG, `${name}-injection`);
  const certs = await mkdtemp(join(tmpdir(), 'i15-hint-certs-'));
  dirs.push(certs);
  // The ConfigMap, Deployment and webhook configuration manifests writes for the served config;
  // no replicas (only the objects are read), and no namespace carries the webhook's label.
  const yaml = (await cli(['manifests', '--name', name, '-n', ns, '--certs-dir', certs, '--failure-policy', 'Ignore', '-c', served])).stdout;
  const objects = parseAllDocuments(yaml)
    .map((d) => d.toJS() as Obj)
    .filter((o) => ['ConfigMap', 'Deployment', 'MutatingWebhookConfiguration'].includes(String(o.kind)));
  assert.equal(objects.length, 3);
  objects.find((o) => o.kind === 'Deployment')!.spec.replicas = 0;
  clusterObjects.push(`mutatingwebhookconfiguration/${name}`);
  await kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }) });

  const stale = await cli(['restart', '--stale', '-n', ns, '-c', newer, '--webhook-config', name]);
  assert.match(
    stale.stderr,
    new RegExp(
      `warning: the webhook \\(Deployment ${ns}/${name}\\) serves the config in ConfigMap ${ns}/${name}, not the config given with --config \\(${newer}\\): pods restarted now get the served config`,
    ),
  );
  const same = await cli(['restart', '--stale', '-n', ns, '-c', served, '--webhook-config', name]);
  assert.doesNotMatch(same.stderr, /warning: the webhook/, 'the served config given: no warning');
});
