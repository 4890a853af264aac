/**
 * Issue 31 on the control plane: the injector provisions and rotates its own certificate.
 * What `manifests` writes by default (an empty Secret, a Role on it, the caBundle reconciler's
 * ClusterRole) is applied; two `serve --tls-secret --tls-provision` processes run as replicas
 * do, each with the ServiceAccount's token in its own mount namespace. The apiserver reaches
 * replica A the way it reaches any webhook Service: it resolves the Service's ClusterIP (an
 * address put on the loopback interface for the test) and checks the certificate against
 * NAME.NAMESPACE.svc. Then: a rotation of certificates and CAs under a steady stream of pod
 * creations with failurePolicy Fail, the refusals (a missing existing Secret, RBAC denying the
 * write), and the Helm chart with no values: installed, provisioned under its own RBAC, and
 * upgraded without losing the certificate (Helm's three-way merge, with the real helm).
 * With a node, kube-proxy owns the Service addresses: 31.2 and 31.3 then skip, and
 * 31-self-provision-node runs the replicas as the chart's pods instead.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../cluster/paths.js';
import { apply, cli, createNamespace, deleteNamespaces, getJson, kubectl, run, waitFor, type Obj } from '../lib/kube.js';
import { dryRunCreate, appPod, freePort, waitUntilInjecting } from '../lib/webhook.js';
import { ENABLED, SIDECAR } from '../lib/injected.js';
import { asServiceAccount, isRoot, podEvents, readyz, servedFingerprint, spawnServe, waitReady, type PodIdentity, type ServeProcess } from '../lib/in-pod.js';
import { startAdmissionLoad } from '../lib/admission-load.js';
import { noNodeReason } from '../lib/node.js';

const NS = 'e2e-prov';
const NAME = 'e2e-prov';
const APPS = 'e2e-prov-apps';
const SECRET = `${NAME}-certs`;
const CHART = join(repoRoot, 'deploy/helm/sidecar-injector');
const skip = isRoot ? false : 'needs root: private mount namespaces (unshare -m) and an address on the loopback interface';
const node = (await noNodeReason()) === false;
const skipNoNode = skip || (node ? 'a node runs: kube-proxy owns the Service addresses, and 31-self-provision-node runs these replicas as pods' : false);

let serviceIp: string | undefined;
const identities: PodIdentity[] = [];
const servers: ServeProcess[] = [];
interface Replica {
  serve: ServeProcess;
  monitoring: number;
  host: string;
  name: string;
}
let replicas: Replica[] = [];

const secretData = async (name = SECRET, namespace = NS): Promise<Record<string, string>> => {
  const s = await getJson(['-n', namespace, 'secret', name]);
  return Object.fromEntries(Object.entries((s.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
};
const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;
const bundle = async (): Promise<string[]> => {
  const mwc = await getJson(['mutatingwebhookconfiguration', NAME]);
  const pem = Buffer.from((mwc.webhooks[0].clientConfig.caBundle as string | undefined) ?? '', 'base64').toString();
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/g) ?? []).map(fingerprint);
};

/** An address in the service CIDR that nothing on this machine uses (another cluster's kube-proxy rules included). */
function pickServiceIp(): string {
  const taken = execFileSync('sh', ['-c', 'ip -o addr; iptables-save -t nat 2>/dev/null || true'], { encoding: 'utf8' });
  for (let i = 231; i < 250; i++) if (!taken.includes(`10.0.0.${i}`)) return `10.0.0.${i}`;
  throw new Error('no free address in 10.0.0.231-249');
}

/** serve as a replica of the install: as the ServiceAccount, in a pod-like environment. */
async function startReplica(pod: string, identity: PodIdentity, args: string[], host = '127.0.0.1'): Promise<Replica> {
  const monitoring = await freePort();
  const serve = spawnServe([...args, '--address', host, '--monitoring-port', String(monitoring)], { env: identity.env, wrap: identity.wrap });
  servers.push(serve);
  return { serve, monitoring, host, name: pod };
}

before(async () => {
  if (!isRoot) return;
  await deleteNamespaces(NS);
  await kubectl(['delete', 'mutatingwebhookconfiguration', NAME, '--ignore-not-found']);
  const objects = parseAllDocuments((await cli(['manifests', '--name', NAME, '--namespace', NS])).stdout).map((d) => d.toJS() as Obj);
  // Everything but the workload: the replicas run here, as processes (without a node, reached through the Service's address).
  const drop = ['Deployment', 'PodDisruptionBudget', ...(node ? ['Service', 'MutatingWebhookConfiguration'] : [])];
  const wanted = objects.filter((o) => !drop.includes(o.kind));
  if (!node) {
    serviceIp = pickServiceIp();
    wanted.find((o) => o.kind === 'Service')!.spec.clusterIP = serviceIp;
  }
  await kubectl(['delete', 'namespace', NS, '--ignore-not-found', '--wait=true', '--timeout=120s']);
  await apply(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: wanted }));
  if (serviceIp) execFileSync('ip', ['addr', 'add', `${serviceIp}/32`, 'dev', 'lo']);
  await createNamespace(APPS, ENABLED);
  await waitFor('the ServiceAccount', async () => (await kubectl(['-n', NS, 'get', 'serviceaccount', NAME], { allowFail: true })).code === 0);
});

after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  for (const id of identities) await id.remove();
  await kubectl(['delete', 'mutatingwebhookconfiguration', NAME, '--ignore-not-found'], { allowFail: true });
  for (const kind of ['clusterrole', 'clusterrolebinding']) await kubectl(['delete', kind, NAME, 'e2e-deny', '--ignore-not-found'], { allowFail: true });
  await run('helm', ['uninstall', 'e2e-helmprov', '-n', 'e2e-helmprov', '--wait=false'], { allowFail: true });
  if (serviceIp) execFileSync('ip', ['addr', 'del', `${serviceIp}/32`, 'dev', 'lo'], { stdio: 'ignore' });
  await deleteNamespaces(NS, APPS, 'e2e-helmprov');
});

test('31.1: the generated RBAC lets the injector read and update its one Secret, and nothing more', { skip }, async () => {
  const as = ['--as', `system:serviceaccount:${NS}:${NAME}`, '-n', NS];
  const can = async (...args: string[]) => (await kubectl(['auth', 'can-i', ...args, ...as], { allowFail: true })).stdout.trim();
  assert.equal(await can('get', `secrets/${SECRET}`), 'yes');
  assert.equal(await can('update', `secrets/${SECRET}`), 'yes');
  assert.equal(await can('update', 'secrets/some-other-secret'), 'no', 'only its own Secret');
  assert.equal(await can('get', 'secrets/some-other-secret'), 'no');
  assert.equal(await can('create', 'secrets'), 'no', 'create cannot be limited by name, so it is not granted');
  assert.equal(await can('list', 'secrets'), 'no');
  assert.equal(await can('create', 'events'), 'yes');
  assert.equal(await can('patch', `mutatingwebhookconfigurations/${NAME}`), 'yes');
  const stored = await getJson(['-n', NS, 'secret', SECRET]);
  assert.equal(stored.type, 'Opaque');
  assert.equal(stored.data, undefined, 'written empty');
});

test('31.2: two replicas start together: one writes the certificate, both serve it, the caBundle trusts it, pods are injected', {
  skip: skipNoNode,
}, async () => {
  const args = [
    '--tls-secret',
    SECRET,
    '--tls-provision',
    NAME,
    '--webhook-config',
    NAME,
    '--ca-bundle-resync',
    '5',
    '--tls-secret-resync',
    '2',
    '--tls-ca-validity',
    '2m',
    '--tls-cert-validity',
    '1m',
    '--log-level',
    'info',
  ];
  const a = await asServiceAccount(NS, NAME, 'replica-a');
  const b = await asServiceAccount(NS, NAME, 'replica-b');
  identities.push(a, b);
  const bPort = await freePort();
  replicas = await Promise.all([
    startReplica('replica-a', a, [...args, '--port', '443'], serviceIp!),
    startReplica('replica-b', b, [...args, '--port', String(bPort)]),
  ]);
  for (const r of replicas) {
    const detail = await waitReady(r.serve, r.monitoring, 60_000, r.host);
    assert.equal(detail.certificate.source, `Secret ${NS}/${SECRET} (self-provisioned)`);
    assert.equal(detail.certificate.problem, undefined);
  }
  const data = await secretData();
  assert.deepEqual(Object.keys(data).sort(), ['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
  const stored = await getJson(['-n', NS, 'secret', SECRET]);
  assert.match(stored.metadata.annotations['sidecar-injector.io/tls-provisioned'], / create,issue-cert$/);
  // Exactly one replica wrote: one Provisioned Event between the two pods.
  const provisioned = [...(await podEvents(NS, 'replica-a')), ...(await podEvents(NS, 'replica-b'))].filter(
    ([reason]) => reason === 'TLSCertificateProvisioned',
  );
  assert.equal(provisioned.length, 1, JSON.stringify(provisioned));
  // Both serve the Secret's certificate, for the Service's name, trusted through the caBundle.
  const ca = data['ca.crt'];
  for (const [host, port] of [
    [serviceIp!, 443],
    ['127.0.0.1', bPort],
  ] as const) {
    assert.equal(await servedFingerprint(host, port, `${NAME}.${NS}.svc`, ca), fingerprint(data['tls.crt']), `${host}:${port}`);
  }
  await waitFor('the caBundle to hold the CA', async () => (await bundle()).includes(fingerprint(ca)));
  await waitUntilInjecting(APPS, SIDECAR, 60_000);
});

test('31.3: certificates and CAs rotate under a steady stream of pod creations (failurePolicy Fail) and not one admission fails', {
  skip: skipNoNode,
  timeout: 600_000,
}, async () => {
  assert.equal(replicas.length, 2, 'the replicas of 31.2 run');
  const firstCa = fingerprint((await secretData())['ca.crt']);
  const load = startAdmissionLoad({ namespace: APPS, sidecar: SIDECAR, perSecond: 5 });
  const notes = new Set<string>();
  try {
    // 1-minute certificates and 2-minute CAs: two CA switches take about three minutes.
    await waitFor(
      'two CA switches',
      async () => {
        const s = await getJson(['-n', NS, 'secret', SECRET]);
        notes.add(s.metadata.annotations['sidecar-injector.io/tls-provisioned'] as string);
        return [...notes].filter((n) => n.includes('switch-ca')).length >= 2;
      },
      330_000,
      1000,
    );
    // And a little longer: the old CA expires and leaves the bundle while pods keep coming.
    await new Promise((r) => setTimeout(r, 20_000));
  } finally {
    const result = await load.stop();
    assert.deepEqual(
      result.failures,
      [],
      `failed admissions: ${result.failures.length} of ${result.sent}\n${replicas.map((r) => r.serve.output().slice(-3000)).join('\n---\n')}`,
    );
    assert.equal(result.notInjected, 0);
    assert.ok(result.injected > 500, `${result.injected} pods injected during the rotations`);
    process.stderr.write(`31.3: ${result.injected} admissions, 0 failed, during ${[...notes].length} Secret writes: ${[...notes].join(' | ')}\n`);
  }
  const data = await secretData();
  assert.notEqual(fingerprint(data['ca.crt']), firstCa, 'a new CA signs');
  assert.ok([...notes].some((n) => n.includes('stage-ca')) && [...notes].some((n) => n.includes('renew-cert')));
  // The bundle: the current CAs, nothing expired.
  const now = Date.now();
  for (const pem of data['ca.crt'].match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/g)!)
    assert.ok(new Date(new X509Certificate(pem).validTo).getTime() > now);
  await waitFor(
    'the bundle to be the CAs of the Secret',
    async () => {
      const want = (data['ca.crt'].match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n?/g) ?? []).map(fingerprint);
      const have = await bundle();
      return want.every((f) => have.includes(f)) && have.length <= want.length + 1;
    },
    30_000,
  );
  for (const r of replicas) {
    const ready = await readyz(r.monitoring, r.host);
    assert.equal(ready.status, 200);
    assert.ok(new Date(ready.body.certificate.notAfter as string).getTime() > now);
  }
  const pod = await dryRunCreate(APPS, appPod('after-rotation'));
  assert.ok((pod.spec.containers as Obj[]).some((c) => c.name === SIDECAR));
});

test('31.4: a missing existing Secret is one clear reason in /readyz, the log and an Event; the pod serves once it is created', { skip }, async () => {
  const objects = parseAllDocuments(
    (await cli(['manifests', '--name', 'e2e-own', '--namespace', NS, '--existing-secret', 'e2e-own-tls', '--no-ca-bundle-reconcile'])).stdout,
  ).map((d) => d.toJS() as Obj);
  await apply(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects.filter((o) => ['ServiceAccount', 'Role', 'RoleBinding'].includes(o.kind)) }));
  const id = await asServiceAccount(NS, 'e2e-own', 'own-a');
  identities.push(id);
  const args = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args as string[];
  assert.deepEqual(args.slice(args.indexOf('--tls-secret'), args.indexOf('--tls-secret') + 2), ['--tls-secret', 'e2e-own-tls']);
  const r = await startReplica('own-a', id, ['--tls-secret', 'e2e-own-tls', '--port', String(await freePort())]);
  const reason = `Secret ${NS}/e2e-own-tls does not exist. Create it with tls.crt, tls.key and ca.crt`;
  const detail = await waitFor('/readyz to say why', async () => {
    const ready = await readyz(r.monitoring).catch(() => undefined);
    return ready?.status === 503 && typeof ready.body.certificate?.problem === 'string' ? ready.body : undefined;
  });
  assert.ok((detail.certificate.problem as string).startsWith(reason), detail.certificate.problem);
  assert.equal(detail.ready, false);
  await waitFor('the Event on the pod', async () => (await podEvents(NS, 'own-a')).some(([why, msg]) => why === 'TLSSecretMissing' && msg.startsWith(reason)));
  assert.equal(
    r.serve
      .output()
      .split('\n')
      .filter((l) => l.includes('does not exist')).length,
    1,
    'logged once, not every period',
  );
  // The Secret arrives: served without a restart.
  const dir = await mkdtemp(join(tmpdir(), 'si-e2e-own-'));
  try {
    const manifest = (await cli(['certs', '--service', 'e2e-own', '--namespace', NS, '--out', dir, '--secret-manifest'])).stdout;
    await kubectl(['-n', NS, 'apply', '-f', '-'], { input: manifest });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await waitReady(r.serve, r.monitoring, 30_000);
});

test('31.5: RBAC that denies the Secret write is one clear reason, not a hang', { skip }, async () => {
  const objects = parseAllDocuments((await cli(['manifests', '--name', 'e2e-deny', '--namespace', NS])).stdout).map((d) => d.toJS() as Obj);
  const role = objects.find((o) => o.kind === 'Role')!;
  role.rules[0].verbs = ['get']; // someone trimmed the Role
  await apply(
    JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects.filter((o) => ['ServiceAccount', 'Role', 'RoleBinding', 'Secret'].includes(o.kind)) }),
  );
  const id = await asServiceAccount(NS, 'e2e-deny', 'deny-a');
  identities.push(id);
  const r = await startReplica('deny-a', id, [
    '--tls-secret',
    'e2e-deny-certs',
    '--tls-provision',
    'e2e-deny',
    '--webhook-config',
    'e2e-deny',
    '--port',
    String(await freePort()),
  ]);
  const detail = await waitFor('/readyz to say why', async () => {
    const ready = await readyz(r.monitoring).catch(() => undefined);
    return ready?.status === 503 && typeof ready.body.certificate?.problem === 'string' ? ready.body : undefined;
  });
  assert.match(
    detail.certificate.problem as string,
    new RegExp(
      `^the injector may not write Secret ${NS}/e2e-deny-certs \\(.*forbidden.*\\): grant its service account get and update on secrets/e2e-deny-certs in ${NS}`,
    ),
  );
  await waitFor('the Event on the pod', async () => (await podEvents(NS, 'deny-a')).some(([why]) => why === 'TLSSecretForbidden'));
  assert.equal((await getJson(['-n', NS, 'secret', 'e2e-deny-certs'])).data, undefined, 'nothing written');
});

test("31.6: helm install with no values, provisioned under the chart's own RBAC; helm upgrade keeps the certificate; a missing tls.existingSecret fails the install", {
  skip,
}, async () => {
  await deleteNamespaces('e2e-helmprov');
  await kubectl(['delete', 'namespace', 'e2e-helmprov', '--ignore-not-found', '--wait=true', '--timeout=120s']);
  await run('helm', ['install', 'e2e-helmprov', CHART, '-n', 'e2e-helmprov', '--create-namespace']);
  const secret = await getJson(['-n', 'e2e-helmprov', 'secret', 'e2e-helmprov-certs']);
  assert.equal(secret.data, undefined);
  // The chart's Deployment, run as its pod would (the chart's ServiceAccount, its exact arguments).
  const dep = await getJson(['-n', 'e2e-helmprov', 'deployment', 'e2e-helmprov']);
  const args = (dep.spec.template.spec.containers[0].args as string[]).slice(1);
  args[args.indexOf('--port') + 1] = String(await freePort());
  args[args.indexOf('--monitoring-port') + 1] = String(await freePort());
  args.splice(args.indexOf('--config'), 2); // the ConfigMap is not mounted here: the built-in config, which it holds
  assert.ok(!args.includes('--tls-dir') && args.includes('--tls-provision'));
  const id = await asServiceAccount('e2e-helmprov', 'e2e-helmprov', 'helm-a');
  identities.push(id);
  const serve = spawnServe([...args, '--address', '127.0.0.1'], { env: id.env, wrap: id.wrap });
  servers.push(serve);
  await waitFor('the Secret to be provisioned', async () => (await secretData('e2e-helmprov-certs', 'e2e-helmprov'))['tls.crt'], 60_000);
  await waitFor('the caBundle', async () => {
    const mwc = await getJson(['mutatingwebhookconfiguration', 'e2e-helmprov']);
    return typeof mwc.webhooks[0].clientConfig.caBundle === 'string';
  });
  await serve.stop();
  const before = await secretData('e2e-helmprov-certs', 'e2e-helmprov');
  await run('helm', ['upgrade', 'e2e-helmprov', CHART, '-n', 'e2e-helmprov', '--set', 'logLevel=debug']);
  assert.equal(
    (await getJson(['-n', 'e2e-helmprov', 'deployment', 'e2e-helmprov'])).spec.template.spec.containers[0].args.includes('debug'),
    true,
    'the upgrade applied',
  );
  assert.deepEqual(await secretData('e2e-helmprov-certs', 'e2e-helmprov'), before, 'helm upgrade left the certificates alone');
  // A named Secret that is not there: refused at install time, with the reason.
  const refused = await run('helm', ['install', 'e2e-helmprov-own', CHART, '-n', 'e2e-helmprov', '--set', 'tls.existingSecret=nope'], { allowFail: true });
  assert.notEqual(refused.code, 0);
  assert.match(
    refused.stderr,
    /Secret e2e-helmprov\/nope \(tls.existingSecret\) does not exist: create it with tls.crt, tls.key and ca.crt for e2e-helmprov-own.e2e-helmprov.svc first/,
  );
});
