/**
 * Issue 31 on the node whose pods run: the chart installed with no values at all (the image is
 * the one `npm run image` built from this tree, imported into the node) comes up Ready with a
 * certificate its replicas made themselves, and a Deployment in a labelled namespace is
 * injected through the Service, kube-proxy and those replicas. With 90-second certificates and
 * 3-minute CAs, a CA rotation and several renewals happen under a steady stream of pod
 * creations with failurePolicy Fail, and none fails. A missing tls.existingSecret and a Role
 * without `update` (the chart rendered by `helm template`, where Helm cannot look the Secret up)
 * leave pods running but unready with one reason in their Events and log, never restarted.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../cluster/paths.js';
import { apply, cli, createNamespace, deleteNamespaces, getJson, kubectl, pods, run, waitFor, type Obj } from '../lib/kube.js';
import { IMAGES, noNodeReason, ourImage, waitRunning } from '../lib/node.js';
import { ENABLED, SIDECAR } from '../lib/injected.js';
import { podEvents, servedFingerprint } from '../lib/in-pod.js';
import { startAdmissionLoad } from '../lib/admission-load.js';
import { imageReference } from '../../scripts/release/image-spec.js';

const skip = await noNodeReason();
const CHART = join(repoRoot, 'deploy/helm/sidecar-injector');
const releases: Array<[string, string]> = [];
const applied: Obj[][] = [];

/** Nothing when the image under test is the chart's default (the usual case): `helm install` with no values. */
function imageValues(): string[] {
  const { reference } = ourImage();
  if (reference === imageReference().reference) return [];
  const at = reference.lastIndexOf(':');
  return ['--set', `image.repository=${reference.slice(0, at)}`, '--set', `image.tag=${reference.slice(at + 1)}`];
}

const secretData = async (namespace: string, name: string): Promise<Record<string, string>> =>
  Object.fromEntries(
    Object.entries(((await getJson(['-n', namespace, 'secret', name])).data ?? {}) as Record<string, string>).map(([k, v]) => [
      k,
      Buffer.from(v, 'base64').toString(),
    ]),
  );
const pemsOf = (text: string): string[] => text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/g) ?? [];
const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;
const bundle = async (name: string): Promise<string[]> =>
  pemsOf(
    Buffer.from(((await getJson(['mutatingwebhookconfiguration', name])).webhooks[0].clientConfig.caBundle as string | undefined) ?? '', 'base64').toString(),
  ).map(fingerprint);
const injectorPods = (namespace: string, release: string) => pods(namespace, `app.kubernetes.io/instance=${release}`);
const restarts = (list: Obj[]) => list.flatMap((p) => (p.status?.containerStatuses ?? []) as Obj[]).reduce((n, c) => n + (c.restartCount as number), 0);

async function helmInstall(release: string, namespace: string, values: string[] = []): Promise<number> {
  await kubectl(['delete', 'namespace', namespace, '--ignore-not-found', '--wait=true', '--timeout=120s']);
  releases.push([release, namespace]);
  const t0 = Date.now();
  await run('helm', ['install', release, CHART, '-n', namespace, '--create-namespace', '--wait', '--timeout', '180s', ...imageValues(), ...values], {
    timeoutMs: 240_000,
  });
  return Date.now() - t0;
}

/** The chart as GitOps renders it (helm template: no lookup), applied with kubectl; `edit` may change objects first. */
async function applyRendered(release: string, namespace: string, values: string[], edit: (objects: Obj[]) => void = () => undefined): Promise<void> {
  await kubectl(['delete', 'namespace', namespace, '--ignore-not-found', '--wait=true', '--timeout=120s']);
  const objects = parseAllDocuments(
    (
      await run('helm', [
        'template',
        release,
        CHART,
        '-n',
        namespace,
        '--set',
        'createNamespace=true',
        '--set',
        'failurePolicy=Ignore',
        ...imageValues(),
        ...values,
      ])
    ).stdout,
  )
    .map((d) => d.toJS() as Obj)
    .filter((o) => o !== null);
  edit(objects);
  applied.push(objects);
  await apply(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
}

after(async () => {
  if (skip !== false) return;
  for (const [release, namespace] of releases) await run('helm', ['uninstall', release, '-n', namespace, '--wait=false'], { allowFail: true });
  for (const objects of applied) {
    for (const o of objects.filter((x) => !x.metadata.namespace && x.kind !== 'Namespace'))
      await kubectl(['delete', o.kind.toLowerCase(), o.metadata.name, '--ignore-not-found'], { allowFail: true });
  }
  await deleteNamespaces('si-prov', 'si-prov-apps', 'si-rot', 'si-rot-apps', 'si-own', 'si-deny');
});

test('31-node.1: helm install with no values: both replicas become Ready on a certificate one of them wrote, and a Deployment in a labelled namespace is injected', {
  skip,
}, async () => {
  const ms = await helmInstall('si-prov', 'si-prov');
  process.stderr.write(`31-node.1: helm install --wait returned in ${(ms / 1000).toFixed(1)} s (two replicas Ready)\n`);
  const list = await waitRunning('si-prov', 'app.kubernetes.io/instance=si-prov', 2);
  assert.equal(restarts(list), 0);
  const data = await secretData('si-prov', 'si-prov-certs');
  assert.deepEqual(Object.keys(data).sort(), ['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
  // One write between the two replicas, and each serves it (straight to the pod, as kube-proxy forwards).
  const events = (await Promise.all(list.map((p) => podEvents('si-prov', p.metadata.name as string)))).flat();
  assert.equal(events.filter(([reason]) => reason === 'TLSCertificateProvisioned').length, 1, JSON.stringify(events));
  for (const p of list)
    assert.equal(await servedFingerprint(p.status.podIP as string, 9443, 'si-prov.si-prov.svc', data['ca.crt']), fingerprint(data['tls.crt']));
  assert.ok((await bundle('si-prov')).includes(fingerprint(data['ca.crt'])));
  // The chart's RBAC: this one Secret, nothing else.
  const can = async (...args: string[]) =>
    (await kubectl(['auth', 'can-i', ...args, '--as', 'system:serviceaccount:si-prov:si-prov', '-n', 'si-prov'], { allowFail: true })).stdout.trim();
  assert.deepEqual(
    [await can('update', 'secrets/si-prov-certs'), await can('update', 'secrets/other'), await can('create', 'secrets'), await can('list', 'secrets')],
    ['yes', 'no', 'no', 'no'],
  );

  await createNamespace('si-prov-apps', ENABLED);
  await apply(
    JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'si-prov-apps' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: IMAGES.app }] } },
      },
    }),
  );
  const injected = await waitFor(
    'the two pods of web',
    async () => {
      const found = await pods('si-prov-apps', 'app=web');
      return found.length === 2 ? found : undefined;
    },
    60_000,
  );
  for (const p of injected) {
    const names = (p.spec.containers as Obj[]).map((c) => c.name as string);
    assert.deepEqual(names, ['web', SIDECAR], `${p.metadata.name as string}: injected through the Service`);
  }
  const failed = await getJson(['events', '-n', 'si-prov-apps', '--field-selector', 'reason=FailedCreate']);
  assert.deepEqual(
    failed.items.map((e: Obj) => e.message),
    [],
  );
  await run('helm', ['uninstall', 'si-prov', '-n', 'si-prov', '--wait']);
  await deleteNamespaces('si-prov-apps');
});

test('31-node.2: a CA rotation and certificate renewals in the running pods, under pod creations with failurePolicy Fail: none fails', {
  skip,
  timeout: 600_000,
}, async () => {
  await helmInstall('si-rot', 'si-rot', ['--set', 'tls.caValidity=3m', '--set', 'tls.certValidity=90s']);
  const first = await secretData('si-rot', 'si-rot-certs');
  const firstCaExpires = new Date(new X509Certificate(first['ca.crt']).validTo).getTime();
  await createNamespace('si-rot-apps', ENABLED);
  const load = startAdmissionLoad({ namespace: 'si-rot-apps', sidecar: SIDECAR, perSecond: 5 });
  const notes = new Set<string>();
  try {
    // The first CA is due at 2 minutes, staged, trusted, switched; it expires at 3 and leaves the bundle.
    await waitFor(
      'a CA switch and the first CA expired',
      async () => {
        notes.add((await getJson(['-n', 'si-rot', 'secret', 'si-rot-certs'])).metadata.annotations['sidecar-injector.io/tls-provisioned'] as string);
        return [...notes].some((n) => n.includes('switch-ca')) && Date.now() > firstCaExpires + 20_000;
      },
      330_000,
      1000,
    );
  } finally {
    const result = await load.stop();
    const logs = (
      await Promise.all((await injectorPods('si-rot', 'si-rot')).map((p) => kubectl(['-n', 'si-rot', 'logs', p.metadata.name as string], { allowFail: true })))
    ).map((r) => r.stdout.slice(-3000));
    assert.deepEqual(result.failures, [], `failed admissions: ${result.failures.length} of ${result.sent}\n${logs.join('\n---\n')}`);
    assert.equal(result.notInjected, 0);
    assert.ok(result.injected > 500, `${result.injected} pods injected`);
    process.stderr.write(`31-node.2: ${result.injected} admissions through the Service, 0 failed, during the Secret writes ${[...notes].join(' | ')}\n`);
  }
  assert.ok(
    [...notes].some((n) => n.includes('renew-cert')),
    'certificates were renewed',
  );
  const list = await waitRunning('si-rot', 'app.kubernetes.io/instance=si-rot', 2);
  assert.equal(restarts(list), 0, 'the replicas kept running: rotation reloads, it does not restart');
  const data = await secretData('si-rot', 'si-rot-certs');
  assert.notEqual(fingerprint(data['ca.crt']), fingerprint(first['ca.crt']), 'a new CA signs');
  await waitFor(
    'the bundle to hold only unexpired CAs, the signing one first',
    async () => {
      const have = await bundle('si-rot');
      return have[0] === fingerprint(data['ca.crt']) && !have.includes(fingerprint(first['ca.crt']));
    },
    60_000,
  );
  await waitFor(
    "every replica to serve the Secret's certificate",
    async () => {
      const now = await secretData('si-rot', 'si-rot-certs');
      const served = await Promise.all(list.map((p) => servedFingerprint(p.status.podIP as string, 9443, 'si-rot.si-rot.svc', now['ca.crt'])));
      return served.every((fp) => fp === fingerprint(now['tls.crt']));
    },
    30_000,
  );
  await run('helm', ['uninstall', 'si-rot', '-n', 'si-rot', '--wait']);
  await deleteNamespaces('si-rot-apps');
});

test('31-node.3: a missing tls.existingSecret and a Role without update: pods run unready with one reason in their Events and log, never restart; the Secret arriving makes them Ready', {
  skip,
  timeout: 600_000,
}, async () => {
  await applyRendered('si-own', 'si-own', ['--set', 'tls.existingSecret=si-own-cert']);
  await applyRendered('si-deny', 'si-deny', [], (objects) => {
    objects.find((o) => o.kind === 'Role')!.rules[0].verbs = ['get'];
  });
  const missing = 'Secret si-own/si-own-cert does not exist. Create it with tls.crt, tls.key and ca.crt';
  const checks: Array<[string, string, RegExp]> = [
    ['si-own', 'TLSSecretMissing', new RegExp(`^${missing.replace(/[.]/g, '\\.')}`)],
    [
      'si-deny',
      'TLSSecretForbidden',
      /^the injector may not write Secret si-deny\/si-deny-certs \(.*\): grant its service account get and update on secrets\/si-deny-certs in si-deny/,
    ],
  ];
  for (const [ns, reason, message] of checks) {
    const running = await waitFor(
      `the pods of ${ns} running`,
      async () => {
        const list = await injectorPods(ns, ns);
        return list.length === 2 && list.every((p) => p.status?.phase === 'Running') ? list : undefined;
      },
      120_000,
      500,
    );
    for (const p of running) {
      const name = p.metadata.name as string;
      await waitFor(`the ${reason} Event on ${name}`, async () => (await podEvents(ns, name)).some(([r, m]) => r === reason && message.test(m)), 60_000);
      await waitFor(
        `kubelet to see ${name} unready`,
        async () =>
          (await podEvents(ns, name)).some(([r, m]) => r === 'Unhealthy' && m.startsWith('Readiness probe failed: HTTP probe failed with statuscode: 503')),
        60_000,
      );
    }
  }
  // Longer than the liveness probe would need to kill a stuck process (5 s + 3 x 10 s): nobody restarts.
  await new Promise((r) => setTimeout(r, 40_000));
  for (const [ns, , message] of checks) {
    const list = await injectorPods(ns, ns);
    assert.equal(restarts(list), 0, `${ns}: waiting is not crashing`);
    assert.ok(list.every((p) => (p.status.conditions as Obj[]).some((c) => c.type === 'Ready' && c.status === 'False')));
    const log = (await kubectl(['-n', ns, 'logs', list[0]!.metadata.name as string])).stdout;
    assert.equal(
      log.split('\n').filter((l) => l.includes('"problem"') && message.test(JSON.parse(l).msg as string)).length,
      1,
      `${ns}: the reason is logged once:\n${log.slice(-2000)}`,
    );
  }
  // The Secret arrives: Ready without a restart.
  const dir = await mkdtemp(join(tmpdir(), 'si-e2e-own-'));
  try {
    const manifest = (await cli(['certs', '--service', 'si-own', '--namespace', 'si-own', '--out', dir, '--secret-manifest', '--secret-name', 'si-own-cert']))
      .stdout;
    await kubectl(['-n', 'si-own', 'apply', '-f', '-'], { input: manifest });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const ready = await waitRunning('si-own', 'app.kubernetes.io/instance=si-own', 2, 60_000);
  assert.equal(restarts(ready), 0);
});
