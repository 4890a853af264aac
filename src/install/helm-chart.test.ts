import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { parseKubeYaml } from '../yaml/index.js';
import { validateObject } from '../../test/support/k8s-validate.js';
import { Helm, locateHelm } from '../../test/support/helm.js';
import { BUILTIN_CONFIG_FILES } from './config-data.js';
import { generateInstall, type InstallRequest } from './build-manifests.js';
import { packageVersion } from './options.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered objects are loose JSON */
type Obj = Record<string, any>;

const CHART = fileURLToPath(new URL('../../deploy/helm/sidecar-injector', import.meta.url));
// The real helm (e2e/build/build.sh builds it); without it the rendering tests skip, saying why.
const located = locateHelm();
const skip = 'skip' in located ? located.skip : false;
let helm: Helm;
let dir: string;
let certs: { caCert: string; cert: string; key: string };

before(async () => {
  if ('path' in located) helm = await Helm.open(located.path);
  dir = await mkdtemp(join(tmpdir(), 'si-helm-'));
  // One CA and leaf shared by both renderings, made by manifests' --certs-dir (the certs command's layout).
  await generateInstall({ certsDir: join(dir, 'certs'), name: 'inj', namespace: 'mesh' });
  const read = (f: string) => readFile(join(dir, 'certs', f), 'utf8');
  certs = { caCert: await read('ca.crt'), cert: await read('tls.crt'), key: await read('tls.key') };
});
after(async () => {
  await helm?.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** The certs command's layout in DIR, made by manifests' --certs-dir if absent, as the chart's tls values. */
async function certsOf(certsDir: string): Promise<{ caCert: string; cert: string; key: string }> {
  const { installCertificates } = await import('./tls.js');
  const { resolveInstallOptions } = await import('./options.js');
  await installCertificates(
    resolveInstallOptions({
      name: 'inj',
      namespace: 'mesh',
      revision: 'canary',
      certMode: 'generate',
      ...(certsDir.includes('url') ? { webhookUrl: 'https://127.0.0.1:9555' } : {}),
    }),
    { certsDir },
  );
  const read = (f: string) => readFile(join(certsDir, f), 'utf8');
  return { caCert: await read('ca.crt'), cert: await read('tls.crt'), key: await read('tls.key') };
}

/** Helm's labels differ by design (managed-by Helm, helm.sh/chart); everything else must match. */
function normalise(o: Obj): Obj {
  const copy = structuredClone(o);
  const fix = (labels: Obj | undefined) => {
    if (!labels) return;
    delete labels['helm.sh/chart'];
    if (labels['app.kubernetes.io/managed-by'] !== undefined) labels['app.kubernetes.io/managed-by'] = '<tool>';
  };
  fix(copy.metadata?.labels);
  fix(copy.spec?.template?.metadata?.labels);
  return copy;
}
const key = (o: Obj) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;

async function compare(request: InstallRequest, release: { name: string; namespace: string }, values: Obj): Promise<Obj[]> {
  const generated = await generateInstall(request);
  const ours = parseAllDocuments(generated.yaml).map((d) => d.toJS() as Obj);
  const rendered = (await helm.template(CHART, release, values)) as Obj[];
  assert.deepEqual(rendered.map(key).sort(), ours.map(key).sort(), 'the same set of objects');
  for (const h of rendered) {
    const o = ours.find((x) => key(x) === key(h))!;
    assert.deepEqual(normalise(h), normalise(o), `${key(h)} agrees`);
    assert.ok(['validated', 'no-schema'].includes(validateObject(h)), key(h));
  }
  return rendered;
}

describe('Helm chart files', () => {
  it('ships the built-in config unchanged and the package version', async () => {
    for (const name of ['config', 'values'] as const) {
      const copy = await readFile(join(CHART, 'files', `${name}.yaml`), 'utf8');
      assert.equal(
        copy,
        await readFile(BUILTIN_CONFIG_FILES[name], 'utf8'),
        `files/${name}.yaml is stale: cp defaults/${name}.yaml deploy/helm/sidecar-injector/files/`,
      );
    }
    const chart = parseKubeYaml(await readFile(join(CHART, 'Chart.yaml'), 'utf8')).value as Obj;
    assert.equal(chart.version, packageVersion());
    assert.equal(chart.appVersion, packageVersion());
  });
});

describe('Helm chart rendered by the real helm', { skip }, () => {
  it('passes helm lint --strict, in every mode', async () => {
    const modes: Obj[] = [
      {},
      { createNamespace: true, tls: certs },
      { certManager: { enabled: true } },
      { replicas: 1, caBundleReconcile: false, enableNamespacesByDefault: true, tls: { existingSecret: 'mine' } },
      { tls: { caValidity: '30d', certValidity: '2h' }, clusterDomain: 'corp.local' },
      { webhookUrl: 'https://127.0.0.1:9443', tls: { caCert: certs.caCert } },
      { name: 'inj', revision: 'canary', revisionTags: ['prod', 'default'], tls: certs },
      { name: 'inj', revision: 'canary' },
      { monitoring: { prometheusRule: { enabled: true }, serviceMonitor: { enabled: true }, labels: { release: 'kube-prometheus-stack' } } },
    ];
    for (const values of modes) {
      const run = await helm.lint(CHART, values);
      assert.equal(run.code, 0, `${JSON.stringify(values).slice(0, 200)}: ${run.stdout}${run.stderr}`);
      assert.match(run.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  });

  it('agrees with manifests for the default install: the server provisions its certificate', async () => {
    const objects = await compare({ name: 'inj', namespace: 'mesh' }, { name: 'inj', namespace: 'mesh' }, { createNamespace: true });
    const secret = objects.find((o) => o.kind === 'Secret')!;
    assert.deepEqual([secret.metadata.name, secret.type, secret.data], ['inj-certs', 'Opaque', undefined]);
    assert.ok(objects.some((o) => o.kind === 'Role' && o.rules[0].resourceNames[0] === 'inj-certs'));
    const mwc = objects.find((o) => o.kind === 'MutatingWebhookConfiguration')!;
    assert.equal(mwc.webhooks[0].clientConfig.caBundle, undefined);
    // Lifetimes and a cluster domain reach serve in both.
    const tuned = await compare(
      { name: 'inj', namespace: 'mesh', tlsCaValidity: '30d', tlsCertValidity: '1h30m', clusterDomain: 'corp.local' },
      { name: 'inj', namespace: 'mesh' },
      { createNamespace: true, tls: { caValidity: '30d', certValidity: '1h30m' }, clusterDomain: 'corp.local' },
    );
    const args = tuned.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args as string[];
    assert.ok(
      args.join(' ').includes('--tls-secret inj-certs --tls-provision inj --tls-ca-validity 30d --tls-cert-validity 1h30m --cluster-domain corp.local'),
    );
  });

  it('agrees with manifests --existing-secret: your Secret read through the API', async () => {
    const objects = await compare(
      { existingSecret: 'own', name: 'inj', namespace: 'mesh' },
      { name: 'inj', namespace: 'mesh' },
      { createNamespace: true, tls: { existingSecret: 'own' } },
    );
    assert.ok(!objects.some((o) => o.kind === 'Secret'));
    assert.deepEqual(objects.find((o) => o.kind === 'Role')!.rules[0].verbs, ['get']);
  });

  it('agrees with manifests --certs-dir (certificates from the certs step)', async () => {
    const objects = await compare(
      { certsDir: join(dir, 'certs'), name: 'inj', namespace: 'mesh' },
      { name: 'inj', namespace: 'mesh' },
      { createNamespace: true, tls: certs },
    );
    const mwc = objects.find((o) => o.kind === 'MutatingWebhookConfiguration')!;
    assert.equal(Buffer.from(mwc.webhooks[0].clientConfig.caBundle, 'base64').toString(), certs.caCert);
    assert.ok(objects.every((o) => o.metadata.labels['app.kubernetes.io/managed-by'] === 'Helm'));
  });

  it('agrees with manifests --reconcile and --reconcile-restart (self-healing RBAC and flags)', async () => {
    const release = { name: 'inj', namespace: 'mesh' };
    const base = { certsDir: join(dir, 'certs'), name: 'inj', namespace: 'mesh' };
    const tls = { createNamespace: true, tls: certs };
    const watching = await compare({ ...base, reconcile: true }, release, { ...tls, reconcile: { enabled: true } });
    const clusterRole = watching.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'inj-reconcile')!;
    assert.ok(!clusterRole.rules.some((r: Obj) => r.verbs.includes('patch')), 'without restart: no patch on workloads');
    assert.ok(watching.some((o) => o.kind === 'Role' && o.metadata.namespace === 'mesh'));
    const restarting = await compare({ ...base, reconcileRestart: true }, release, { ...tls, reconcile: { restart: true } });
    const args = restarting.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0].args as string[];
    assert.deepEqual(args.slice(args.indexOf('--reconcile')), [
      '--reconcile',
      '--reconcile-restart',
      '--reconcile-lease',
      'inj-reconcile',
      '--reconcile-webhook-config',
      'inj',
    ]);
  });

  it('agrees with manifests when every flag is changed', async () => {
    await compare(
      {
        name: 'hook',
        namespace: 'platform',
        image: 'registry.example.com/si:dev',
        imagePullPolicy: 'Always',
        replicas: 1,
        failurePolicy: 'Ignore',
        timeoutSeconds: 10,
        reinvocationPolicy: 'Never',
        enableNamespacesByDefault: true,
        matchConditions: false,
        excludedNamespaces: ['legacy', 'batch'],
        certMode: 'none',
        caBundleReconcile: false,
        priorityClassName: 'system-cluster-critical',
        port: 8443,
        monitoringPort: 15014,
        logLevel: 'debug',
        drainDelaySeconds: 10,
        includeNamespace: false,
      },
      { name: 'my-release', namespace: 'platform' },
      {
        name: 'hook',
        image: { repository: 'registry.example.com/si', tag: 'dev', pullPolicy: 'Always' },
        replicas: 1,
        failurePolicy: 'Ignore',
        timeoutSeconds: 10,
        reinvocationPolicy: 'Never',
        enableNamespacesByDefault: true,
        matchConditions: false,
        excludedNamespaces: ['legacy', 'batch'],
        caBundleReconcile: false,
        priorityClassName: 'system-cluster-critical',
        port: 8443,
        monitoringPort: 15014,
        logLevel: 'debug',
        drainDelaySeconds: 10,
        tls: { existingSecret: 'hook-tls' },
      },
    );
  });

  it('agrees with manifests --prometheus-rule --service-monitor --monitoring-label (the alerts for this name, namespace and timeout)', async () => {
    const objects = await compare(
      {
        certsDir: join(dir, 'certs'),
        name: 'inj',
        namespace: 'mesh',
        timeoutSeconds: 7,
        prometheusRule: true,
        serviceMonitor: true,
        monitoringLabels: { release: 'kps', 'example.com/team': 'platform' },
      },
      { name: 'inj', namespace: 'mesh' },
      {
        createNamespace: true,
        tls: certs,
        timeoutSeconds: 7,
        monitoring: { prometheusRule: { enabled: true }, serviceMonitor: { enabled: true }, labels: { release: 'kps', 'example.com/team': 'platform' } },
      },
    );
    const rule = objects.find((o) => o.kind === 'PrometheusRule')!;
    assert.equal(rule.metadata.labels.release, 'kps');
    const rules = rule.spec.groups[0].rules as Obj[];
    assert.match(rules.find((r) => r.alert === 'SidecarInjectorTooFewReadyReplicas')!.expr, /namespace="mesh", poddisruptionbudget="inj"/);
    assert.match(rules.find((r) => r.alert === 'SidecarInjectorAdmissionSlow')!.expr, /> 0\.8 \* 7$/);
    assert.match(
      rules.find((r) => r.alert === 'SidecarInjectorWebhookUnreachable')!.annotations.description,
      /\{\{ \$labels\.name \}\}/,
      'Prometheus templates pass through Helm',
    );
    const monitor = objects.find((o) => o.kind === 'ServiceMonitor')!;
    const service = objects.find((o) => o.kind === 'Service')!;
    assert.deepEqual(monitor.spec.selector.matchLabels, service.spec.selector);
    assert.ok(
      service.spec.ports.some((p: Obj) => p.name === monitor.spec.endpoints[0].port),
      'the ServiceMonitor scrapes a port the Service has',
    );
    const plain = await compare(
      { certsDir: join(dir, 'certs'), name: 'inj', namespace: 'mesh' },
      { name: 'inj', namespace: 'mesh' },
      { createNamespace: true, tls: certs },
    );
    assert.ok(!plain.some((o) => o.kind === 'PrometheusRule' || o.kind === 'ServiceMonitor'), 'off by default');
    await assert.rejects(
      helm.template(CHART, { name: 'x', namespace: 'y' }, { webhookUrl: 'https://127.0.0.1:9443', monitoring: { prometheusRule: { enabled: true } } }),
      /webhookUrl and monitoring.prometheusRule\/serviceMonitor do not go together/,
    );
  });

  it('agrees with manifests --no-certs --ca-file, and with --cert-manager', async () => {
    const caFile = join(dir, 'ca.crt');
    await writeFile(caFile, certs.caCert);
    await compare(
      { certMode: 'none', caFile },
      { name: 'sidecar-injector', namespace: 'sidecar-injector' },
      { createNamespace: true, tls: { caCert: certs.caCert } },
    );
    const objects = await compare(
      { certMode: 'cert-manager', clusterDomain: 'corp.local' },
      { name: 'sidecar-injector', namespace: 'sidecar-injector' },
      { createNamespace: true, certManager: { enabled: true }, clusterDomain: 'corp.local' },
    );
    assert.ok(objects.some((o) => o.kind === 'Certificate'));
  });

  it("agrees with manifests --config: the selectors follow the config's keys and ignored namespaces", async () => {
    const cfgDir = join(dir, 'config');
    await mkdir(cfgDir, { recursive: true });
    const config =
      'policy: enabled\ninjectionKeys:\n  inject: example.com/inject\n  namespaceLabel: example-injection\n  revisionLabel: example.com/rev\nignoredNamespaces: [batch]\ntemplates:\n  sidecar: |\n    spec:\n      containers:\n      - name: helper\n        image: "{{ .Values.image }}"\n';
    const values = '{"image": "busybox"}\n';
    await writeFile(join(cfgDir, 'config'), config);
    await writeFile(join(cfgDir, 'values'), values);
    const objects = await compare(
      { config: cfgDir },
      { name: 'sidecar-injector', namespace: 'sidecar-injector' },
      { createNamespace: true, injector: { config, values } },
    );
    const mwc = objects.find((o) => o.kind === 'MutatingWebhookConfiguration')!;
    assert.equal(mwc.webhooks[0].namespaceSelector.matchExpressions[0].key, 'example-injection');
    assert.ok(mwc.webhooks[0].namespaceSelector.matchExpressions[1].values.includes('batch'));
  });

  it('agrees with manifests --webhook-url: only the webhook configuration, calling <url>/inject', async () => {
    // The certificate for the URL's host comes from manifests (as docs/install.md says); the chart gets its CA.
    const certsDir = join(dir, 'url-certs');
    const ours = await generateInstall({ webhookUrl: 'https://127.0.0.1:9443/', certsDir });
    const caCert = await readFile(join(certsDir, 'ca.crt'), 'utf8');
    assert.match(ours.yaml, /caBundle/);
    const objects = await compare(
      { webhookUrl: 'https://127.0.0.1:9443/', certsDir },
      { name: 'sidecar-injector', namespace: 'sidecar-injector' },
      // createNamespace and a replica count are ignored: nothing but the configuration is rendered.
      { webhookUrl: 'https://127.0.0.1:9443/', tls: { caCert }, createNamespace: true, replicas: 3 },
    );
    assert.deepEqual(
      objects.map((o) => o.kind),
      ['MutatingWebhookConfiguration'],
    );
    for (const w of objects[0]!.webhooks) {
      assert.deepEqual(w.clientConfig, { url: 'https://127.0.0.1:9443/inject', caBundle: Buffer.from(caCert).toString('base64') });
    }
  });

  it('agrees with manifests --webhook-url with a DNS host, a base path, no caBundle and changed flags', async () => {
    const objects = await compare(
      {
        webhookUrl: 'https://dev-box.example.test:8443/hooks',
        certMode: 'none',
        name: 'dev',
        namespace: 'dev-tools',
        failurePolicy: 'Ignore',
        enableNamespacesByDefault: true,
        timeoutSeconds: 10,
      },
      { name: 'dev', namespace: 'dev-tools' },
      { webhookUrl: 'https://dev-box.example.test:8443/hooks//', failurePolicy: 'Ignore', enableNamespacesByDefault: true, timeoutSeconds: 10 },
    );
    assert.equal(objects[0]!.webhooks.length, 3);
    assert.deepEqual(objects[0]!.webhooks[2].clientConfig, { url: 'https://dev-box.example.test:8443/hooks/inject' });
  });

  it('refuses in URL mode what manifests --webhook-url refuses, and keys it would store in the release', async () => {
    const bad: [Obj, RegExp][] = [
      [{ webhookUrl: 'http://127.0.0.1:9443' }, /webhookUrl "http:\/\/127.0.0.1:9443" must be an https URL/],
      [{ webhookUrl: 'not a url' }, /must be an https URL/],
      [{ webhookUrl: 'https://u:p@127.0.0.1' }, /must not carry a user or password/],
      [{ webhookUrl: 'https://127.0.0.1/?a=b' }, /must not have a query or fragment/],
      [{ webhookUrl: 'https://127.0.0.1/#x' }, /must not have a query or fragment/],
      [{ webhookUrl: 'https://127.0.0.1', certManager: { enabled: true } }, /cert-manager cannot issue a certificate for a server outside the cluster/],
      [{ webhookUrl: 'https://127.0.0.1', tls: certs }, /set only tls.caCert/],
    ];
    for (const [values, message] of bad) {
      await assert.rejects(helm.template(CHART, { name: 'x', namespace: 'y' }, values), message, JSON.stringify(values).slice(0, 100));
    }
  });

  it('agrees with manifests --revision --tag: a second injector beside the first, and tags pointing at it', async () => {
    const release = { name: 'inj-canary', namespace: 'mesh' };
    const objects = await compare(
      { certsDir: join(dir, 'certs-canary'), name: 'inj', namespace: 'mesh', revision: 'canary', tags: ['prod', 'default'] },
      release,
      { name: 'inj', revision: 'canary', revisionTags: ['prod', 'default'], tls: await certsOf(join(dir, 'certs-canary')) },
    );
    const names = objects
      .filter((o) => o.kind === 'MutatingWebhookConfiguration')
      .map((o) => o.metadata.name)
      .sort();
    assert.deepEqual(names, ['inj-canary', 'inj-revision-tag-default', 'inj-revision-tag-prod']);
    assert.ok(!objects.some((o) => o.kind === 'Namespace'), 'the revisions share the namespace: not written by a revision');
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    assert.equal(deployment.metadata.name, 'inj-canary');
    assert.deepEqual(deployment.spec.template.spec.containers[0].args.slice(9, 11), ['--revision', 'canary']);
    // URL mode: the webhook configurations only.
    const url = await compare(
      { webhookUrl: 'https://127.0.0.1:9555', certsDir: join(dir, 'url-canary'), revision: 'canary', tags: ['prod'] },
      { name: 'sidecar-injector', namespace: 'sidecar-injector' },
      { webhookUrl: 'https://127.0.0.1:9555', revision: 'canary', revisionTags: ['prod'], tls: { caCert: (await certsOf(join(dir, 'url-canary'))).caCert } },
    );
    assert.deepEqual(url.map((o) => o.metadata.name).sort(), ['sidecar-injector-canary', 'sidecar-injector-revision-tag-prod']);
  });

  it("agrees with manifests --revision, self-provisioned: the revision's own certificate Secret and Role", async () => {
    const objects = await compare(
      { name: 'inj', namespace: 'mesh', revision: 'canary' },
      { name: 'inj-canary', namespace: 'mesh' },
      { name: 'inj', revision: 'canary' },
    );
    const secret = objects.find((o) => o.kind === 'Secret')!;
    assert.deepEqual([secret.metadata.name, secret.type], ['inj-canary-certs', 'Opaque']);
    const role = objects.find((o) => o.kind === 'Role')!;
    assert.deepEqual([role.metadata.name, role.rules[0].resourceNames], ['inj-canary-tls', ['inj-canary-certs']]);
  });

  it('refuses the revisions manifests refuses', async () => {
    const bad: [Obj, RegExp][] = [
      [{ revision: 'Canary' }, /revision "Canary" must be a lowercase DNS label/],
      [{ revision: 'default' }, /revision "default" is the install without a revision/],
      [{ revision: 'canary', revisionTags: ['canary'], tls: { caCert: certs.caCert } }, /canary is the revision's own name/],
      [{ revision: 'canary', enableNamespacesByDefault: true }, /enableNamespacesByDefault belongs to the default revision/],
      [{ revisionTags: ['prod'] }, /revisionTags need tls.caCert/],
      [{ name: 'a'.repeat(45), revision: 'canary-1234' }, /longer than 52 characters/],
    ];
    for (const [values, message] of bad) {
      await assert.rejects(helm.template(CHART, { name: 'x', namespace: 'y' }, values), message, JSON.stringify(values).slice(0, 100));
    }
  });

  it('refuses bad values with a message', async () => {
    await assert.rejects(helm.template(CHART, { name: 'x', namespace: 'y' }, { failurePolicy: 'fail' }), /failurePolicy must be Fail or Ignore/);
    await assert.rejects(helm.template(CHART, { name: 'x', namespace: 'y' }, { port: 443 }), /non-root/);
    await assert.rejects(helm.template(CHART, { name: 'x', namespace: 'y' }, { tls: { cert: certs.cert } }), /tls.key is required/);
  });

  it('refuses certificate settings that cannot work together, as manifests does', async () => {
    const bad: [Obj, RegExp][] = [
      [{ caBundleReconcile: false }, /self-provisioned certificates need the caBundle reconciler/],
      [{ tls: { existingSecret: 'x', ...certs } }, /tls.existingSecret names your own certificate/],
      [{ tls: { existingSecret: 'x' }, certManager: { enabled: true } }, /tls.existingSecret names your own certificate/],
      [{ tls: { existingSecret: 'x', caValidity: '1d' } }, /only go with self-provisioned certificates/],
      [{ tls: { certValidity: '90 days' } }, /tls.certValidity "90 days" is not a lifetime/],
      [{ tls: { caValidity: '1w' } }, /tls.caValidity "1w" is not a lifetime/],
    ];
    for (const [values, message] of bad) {
      await assert.rejects(helm.template(CHART, { name: 'x', namespace: 'y' }, values), message, JSON.stringify(values).slice(0, 100));
    }
  });

  it('NOTES tell how to label a namespace with the configured key', async () => {
    const notes = await helm.notes(CHART, { name: 'x', namespace: 'y' });
    assert.match(notes, /kubectl label namespace NAMESPACE istio-injection=enabled/);
    assert.match(notes, /rollout status deployment\/x/);
    assert.match(notes, /makes its own CA and certificate \(Secret x-certs\)/);
    assert.match(notes, /describe pods -l app.kubernetes.io\/instance=x/);
  });

  it('NOTES in URL mode say where the server must run and how to remove the configuration', async () => {
    const notes = await helm.notes(CHART, { name: 'dev', namespace: 'y' }, { webhookUrl: 'https://192.0.2.10:9443/' });
    assert.match(notes, /sends pod creations to https:\/\/192\.0\.2\.10:9443\/inject/);
    assert.match(notes, /sidecar-injector serve --tls-dir DIR/);
    assert.match(notes, /pods that opt in cannot be created/);
    assert.match(notes, /helm uninstall dev --namespace y/);
    assert.doesNotMatch(notes, /rollout status/);
  });
});
