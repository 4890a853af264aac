import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { parseKubeYaml } from '../config/yaml.js';
import { validateObject } from '../testing/k8s-validate.js';
import { renderChart, coalesceValues } from '../testing/helm-render.js';
import { BUILTIN_CONFIG_FILES } from './config-data.js';
import { generateInstall, type InstallRequest } from './generate.js';
import { packageVersion } from './options.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered objects are loose JSON */
type Obj = Record<string, any>;

const CHART = fileURLToPath(new URL('../../deploy/helm/sidecar-injector', import.meta.url));
let dir: string;
let certs: { caCert: string; cert: string; key: string };

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'si-helm-'));
  // One CA and leaf shared by both renderings, made by manifests' --certs-dir (the certs command's layout).
  await generateInstall({ certsDir: join(dir, 'certs'), name: 'inj', namespace: 'mesh' });
  const read = (f: string) => readFile(join(dir, 'certs', f), 'utf8');
  certs = { caCert: await read('ca.crt'), cert: await read('tls.crt'), key: await read('tls.key') };
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

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
  const helm = (await renderChart(CHART, release, values)).objects as Obj[];
  assert.deepEqual(helm.map(key).sort(), ours.map(key).sort(), 'the same set of objects');
  for (const h of helm) {
    const o = ours.find((x) => key(x) === key(h))!;
    assert.deepEqual(normalise(h), normalise(o), `${key(h)} agrees`);
    assert.ok(['validated', 'no-schema'].includes(validateObject(h)), key(h));
  }
  return helm;
}

describe('Helm chart', () => {
  it('ships the built-in config unchanged and the package version', async () => {
    for (const name of ['config', 'values'] as const) {
      const copy = await readFile(join(CHART, 'files', `${name}.yaml`), 'utf8');
      assert.equal(copy, await readFile(BUILTIN_CONFIG_FILES[name], 'utf8'), `files/${name}.yaml is stale: cp defaults/${name}.yaml deploy/helm/sidecar-injector/files/`);
    }
    const chart = parseKubeYaml(await readFile(join(CHART, 'Chart.yaml'), 'utf8')).value as Obj;
    assert.equal(chart.version, packageVersion());
    assert.equal(chart.appVersion, packageVersion());
  });

  it('agrees with manifests for the default install (certificates from the certs step)', async () => {
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
    assert.deepEqual(args.slice(args.indexOf('--reconcile')), ['--reconcile', '--reconcile-restart', '--reconcile-lease', 'inj-reconcile', '--reconcile-webhook-config', 'inj']);
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
      },
    );
  });

  it('agrees with manifests --no-certs --ca-file, and with --cert-manager', async () => {
    const caFile = join(dir, 'ca.crt');
    await writeFile(caFile, certs.caCert);
    await compare({ certMode: 'none', caFile }, { name: 'sidecar-injector', namespace: 'sidecar-injector' }, { createNamespace: true, tls: { caCert: certs.caCert } });
    const objects = await compare({ certMode: 'cert-manager', clusterDomain: 'corp.local' }, { name: 'sidecar-injector', namespace: 'sidecar-injector' }, { createNamespace: true, certManager: { enabled: true }, clusterDomain: 'corp.local' });
    assert.ok(objects.some((o) => o.kind === 'Certificate'));
  });

  it('agrees with manifests --config: the selectors follow the config\'s keys and ignored namespaces', async () => {
    const cfgDir = join(dir, 'config');
    await mkdir(cfgDir, { recursive: true });
    const config = 'policy: enabled\ninjectionKeys:\n  inject: example.com/inject\n  namespaceLabel: example-injection\n  revisionLabel: example.com/rev\nignoredNamespaces: [batch]\ntemplates:\n  sidecar: |\n    spec:\n      containers:\n      - name: helper\n        image: "{{ .Values.image }}"\n';
    const values = '{"image": "busybox"}\n';
    await writeFile(join(cfgDir, 'config'), config);
    await writeFile(join(cfgDir, 'values'), values);
    const objects = await compare({ config: cfgDir, certMode: 'none' }, { name: 'sidecar-injector', namespace: 'sidecar-injector' }, { createNamespace: true, injector: { config, values } });
    const mwc = objects.find((o) => o.kind === 'MutatingWebhookConfiguration')!;
    assert.equal(mwc.webhooks[0].namespaceSelector.matchExpressions[0].key, 'example-injection');
    assert.ok(mwc.webhooks[0].namespaceSelector.matchExpressions[1].values.includes('batch'));
  });

  it('refuses bad values with a message, as helm would', async () => {
    await assert.rejects(renderChart(CHART, { name: 'x', namespace: 'y' }, { failurePolicy: 'fail' }), /failurePolicy must be Fail or Ignore/);
    await assert.rejects(renderChart(CHART, { name: 'x', namespace: 'y' }, { port: 443 }), /non-root/);
    await assert.rejects(renderChart(CHART, { name: 'x', namespace: 'y' }, { tls: { cert: certs.cert } }), /tls.key is required/);
  });

  it('NOTES tell how to label a namespace with the configured key', async () => {
    const { notes } = await renderChart(CHART, { name: 'x', namespace: 'y' });
    assert.match(notes ?? '', /kubectl label namespace NAMESPACE istio-injection=enabled/);
    assert.match(notes ?? '', /rollout status deployment\/x/);
  });

  it('values coalesce as in Helm: maps merge, null deletes', () => {
    assert.deepEqual(coalesceValues({ a: { b: 1, c: 2 }, d: 1 }, { a: { c: 3 }, d: null }), { a: { b: 1, c: 3 } });
  });

  it('real helm, when installed, renders the same objects as the shim', async (t) => {
    const probe = spawnSync('helm', ['version', '--short'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) {
      t.skip('helm is not installed');
      return;
    }
    const valuesFile = join(dir, 'helm-values.yaml');
    await writeFile(valuesFile, JSON.stringify({ createNamespace: true, tls: certs }));
    const run = spawnSync('helm', ['template', 'inj', CHART, '--namespace', 'mesh', '-f', valuesFile], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const real = parseAllDocuments(run.stdout).map((d) => d.toJS() as Obj).filter((o) => o !== null);
    const shim = (await renderChart(CHART, { name: 'inj', namespace: 'mesh' }, { createNamespace: true, tls: certs })).objects as Obj[];
    assert.deepEqual(real.map(key).sort(), shim.map(key).sort());
    for (const r of real) assert.deepEqual(r, shim.find((s) => key(s) === key(r)), key(r));
  });
});
