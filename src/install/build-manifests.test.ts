import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { serviceDnsNames } from '../certs/index.js';
import { parseConfig, defaultConfig } from '../profiles/index.js';
import { buildProgram } from '../cli/command-tree.js';
import { memoryIO } from '../../test/support/memory-io.js';
import { tlsProbe } from '../../test/support/tls-probe.js';
import { validateObject } from '../../test/support/k8s-validate.js';
import { generateInstall, type InstallRequest, type KubeObject } from './build-manifests.js';
import { evaluateScopes, NAMESPACE_NAME_LABEL, type WebhookScope } from './webhook-rules.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- generated objects are walked as loose JSON in assertions */
type Obj = Record<string, any>;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'si-install-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Generate, then read the YAML back the way kubectl would see it (not the objects in memory). */
async function install(request: InstallRequest = {}): Promise<{ docs: Obj[]; yaml: string; notes: string[] }> {
  const result = await generateInstall(request);
  const docs = parseAllDocuments(result.yaml).map((d) => {
    assert.deepEqual(d.errors, [], 'the output parses as YAML');
    return d.toJS() as Obj;
  });
  assert.deepEqual(docs, JSON.parse(JSON.stringify(result.objects)), 'the YAML holds exactly the objects built');
  return { docs, yaml: result.yaml, notes: result.notes };
}

const find = (docs: Obj[], kind: string): Obj => {
  const found = docs.filter((d) => d.kind === kind);
  assert.equal(found.length, 1, `exactly one ${kind}`);
  return found[0];
};
const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

describe('manifests: the default install (the server provisions its certificate)', () => {
  let docs: Obj[];
  before(async () => {
    ({ docs } = await install());
  });

  it('lists every object in an order kubectl apply accepts in one pass', () => {
    assert.deepEqual(
      docs.map((d) => d.kind),
      [
        'Namespace',
        'ServiceAccount',
        'ClusterRole',
        'ClusterRoleBinding',
        'Role',
        'RoleBinding',
        'ConfigMap',
        'Secret',
        'Service',
        'Deployment',
        'PodDisruptionBudget',
        'MutatingWebhookConfiguration',
      ],
    );
    for (const d of docs) {
      const clusterScoped = ['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'MutatingWebhookConfiguration'].includes(d.kind);
      assert.equal(d.metadata.namespace, clusterScoped ? undefined : 'sidecar-injector', `${d.kind} namespace`);
    }
  });

  it('every object validates against the Kubernetes schemas (kubernetes-models)', () => {
    for (const d of docs) assert.equal(validateObject(d), 'validated', d.kind);
  });

  it('the webhook configuration has the fields the issue asks for', () => {
    const mwc = find(docs, 'MutatingWebhookConfiguration');
    assert.equal(mwc.apiVersion, 'admissionregistration.k8s.io/v1');
    assert.equal(mwc.webhooks.length, 2);
    for (const w of mwc.webhooks) {
      assert.equal(w.sideEffects, 'None');
      assert.deepEqual(w.admissionReviewVersions, ['v1', 'v1beta1']);
      assert.equal(w.reinvocationPolicy, 'IfNeeded');
      assert.equal(w.failurePolicy, 'Fail');
      assert.ok(w.timeoutSeconds >= 1 && w.timeoutSeconds <= 5, 'short timeout');
      assert.deepEqual(w.rules, [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Namespaced' }]);
      assert.deepEqual(w.clientConfig.service, { name: 'sidecar-injector', namespace: 'sidecar-injector', path: '/inject', port: 443 });
      assert.equal(w.clientConfig.caBundle, undefined, 'the server fills it with the CA it makes');
      const excluded = w.namespaceSelector.matchExpressions.find((e: Obj) => e.key === NAMESPACE_NAME_LABEL);
      assert.equal(excluded.operator, 'NotIn');
      for (const ns of ['kube-system', 'sidecar-injector']) assert.ok(excluded.values.includes(ns), `excludes ${ns}`);
      assert.deepEqual(
        w.matchConditions.map((c: Obj) => c.name),
        ['not-mirror-pod', 'not-host-network'],
      );
    }
    // The opt-out label keeps a pod away even in an enabled namespace; opt-in works without the namespace label.
    const scopes = mwc.webhooks as WebhookScope[];
    const enabled = { name: 'shop', labels: { 'istio-injection': 'enabled' } };
    assert.equal(evaluateScopes(scopes, enabled, { 'sidecar.istio.io/inject': 'false' }).reached, false);
    assert.equal(evaluateScopes(scopes, enabled, {}).reached, true);
    assert.equal(evaluateScopes(scopes, { name: 'shop', labels: {} }, { 'sidecar.istio.io/inject': 'true' }).reached, true);
    // No self-deadlock: the injector's own pods never reach the webhook, whatever labels they carry.
    const ownNs = find(docs, 'Namespace');
    const podLabels = find(docs, 'Deployment').spec.template.metadata.labels;
    assert.equal(evaluateScopes(scopes, { name: ownNs.metadata.name, labels: ownNs.metadata.labels }, podLabels).reached, false);
    assert.equal(
      evaluateScopes(scopes, { name: ownNs.metadata.name, labels: { 'istio-injection': 'enabled' } }, { 'sidecar.istio.io/inject': 'true' }).reached,
      false,
    );
  });

  it('the Deployment is highly available, probed, non-root and read-only', () => {
    const dep = find(docs, 'Deployment');
    const pod = dep.spec.template.spec;
    const [c] = pod.containers;
    assert.equal(dep.spec.replicas, 2);
    assert.deepEqual(dep.spec.strategy.rollingUpdate, { maxUnavailable: 0, maxSurge: 1 });
    assert.equal(pod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey, 'kubernetes.io/hostname');
    assert.deepEqual(c.readinessProbe.httpGet, { path: '/readyz', port: 'https', scheme: 'HTTPS' });
    assert.deepEqual(c.livenessProbe.httpGet, { path: '/healthz', port: 'https', scheme: 'HTTPS' });
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.ok(pod.securityContext.runAsUser > 0);
    assert.equal(c.securityContext.readOnlyRootFilesystem, true);
    assert.equal(c.securityContext.allowPrivilegeEscalation, false);
    assert.deepEqual(c.securityContext.capabilities.drop, ['ALL']);
    assert.equal(c.securityContext.seccompProfile.type, 'RuntimeDefault');
    assert.ok(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory);
    for (const p of c.ports) assert.ok(p.containerPort >= 1024, 'no privileged port for a non-root server');
    assert.equal(dep.spec.template.metadata.annotations['prometheus.io/scrape'], 'true');
    assert.equal(dep.spec.template.metadata.labels['sidecar.istio.io/inject'], 'false', 'own pods opted out');
    const pdb = find(docs, 'PodDisruptionBudget');
    assert.equal(pdb.spec.minAvailable, 1);
    assert.deepEqual(pdb.spec.selector.matchLabels, dep.spec.selector.matchLabels);
  });

  it('objects reference each other consistently', () => {
    const dep = find(docs, 'Deployment');
    const pod = dep.spec.template.spec;
    const [c] = pod.containers;
    const svc = find(docs, 'Service');
    const sa = find(docs, 'ServiceAccount');
    const cm = find(docs, 'ConfigMap');
    const secret = find(docs, 'Secret');
    const mwc = find(docs, 'MutatingWebhookConfiguration');
    const role = find(docs, 'ClusterRole');
    const binding = find(docs, 'ClusterRoleBinding');
    const tlsRole = find(docs, 'Role');
    const tlsBinding = find(docs, 'RoleBinding');
    // Selectors pick the pod template.
    for (const [k, v] of Object.entries(dep.spec.selector.matchLabels)) assert.equal(dep.spec.template.metadata.labels[k], v);
    for (const [k, v] of Object.entries(svc.spec.selector)) assert.equal(dep.spec.template.metadata.labels[k], v);
    // Service 443 -> the container's named https port, which is the port serve listens on.
    const https = svc.spec.ports.find((p: Obj) => p.port === 443);
    const containerPort = c.ports.find((p: Obj) => p.name === https.targetPort).containerPort;
    assert.equal(c.args[c.args.indexOf('--port') + 1], String(containerPort));
    assert.equal(mwc.webhooks[0].clientConfig.service.port, https.port);
    // The config is mounted; the TLS Secret is read through the API (a missing one cannot hang the pod in ContainerCreating).
    const vol = (name: string) => pod.volumes.find((v: Obj) => v.name === name);
    assert.equal(vol('config').configMap.name, cm.metadata.name);
    assert.equal(vol('tls'), undefined);
    const mount = (name: string) => c.volumeMounts.find((m: Obj) => m.name === name).mountPath;
    assert.equal(c.args[c.args.indexOf('--config') + 1], mount('config'));
    assert.equal(c.args[c.args.indexOf('--tls-secret') + 1], secret.metadata.name);
    assert.equal(c.args[c.args.indexOf('--tls-provision') + 1], svc.metadata.name, 'the certificate is for the Service');
    assert.deepEqual(
      c.env.map((e: Obj) => [e.name, e.valueFrom.fieldRef.fieldPath]),
      [
        ['POD_NAME', 'metadata.name'],
        ['POD_NAMESPACE', 'metadata.namespace'],
        ['POD_UID', 'metadata.uid'],
      ],
    );
    // The Role allows exactly that Secret (get, update) and Events on the pod.
    assert.deepEqual(tlsRole.rules, [
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'update'], resourceNames: [secret.metadata.name] },
      { apiGroups: [''], resources: ['events'], verbs: ['create'] },
    ]);
    assert.deepEqual(tlsBinding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: tlsRole.metadata.name });
    assert.deepEqual(tlsBinding.subjects, [{ kind: 'ServiceAccount', name: 'sidecar-injector', namespace: 'sidecar-injector' }]);
    assert.equal(pod.automountServiceAccountToken, true);
    // RBAC: the service account may get/patch exactly the webhook configuration the server reconciles.
    assert.equal(pod.serviceAccountName, sa.metadata.name);
    assert.equal(c.args[c.args.indexOf('--webhook-config') + 1], mwc.metadata.name);
    assert.deepEqual(role.rules, [
      {
        apiGroups: ['admissionregistration.k8s.io'],
        resources: ['mutatingwebhookconfigurations'],
        verbs: ['get', 'patch'],
        resourceNames: [mwc.metadata.name],
      },
    ]);
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace }]);
  });

  it('the Secret is written empty and Opaque: no data for kubectl apply or helm upgrade to reset, nothing a tls-typed Secret would require', () => {
    const secret = find(docs, 'Secret');
    assert.deepEqual(Object.keys(secret).sort(), ['apiVersion', 'kind', 'metadata', 'type']);
    assert.equal(secret.type, 'Opaque');
    assert.equal(secret.metadata.name, 'sidecar-injector-certs');
  });

  it('the container runs serve with flags serve actually has', () => {
    const serve = buildProgram(memoryIO()).commands.find((cmd) => cmd.name() === 'serve');
    assert.ok(serve, 'the serve command is registered');
    const known = new Set(serve.options.map((o) => o.long));
    const [c] = find(docs, 'Deployment').spec.template.spec.containers;
    assert.equal(c.args[0], 'serve');
    for (const arg of c.args.slice(1)) if (arg.startsWith('--')) assert.ok(known.has(arg), `serve has ${arg}`);
  });

  it('the ConfigMap holds the built-in config, loadable as the server will load it', () => {
    const cm = find(docs, 'ConfigMap');
    const loaded = parseConfig(cm.data.config, cm.data.values);
    assert.equal(loaded.hash, defaultConfig().hash);
  });

  it('the injector namespace is labelled out of injection and restricted', () => {
    const ns = find(docs, 'Namespace');
    assert.equal(ns.metadata.labels['istio-injection'], 'disabled');
    assert.equal(ns.metadata.labels['pod-security.kubernetes.io/enforce'], 'restricted');
  });
});

describe('manifests --certs-dir: certificates generated here', () => {
  it('the certificate chain verifies for every SAN, over a real TLS handshake, and the caBundle is the CA', async () => {
    const { docs } = await install({ certsDir: join(dir, 'chain-certs') });
    assert.deepEqual(
      docs.map((d) => d.kind).filter((k) => k.startsWith('Role')),
      [],
      'nothing to read through the API',
    );
    const secret = find(docs, 'Secret');
    assert.equal(secret.type, 'kubernetes.io/tls');
    const [certPem, keyPem, caPem] = ['tls.crt', 'tls.key', 'ca.crt'].map((k) => b64(secret.data[k]));
    const leaf = new X509Certificate(certPem);
    const ca = new X509Certificate(caPem);
    assert.ok(ca.ca, 'ca.crt is a CA');
    assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey), 'the leaf is signed by the CA');
    const names = serviceDnsNames('sidecar-injector', 'sidecar-injector');
    assert.ok(names.includes('sidecar-injector.sidecar-injector.svc'), 'the name the apiserver dials');
    for (const servername of names) {
      const probe = await tlsProbe({ certPem, keyPem }, { caPem, servername });
      assert.ok(probe.ok, `${servername}: ${probe.code} ${probe.message}`);
    }
    const wrong = await tlsProbe({ certPem, keyPem }, { caPem, servername: 'other.sidecar-injector.svc' });
    assert.equal(wrong.ok, false, 'a name outside the SANs is refused');
    const mwc = find(docs, 'MutatingWebhookConfiguration');
    assert.equal(b64(mwc.webhooks[0].clientConfig.caBundle), caPem);
  });
});

describe('manifests: options', () => {
  it('--certs-dir makes reruns identical and keeps the CA when the certificate must change', async () => {
    const certsDir = join(dir, 'certs');
    const first = await install({ certsDir });
    const second = await install({ certsDir });
    assert.equal(second.yaml, first.yaml, 'byte-identical rerun');
    assert.match(first.notes.join('\n'), /Created a CA/);
    for (const f of ['ca.crt', 'ca.key', 'tls.crt', 'tls.key']) assert.ok((await readFile(join(certsDir, f), 'utf8')).includes('-----BEGIN'));
    // Another Service name: the leaf no longer covers it, so it is reissued from the same CA.
    const renamed = await install({ certsDir, name: 'injector2' });
    const caOf = (docs: Obj[]) => find(docs, 'MutatingWebhookConfiguration').webhooks[0].clientConfig.caBundle;
    assert.equal(caOf(renamed.docs), caOf(first.docs), 'same caBundle');
    const leaf = new X509Certificate(b64(find(renamed.docs, 'Secret').data['tls.crt']));
    assert.equal(leaf.checkHost('injector2.sidecar-injector.svc', { subject: 'never' }), 'injector2.sidecar-injector.svc');
    assert.match(renamed.notes.join('\n'), /issued a new serving certificate/);
  });

  it('--no-certs and --existing-secret write no Secret; the server reads yours through the API (get only); the caBundle comes from --ca-file or is left to the reconciler', async () => {
    const none = await install({ certMode: 'none' });
    assert.equal(none.docs.filter((d) => d.kind === 'Secret').length, 0);
    assert.equal(find(none.docs, 'MutatingWebhookConfiguration').webhooks[0].clientConfig.caBundle, undefined);
    assert.match(none.notes.join('\n'), /create sidecar-injector-tls .*until it exists the server is not ready and says so/);
    const args = (docs: Obj[]) => find(docs, 'Deployment').spec.template.spec.containers[0].args as string[];
    assert.equal(args(none.docs)[args(none.docs).indexOf('--tls-secret') + 1], 'sidecar-injector-tls');
    assert.ok(!args(none.docs).includes('--tls-provision'));
    const own = await install({ existingSecret: 'my-cert' });
    assert.equal(args(own.docs)[args(own.docs).indexOf('--tls-secret') + 1], 'my-cert');
    assert.deepEqual(find(own.docs, 'Role').rules[0], { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['my-cert'] });
    const caFile = join(dir, 'ca.pem');
    await writeFile(caFile, b64(find((await install({ certsDir: join(dir, 'ca-file-certs') })).docs, 'Secret').data['ca.crt']));
    const withCa = await install({ certMode: 'none', caFile });
    assert.equal(b64(find(withCa.docs, 'MutatingWebhookConfiguration').webhooks[1].clientConfig.caBundle), await readFile(caFile, 'utf8'));
    await assert.rejects(generateInstall({ caFile }), /--ca-file goes with --no-certs/);
  });

  it('self-provisioning: lifetimes reach serve, a cluster domain only when not the default; combinations that cannot work are refused', async () => {
    const { docs } = await install({ tlsCaValidity: '365d', tlsCertValidity: '30d', clusterDomain: 'corp.local' });
    const args = find(docs, 'Deployment').spec.template.spec.containers[0].args as string[];
    const from = args.indexOf('--tls-secret');
    assert.deepEqual(args.slice(from, from + 10), [
      '--tls-secret',
      'sidecar-injector-certs',
      '--tls-provision',
      'sidecar-injector',
      '--tls-ca-validity',
      '365d',
      '--tls-cert-validity',
      '30d',
      '--cluster-domain',
      'corp.local',
    ]);
    await assert.rejects(generateInstall({ caBundleReconcile: false }), /self-provisioned certificates need the caBundle reconciler/);
    await assert.rejects(generateInstall({ tlsCertValidity: '90 days' }), /not a lifetime/);
    await assert.rejects(generateInstall({ certMode: 'none', tlsCaValidity: '1d' }), /only goes with self-provisioned/);
    await assert.rejects(generateInstall({ certMode: 'cert-manager', existingSecret: 'x' }), /--existing-secret names your own certificate/);
    await assert.rejects(generateInstall({ existingSecret: 'Bad_Name' }), /not a valid Secret name/);
    await assert.rejects(generateInstall({ webhookUrl: 'https://127.0.0.1:9443', certMode: 'provision' }), /outside the cluster/);
  });

  it('cert-manager mode: Issuer + Certificate, the inject-ca-from annotation, no reconciler or RBAC', async () => {
    const { docs } = await install({ certMode: 'cert-manager' });
    assert.deepEqual(
      docs.map((d) => d.kind),
      ['Namespace', 'ServiceAccount', 'ConfigMap', 'Issuer', 'Certificate', 'Service', 'Deployment', 'PodDisruptionBudget', 'MutatingWebhookConfiguration'],
    );
    const mwc = find(docs, 'MutatingWebhookConfiguration');
    assert.equal(mwc.metadata.annotations['cert-manager.io/inject-ca-from'], 'sidecar-injector/sidecar-injector');
    const cert = find(docs, 'Certificate');
    assert.equal(cert.metadata.name, 'sidecar-injector');
    assert.equal(cert.spec.secretName, 'sidecar-injector-tls');
    assert.ok(cert.spec.dnsNames.includes('sidecar-injector.sidecar-injector.svc'));
    assert.equal(cert.spec.issuerRef.name, find(docs, 'Issuer').metadata.name);
    const [c] = find(docs, 'Deployment').spec.template.spec.containers;
    assert.ok(!c.args.includes('--webhook-config'), 'cainjector owns the caBundle');
    for (const d of docs) assert.ok(['validated', 'no-schema'].includes(validateObject(d)));
  });

  it('Ignore makes the server fail open too, unless --on-error says otherwise', async () => {
    const open = await install({ failurePolicy: 'Ignore', certMode: 'none' });
    const args = (docs: Obj[]) => find(docs, 'Deployment').spec.template.spec.containers[0].args as string[];
    assert.ok(find(open.docs, 'MutatingWebhookConfiguration').webhooks.every((w: Obj) => w.failurePolicy === 'Ignore'));
    assert.equal(args(open.docs)[args(open.docs).indexOf('--on-error') + 1], 'allow');
    const mixed = await install({ failurePolicy: 'Ignore', onError: 'deny', certMode: 'none' });
    assert.equal(args(mixed.docs)[args(mixed.docs).indexOf('--on-error') + 1], 'deny');
  });

  it('one replica: no PDB (it would block drains), and a note says why', async () => {
    const { docs, notes } = await install({ replicas: 1, certMode: 'none' });
    assert.equal(docs.filter((d) => d.kind === 'PodDisruptionBudget').length, 0);
    assert.match(notes.join('\n'), /no PodDisruptionBudget/);
  });

  it('follows the config: renamed keys and extra ignored namespaces reach every selector and label', async () => {
    const cfg = join(dir, 'renamed.yaml');
    await writeFile(
      cfg,
      'policy: enabled\ninjectionKeys:\n  inject: example.com/inject\n  namespaceLabel: example-injection\n  revisionLabel: example.com/rev\nignoredNamespaces: [batch]\ntemplates:\n  sidecar: |\n    spec: {}\nvalues:\n  x: 1\n',
    );
    const { docs } = await install({ config: cfg, certMode: 'none', excludedNamespaces: ['legacy'], enableNamespacesByDefault: true, matchConditions: false });
    const mwc = find(docs, 'MutatingWebhookConfiguration');
    assert.equal(mwc.webhooks.length, 3);
    const text = JSON.stringify([mwc, find(docs, 'Namespace'), find(docs, 'Deployment').spec.template.metadata]);
    assert.ok(!text.includes('istio'), text);
    const scopes = mwc.webhooks as WebhookScope[];
    assert.equal(evaluateScopes(scopes, { name: 'shop', labels: { 'example-injection': 'enabled' } }, {}).reached, true);
    for (const ns of ['batch', 'legacy']) assert.equal(evaluateScopes(scopes, { name: ns, labels: { 'example-injection': 'enabled' } }, {}).reached, false, ns);
    assert.ok(mwc.webhooks.every((w: Obj) => w.matchConditions === undefined));
    // The inline values were split into the ConfigMap's values key; the server loads the same config.
    const cm = find(docs, 'ConfigMap');
    assert.deepEqual(JSON.parse(cm.data.values), { x: 1 });
    assert.deepEqual(parseConfig(cm.data.config, cm.data.values).injectionKeys.inject, 'example.com/inject');
    for (const d of docs) assert.equal(validateObject(d), 'validated', d.kind);
  });

  it('a config directory is shipped verbatim, comments included', async () => {
    const cfgDir = join(dir, 'cfgdir');
    await rm(cfgDir, { recursive: true, force: true });
    const { mkdir } = await import('node:fs/promises');
    await mkdir(cfgDir);
    const config = '# our config\npolicy: disabled\ntemplates:\n  sidecar: |\n    spec: {}\n';
    await writeFile(join(cfgDir, 'config'), config);
    await writeFile(join(cfgDir, 'values'), '{"a": true}');
    const cm = find((await install({ config: cfgDir, certMode: 'none' })).docs, 'ConfigMap');
    assert.deepEqual(cm.data, { config, values: '{"a": true}' });
  });

  it('refuses bad input with a message naming the flag, before writing anything', async () => {
    await assert.rejects(generateInstall({ name: 'Not_A_Name' }), /--name/);
    await assert.rejects(generateInstall({ namespace: 'x'.repeat(64) }), /--namespace/);
    await assert.rejects(generateInstall({ port: 443 }), /non-root/);
    await assert.rejects(generateInstall({ timeoutSeconds: 31 }), /1 to 30/);
    await assert.rejects(generateInstall({ config: join(dir, 'missing') }), (err: Error & { code?: string }) => err.code === 'SI_CONFIG_READ');
    const bad = join(dir, 'bad-config.yaml');
    await writeFile(bad, 'policy: enabled\ntemplates:\n  sidecar: "{{ .Values.x"\n');
    await assert.rejects(generateInstall({ config: bad }), (err: Error & { code?: string }) => err.code === 'SI_CONFIG_INVALID');
    await assert.rejects(generateInstall({ serviceMonitor: true, monitoringLabels: { 'bad key': 'x' } }), /--monitoring-label bad key=x: the key must be/);
    await assert.rejects(generateInstall({ monitoringLabels: { release: 'has space' } }), /--monitoring-label release=has space: the value must be/);
    await assert.rejects(
      generateInstall({ webhookUrl: 'https://127.0.0.1:9443', prometheusRule: true }),
      /--webhook-url and --prometheus-rule\/--service-monitor do not go together/,
    );
  });

  it('--prometheus-rule and --service-monitor: the alerts for this install and a ServiceMonitor, before the webhook configuration; neither by default', async () => {
    const plain = await generateInstall({ certMode: 'none' });
    assert.ok(!plain.objects.some((o) => o.apiVersion.startsWith('monitoring.coreos.com/')));
    const { objects } = await generateInstall({
      certMode: 'none',
      name: 'hook',
      namespace: 'platform',
      prometheusRule: true,
      serviceMonitor: true,
      monitoringLabels: { 'example.com/team': 'platform', release: '' },
    });
    const kinds = objects.map((o) => o.kind);
    assert.ok(kinds.indexOf('PrometheusRule') < kinds.indexOf('MutatingWebhookConfiguration'));
    assert.ok(kinds.indexOf('ServiceMonitor') < kinds.indexOf('MutatingWebhookConfiguration'));
    const rule = objects.find((o) => o.kind === 'PrometheusRule') as Obj;
    assert.deepEqual(
      [rule.metadata.name, rule.metadata.namespace, rule.metadata.labels['example.com/team'], rule.metadata.labels.release],
      ['hook', 'platform', 'platform', ''],
    );
    assert.match(JSON.stringify(rule.spec), /poddisruptionbudget=\\"hook\\"/);
  });
});

describe('manifests: the server it deploys', () => {
  it("the Deployment's serve command line starts the real server on the mounted Secret and ConfigMap (--certs-dir)", async () => {
    const { docs } = await install({ name: 'inj', namespace: 'mesh', certsDir: join(dir, 'serve-certs') });
    const secret = find(docs, 'Secret');
    const cm = find(docs, 'ConfigMap');
    const [c] = find(docs, 'Deployment').spec.template.spec.containers;
    // Lay the volumes out as the kubelet mounts them.
    const root = join(dir, 'mounts');
    const { mkdir } = await import('node:fs/promises');
    const mountDir = (name: string) => join(root, c.volumeMounts.find((m: Obj) => m.name === name).mountPath);
    await mkdir(mountDir('tls'), { recursive: true });
    await mkdir(mountDir('config'), { recursive: true });
    for (const [k, v] of Object.entries(secret.data as Record<string, string>)) await writeFile(join(mountDir('tls'), k), b64(v));
    for (const [k, v] of Object.entries(cm.data as Record<string, string>)) await writeFile(join(mountDir('config'), k), v);
    // Same flags, except: no in-cluster reconciler here, ephemeral loopback ports, paths under the temp root.
    const args: string[] = [...c.args];
    args.splice(args.indexOf('--webhook-config'), 2);
    args[args.indexOf('--port') + 1] = '0';
    args[args.indexOf('--monitoring-port') + 1] = '0';
    args[args.indexOf('--tls-dir') + 1] = mountDir('tls');
    args[args.indexOf('--config') + 1] = mountDir('config');
    args[args.indexOf('--log-level') + 1] = 'silent';
    args[args.indexOf('--drain-delay') + 1] = '0';
    const { Command } = await import('commander');
    const { register } = await import('../cli/serve.js');
    const { send } = await import('../../test/support/https-client.js');
    const controller = new AbortController();
    const io = Object.assign(memoryIO(), { signal: controller.signal });
    const program = new Command('sidecar-injector').exitOverride();
    register(program, io);
    const done = program.parseAsync([...args, '--address', '127.0.0.1'], { from: 'user' });
    try {
      let port: number | undefined;
      for (let i = 0; i < 500 && port === undefined; i++) {
        const m = /listening on https:\/\/[^:]+:(\d+)\/inject/.exec(io.out);
        if (m) port = Number(m[1]);
        else await Promise.race([done, new Promise((r) => setTimeout(r, 20))]);
      }
      assert.ok(port, `serve did not start: ${io.err}`);
      // Trusting only the caBundle, under the name the apiserver dials, as the kubelet's probe path.
      const caPem = b64(find(docs, 'MutatingWebhookConfiguration').webhooks[0].clientConfig.caBundle);
      // Polled as the readiness probe does: ready once the request path is warm (serve --warmup).
      let ready = await send({ port, path: '/readyz', ca: caPem, servername: 'inj.mesh.svc' });
      for (let i = 0; i < 600 && ready.status !== 200 && JSON.parse(ready.body).warm === false; i++) {
        await new Promise((r) => setTimeout(r, 50));
        ready = await send({ port, path: '/readyz', ca: caPem, servername: 'inj.mesh.svc' });
      }
      assert.equal(ready.status, 200, ready.body);
      assert.equal(JSON.parse(ready.body).ready, true);
    } finally {
      controller.abort();
      await done;
    }
  });
});

describe('manifests: consumers', () => {
  it('kubectl kustomize consumes the output as a resource', async (t) => {
    const { spawnSync } = await import('node:child_process');
    const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) {
      t.skip('kubectl is not installed');
      return;
    }
    const kdir = join(dir, 'kustomize');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(kdir, { recursive: true });
    const { docs, yaml } = await install({ certsDir: join(dir, 'kcerts') });
    await writeFile(join(kdir, 'install.yaml'), yaml);
    await writeFile(
      join(kdir, 'kustomization.yaml'),
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- install.yaml\ncommonAnnotations:\n  team: platform\n',
    );
    const run = spawnSync('kubectl', ['kustomize', kdir], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const out = parseAllDocuments(run.stdout).map((d) => d.toJS() as Obj);
    assert.equal(out.length, docs.length);
    const key = (d: Obj) => `${d.kind}/${d.metadata.namespace ?? ''}/${d.metadata.name}`;
    assert.deepEqual(out.map(key).sort(), docs.map(key).sort());
    // Remove what kustomize added (the annotation on objects and pod templates), then compare.
    const strip = (meta: Obj | undefined) => {
      if (meta?.annotations === undefined) return;
      delete meta.annotations.team;
      if (Object.keys(meta.annotations).length === 0) delete meta.annotations;
    };
    for (const d of out) {
      assert.equal(d.metadata.annotations.team, 'platform', 'kustomize transformed every object');
      strip(d.metadata);
      strip(d.spec?.template?.metadata);
      assert.deepEqual(
        d,
        docs.find((o) => key(o) === key(d)),
        `${key(d)} unchanged otherwise`,
      );
    }
  });

  it('the CLI writes the YAML to stdout or -o FILE and the notes to stderr', async () => {
    const { runCli } = await import('../cli/command-tree.js');
    const io = memoryIO();
    assert.equal(
      await runCli(['manifests', '--namespace', 'mesh', '--name', 'inj', '--replicas', '3', '--failure-policy', 'Ignore', '--no-certs'], io),
      0,
      io.err,
    );
    const docs = parseAllDocuments(io.out).map((d) => d.toJS() as Obj);
    assert.equal(find(docs, 'Deployment').spec.replicas, 3);
    assert.equal(find(docs, 'MutatingWebhookConfiguration').webhooks[0].clientConfig.service.namespace, 'mesh');
    assert.match(io.err, /create inj-tls/);
    const file = join(dir, 'out.yaml');
    const io2 = memoryIO();
    assert.equal(await runCli(['manifests', '--output-file', file, '--certs-dir', join(dir, 'cli-certs')], io2), 0, io2.err);
    assert.equal(io2.out, '');
    assert.equal(parseAllDocuments(await readFile(file, 'utf8')).length, 10);
    const bad = memoryIO();
    assert.equal(await runCli(['manifests', '--failure-policy', 'fail'], bad), 2);
    assert.match(bad.err, /Fail or Ignore/);
    assert.equal(bad.out, '');
  });
});

// Typed use of KubeObject keeps the export honest.
export type { KubeObject };
