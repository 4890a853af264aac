/**
 * Issue 32, progressive sidecar rollouts on the node whose pods run. Three injectors run side by
 * side in one namespace from our image, each with the certificate it provisioned itself in its
 * own Secret: the default revision and revision `canary` (the sidecar image's next tag) as Helm
 * releases of the chart, and revision `broken` (its sidecar's readiness and startup probes ask a
 * port nothing listens on: it never gets ready) from `manifests --revision`.
 *
 * 32-0 the three installs side by side: three Secrets `<name>[-<rev>]-certs` with three
 *      different CAs, each webhook configuration trusting its own, each ServiceAccount allowed
 *      to update its own Secret only.
 * 32-1 `rollout --from default --to canary` across three namespaces: each relabelled, its
 *      Deployment restarted, every new pod Running and Ready with canary's sidecar before the
 *      next namespace moves; `status --revision canary` calls them current; every pod created
 *      meanwhile (counted with a watch) has canary's sidecar, exactly the 2 per namespace a
 *      restart of 2 replicas needs, and no creation was refused.
 * 32-2 `rollout --from default --to broken` across three other namespaces: it stops at the first,
 *      reports the failing pod's container states and Events, moves the namespace back and
 *      restarts it onto default (Ready again); the two others are never touched (labels,
 *      Deployment generation, no pod created).
 * 32-3 `rollout --undo` moves a namespace of 32-1 back to the default revision.
 *
 * Isolation: the config renames the injection keys (namespace label `i32-injection`, revision
 * label `i32.example.com/rev`, pod key `i32.example.com/inject`), so no other webhook touches
 * these pods and ours touch no one else's.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { repoRoot } from '../cluster/paths.js';
import { connect } from '../../src/kube/client.js';
import { apply, cli, createNamespace, deleteNamespaces, getJson, kubectl, pods, run, type Obj } from '../lib/kube.js';
import { appDeployment, IMAGES, noNodeReason, ourImage, tagImage, waitRunning } from '../lib/node.js';
import { CHART, e2eValues, scratchDir, waitInjectorReady, writeFile } from '../lib/install.js';

const skip = await noNodeReason();
const NAME = 'i32-si';
const KEYS = { namespaceLabel: 'i32-injection', revisionLabel: 'i32.example.com/rev', inject: 'i32.example.com/inject' };
const STATUS = 'sidecar.istio.io/status';
const ON_DEFAULT = { [KEYS.namespaceLabel]: 'enabled' };
const GOOD = ['i32-good-1', 'i32-good-2', 'i32-good-3'];
const BAD = ['i32-bad-1', 'i32-bad-2', 'i32-bad-3'];
const NEW_PROXY = 'e2e.local/proxy:2';
const dir = scratchDir('i32-rollout-');
const installed: Obj[] = [];
const releases: string[] = [];

/** A config directory: the built-in templates with the renamed keys, and e2e values changed by `edit`. */
function configDir(name: string, edit: (values: Obj) => void = () => {}): string {
  const config = `${readFileSync(join(repoRoot, 'defaults/config.yaml'), 'utf8')}\ninjectionKeys:\n  namespaceLabel: ${KEYS.namespaceLabel}\n  revisionLabel: ${KEYS.revisionLabel}\n  inject: ${KEYS.inject}\n`;
  const values = parse(e2eValues()) as Obj;
  edit(values);
  const at = join(dir, name);
  mkdirSync(at, { recursive: true });
  writeFile(at, 'config', config);
  writeFile(at, 'values', stringify(values));
  return at;
}

const CONFIG = { default: '', canary: '', broken: '' };

/** Helm's image values when the image under test is not the chart's default one. */
function imageValues(): string[] {
  const { reference } = ourImage();
  const at = reference.lastIndexOf(':');
  return ['--set', `image.repository=${reference.slice(0, at)}`, '--set', `image.tag=${reference.slice(at + 1)}`];
}

const injectorName = (revision: string): string => (revision === '' ? NAME : `${NAME}-${revision}`);

/** The chart as a release per revision (`name` shared, `revision` set), self-provisioning; waits for its injector pod. */
async function helmInstall(revision: string, config: string): Promise<void> {
  const release = injectorName(revision);
  releases.push(release);
  await run(
    'helm',
    [
      'install',
      release,
      CHART,
      '-n',
      NAME,
      '--create-namespace',
      '--wait',
      '--timeout',
      '180s',
      ...imageValues(),
      '--set',
      `name=${NAME}`,
      '--set',
      'replicas=1',
      ...(revision === '' ? [] : ['--set', `revision=${revision}`]),
      '--set-file',
      `injector.config=${join(config, 'config')},injector.values=${join(config, 'values')}`,
    ],
    { timeoutMs: 240_000 },
  );
  await waitInjectorReady(NAME, release, release, 1);
}

/** `manifests --revision` applied as a user does (self-provisioning, the default); waits for its injector pod. */
async function manifestsInstall(revision: string, config: string): Promise<void> {
  const out = await cli([
    'manifests',
    '--name',
    NAME,
    '--namespace',
    NAME,
    '--image',
    ourImage().reference,
    '--replicas',
    '1',
    '--config',
    config,
    '--revision',
    revision,
  ]);
  installed.push(
    ...parseAllDocuments(out.stdout)
      .map((d) => d.toJS() as Obj)
      .filter((o) => o?.kind),
  );
  await kubectl(['apply', '-f', '-'], { input: out.stdout });
  await waitInjectorReady(NAME, injectorName(revision), injectorName(revision), 1);
}

before(async () => {
  if (skip !== false) return;
  await deleteNamespaces(...GOOD, ...BAD, NAME);
  tagImage(IMAGES.proxy, NEW_PROXY);
  CONFIG.default = configDir('default');
  CONFIG.canary = configDir('canary', (v) => void (v.global.tag = '2'));
  // The sidecar runs, but its probes ask a port it does not listen on: never ready.
  CONFIG.broken = configDir('broken', (v) => {
    v.global.tag = '2';
    v.global.proxy.statusPort = 15999;
  });
  await helmInstall('', CONFIG.default);
  await helmInstall('canary', CONFIG.canary);
  await manifestsInstall('broken', CONFIG.broken);
  for (const ns of [...GOOD, ...BAD]) {
    await createNamespace(ns, ON_DEFAULT);
    await apply(appDeployment('web', ns, { replicas: 2 }));
  }
  for (const ns of [...GOOD, ...BAD]) assert.ok((await waitRunning(ns, 'app=web', 2)).every((p) => revisionOf(p) === 'default'));
});

after(async () => {
  if (skip === false) {
    for (const release of releases.reverse()) await run('helm', ['uninstall', release, '-n', NAME, '--wait=false'], { allowFail: true });
    for (const o of installed.filter((x) => x.kind.startsWith('Cluster') || x.kind === 'MutatingWebhookConfiguration')) {
      await kubectl(['delete', o.kind.toLowerCase(), o.metadata.name, '--ignore-not-found'], { allowFail: true });
    }
    await deleteNamespaces(...GOOD, ...BAD, NAME);
  }
  rmSync(dir, { recursive: true, force: true });
});

function revisionOf(pod: Obj): string | undefined {
  const text = pod.metadata?.annotations?.[STATUS] as string | undefined;
  return text === undefined ? undefined : ((JSON.parse(text) as { revision?: string }).revision ?? '');
}

interface Creates {
  /** Every pod created in the namespaces while watching: namespace/name -> the revision that injected it (undefined: none). */
  pods: Map<string, string | undefined>;
  stop(): void;
}

/** Counts every pod created in `namespaces` (a watch with our own client, from now on). */
async function watchCreates(namespaces: readonly string[]): Promise<Creates> {
  const api = connect({ kubeconfig: process.env.KUBECONFIG });
  const { resourceVersion } = await api.list('/api/v1/pods', { labelSelector: 'app=web' });
  const seen = new Map<string, string | undefined>();
  const handle = await api.watch(
    '/api/v1/pods',
    { labelSelector: 'app=web', resourceVersion },
    (type, obj) => {
      const pod = obj as Obj;
      if (type === 'ADDED' && namespaces.includes(pod.metadata.namespace)) seen.set(`${pod.metadata.namespace}/${pod.metadata.name}`, revisionOf(pod));
    },
    () => {},
  );
  return { pods: seen, stop: () => handle.abort() };
}

/** FailedCreate Events (a refused pod creation) on ReplicaSets in the namespaces. */
async function refusedCreates(namespaces: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const ns of namespaces) {
    const events = await getJson(['events', '-n', ns, '--field-selector', 'reason=FailedCreate']);
    out.push(...(events.items as Obj[]).map((e) => `${ns}: ${e.message as string}`));
  }
  return out;
}

const generation = async (ns: string): Promise<number> => (await getJson(['deployment', 'web', '-n', ns])).metadata.generation as number;
const labels = async (ns: string): Promise<Obj> => (await getJson(['namespace', ns])).metadata.labels as Obj;

const secretCa = async (name: string): Promise<string> =>
  Buffer.from(((await getJson(['secret', name, '-n', NAME])).data?.['ca.crt'] as string | undefined) ?? '', 'base64').toString();
const fingerprints = (pem: string): string[] =>
  (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []).map((c) => new X509Certificate(c).fingerprint256);

test('scenario 32-0: three revisions side by side, each on the certificate it provisioned in its own Secret', { skip }, async () => {
  const cas: string[] = [];
  for (const revision of ['', 'canary', 'broken']) {
    const name = injectorName(revision);
    const [ca] = fingerprints(await secretCa(`${name}-certs`));
    assert.ok(ca !== undefined, `Secret ${name}-certs holds a CA`);
    cas.push(ca);
    const bundle = Buffer.from((await getJson(['mutatingwebhookconfiguration', name])).webhooks[0].clientConfig.caBundle as string, 'base64').toString();
    assert.ok(fingerprints(bundle).includes(ca), `${name}'s webhook configuration trusts its own CA`);
    const can = async (verb: string, what: string) =>
      (await kubectl(['auth', 'can-i', verb, what, '--as', `system:serviceaccount:${NAME}:${name}`, '-n', NAME], { allowFail: true })).stdout.trim();
    const others = ['', 'canary', 'broken'].filter((r) => r !== revision).map((r) => `secrets/${injectorName(r)}-certs`);
    assert.deepEqual([await can('update', `secrets/${name}-certs`), ...(await Promise.all(others.map((o) => can('update', o))))], ['yes', 'no', 'no'], name);
  }
  assert.equal(new Set(cas).size, 3, 'three different CAs');
});

test("scenario 32-1: rollout default -> canary across three namespaces; every new pod Ready with canary's sidecar; 0 refused, 0 created without a sidecar", {
  skip,
}, async (t) => {
  const dry = await cli(['rollout', '--from', 'default', '--to', 'canary', '-n', GOOD.join(','), '-c', CONFIG.default]);
  assert.match(dry.stdout, /-> revision canary \(MutatingWebhookConfiguration i32-si-canary\)/);
  assert.match(dry.stdout, /would restart deployment\/web: 2 pods on default/);
  assert.deepEqual(await labels(GOOD[0]!), { ...ON_DEFAULT, 'kubernetes.io/metadata.name': GOOD[0] }, 'the dry run changed nothing');

  const creates = await watchCreates(GOOD);
  const t0 = Date.now();
  const run = await cli(
    [
      'rollout',
      '--from',
      'default',
      '--to',
      'canary',
      '-n',
      GOOD.join(','),
      '-c',
      CONFIG.default,
      '--yes',
      '--timeout',
      '2m',
      '--interval',
      '0s',
      '-o',
      'json',
    ],
    { allowFail: true, timeoutMs: 600_000 },
  );
  const seconds = (Date.now() - t0) / 1000;
  creates.stop();
  assert.equal(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout) as Obj;
  assert.deepEqual(
    report.namespaces.map((n: Obj) => [n.namespace, n.result]),
    GOOD.map((ns) => [ns, 'moved']),
  );
  // One namespace at a time: each was moved before the next one's restart began.
  const finished = report.namespaces.map((n: Obj) => Date.parse(n.workloads[0].finishedAt));
  const started = report.namespaces.map((n: Obj) => Date.parse(n.workloads[0].startedAt));
  for (let i = 1; i < GOOD.length; i++) assert.ok(started[i] >= finished[i - 1], 'a namespace was restarted before the previous one was ready');
  for (const ns of GOOD) {
    assert.deepEqual(await labels(ns), { [KEYS.revisionLabel]: 'canary', 'kubernetes.io/metadata.name': ns });
    const running = await waitRunning(ns, 'app=web', 2, 10_000);
    assert.deepEqual(running.map(revisionOf), ['canary', 'canary']);
    for (const p of running)
      assert.equal([...(p.spec.initContainers ?? []), ...p.spec.containers].find((c: Obj) => c.name === 'sidecar-proxy').image, NEW_PROXY);
    const status = await cli(['status', '-n', ns, '--revision', 'canary', '-c', CONFIG.canary, '--webhook-config', `${NAME}-canary`, '-o', 'json']);
    const w = (JSON.parse(status.stdout) as Obj).workloads[0];
    assert.deepEqual([w.state, w.revisions, w.counts.current], ['current', ['canary'], 2], status.stdout);
  }
  const all = [...creates.pods.entries()];
  t.diagnostic(
    `3 namespaces moved in ${seconds.toFixed(1)}s (${report.namespaces.map((n: Obj) => `${n.namespace} ${((Date.parse(n.workloads[0].finishedAt) - Date.parse(n.workloads[0].startedAt)) / 1000).toFixed(1)}s`).join(', ')}); ${all.length} pods created during the rollout`,
  );
  // A restart of 2 replicas creates 2 pods (maxSurge 1, maxUnavailable 0): anything more is a pod retried or restarted twice.
  assert.deepEqual(
    GOOD.map((ns) => all.filter(([k]) => k.startsWith(`${ns}/`)).length),
    [2, 2, 2],
    `pods created: ${all.map(([k]) => k).join(', ')}`,
  );
  assert.deepEqual(
    all.filter(([, rev]) => rev === undefined),
    [],
    'pods created without a sidecar',
  );
  assert.deepEqual(
    all.filter(([, rev]) => rev !== 'canary'),
    [],
    'pods created with another revision',
  );
  assert.deepEqual(await refusedCreates(GOOD), [], 'refused pod creations');
});

test('scenario 32-2: rollout default -> broken stops at the first namespace, says why, moves it back; the others never move', { skip }, async (t) => {
  const before = await Promise.all(BAD.map(generation));
  const creates = await watchCreates(BAD);
  const t0 = Date.now();
  const run = await cli(
    ['rollout', '--from', 'default', '--to', 'broken', '-n', BAD.join(','), '-c', CONFIG.default, '--yes', '--timeout', '40s', '--interval', '0s'],
    { allowFail: true, timeoutMs: 600_000 },
  );
  const seconds = (Date.now() - t0) / 1000;
  assert.equal(run.code, 10, `exit 10 (SI_ROLLOUT_ROLLED_BACK): ${run.stderr}`);
  assert.match(run.stderr, /SI_ROLLOUT_ROLLED_BACK.*rolled back i32-bad-1: back on default .*Moved: none; not started: i32-bad-2, i32-bad-3/);
  // What failed and why: the pod's container states and its Events.
  assert.match(run.stdout, /^rolled-back i32-bad-1: /m);
  assert.match(run.stdout, /timeout deployment\/web: no progress within 40s: 1 of 1 new pods are not ready with the new sidecar/);
  assert.match(run.stdout, /containers: sidecar-proxy: running, not ready/);
  assert.match(run.stdout, /event: Warning Unhealthy: (Startup|Readiness) probe failed: .*15999.*connect: connection refused/);
  assert.match(run.stdout, /rollback:\n\s+progressed deployment\/web: 2 new pods, all ready with the new sidecar/);
  assert.match(run.stdout, /^not-started i32-bad-2: /m);
  // The first namespace is back on default, its pods Ready with default's sidecar.
  assert.deepEqual(await labels(BAD[0]!), { ...ON_DEFAULT, 'kubernetes.io/metadata.name': BAD[0] });
  assert.deepEqual((await waitRunning(BAD[0]!, 'app=web', 2, 60_000)).map(revisionOf), ['default', 'default']);
  // The others never moved: labels, Deployment generation, no pod created.
  for (const [i, ns] of BAD.entries()) {
    if (i === 0) continue;
    assert.deepEqual(await labels(ns), { ...ON_DEFAULT, 'kubernetes.io/metadata.name': ns });
    assert.equal(await generation(ns), before[i]);
    assert.deepEqual((await pods(ns, 'app=web')).map(revisionOf), ['default', 'default']);
  }
  creates.stop();
  const all = [...creates.pods.entries()];
  t.diagnostic(`stopped and rolled back in ${seconds.toFixed(1)}s; pods created: ${all.map(([k, r]) => `${k.split('/')[1]} (${r})`).join(', ')}`);
  assert.ok(
    all.every(([k]) => k.startsWith(`${BAD[0]}/`)),
    'a pod was created in a namespace that should never have moved',
  );
  assert.deepEqual(
    all.filter(([, rev]) => rev === undefined),
    [],
    'pods created without a sidecar',
  );
  // 1 broken pod (maxSurge 1; it never gets ready, so the rollout goes no further), then the restart back onto default: 2.
  assert.deepEqual(all.map(([, rev]) => rev).sort(), ['broken', 'default', 'default'], 'the broken pod and the rolled-back ones');
  assert.deepEqual(await refusedCreates(BAD), [], 'refused pod creations');
});

test('scenario 32-3: rollout --undo moves a namespace back to what the last rollout replaced', { skip }, async () => {
  const ns = GOOD[2]!;
  const dry = await cli(['rollout', '--undo', '-n', ns, '-c', CONFIG.default, '-o', 'wide']);
  assert.match(dry.stdout, /namespace i32-good-3: i32-injection=enabled, i32.example.com\/rev removed\n    labels now: i32.example.com\/rev=canary\n/);
  const run = await cli(['rollout', '--undo', '-n', ns, '-c', CONFIG.default, '--yes', '--timeout', '2m'], { allowFail: true, timeoutMs: 600_000 });
  assert.equal(run.code, 0, run.stderr);
  const ns3 = await getJson(['namespace', ns]);
  assert.deepEqual(ns3.metadata.labels, { ...ON_DEFAULT, 'kubernetes.io/metadata.name': ns });
  assert.equal(ns3.metadata.annotations?.['sidecar-injector.io/rollout'], undefined, 'the move record is gone');
  assert.deepEqual((await waitRunning(ns, 'app=web', 2, 10_000)).map(revisionOf), ['default', 'default']);
  const again = await cli(['rollout', '--undo', '-n', ns, '-c', CONFIG.default], { allowFail: true });
  assert.equal(again.code, 2);
  assert.match(again.stderr, /no move record .*nothing to undo/);
});
