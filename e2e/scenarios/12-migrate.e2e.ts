/**
 * Issue 12 against a real kube-apiserver: Istio's own ConfigMap as --config (no extra keys)
 * injects like Istio (native sidecar, probes rewritten, Prometheus merge); the tutorial's
 * static sidecar config with its keys and values ("yes", status "injected", namespace label
 * sidecar-injector=enabled); `config check`'s verdicts agree with the apiserver's own
 * validation of the injected pod; and today's Istio ConfigMap (the e2e's Istio build), stored in
 * the cluster and read back with `kubectl get -o yaml`, checks clean, its gateway templates
 * rendering objects the apiserver stores (issue 36 item 5).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repoRoot } from '../cluster/paths.js';
import { istioChartConfigMap, istioChartPresent } from '../../test/support/istio-chart.js';
import { findIstioPeer, peerInjectorConfigMap } from '../../test/support/istio-peer.js';
import { representativeGateways } from '../../src/check/gateways.js';
import { GATEWAY_CLASSES, gatewayTemplateData } from '../../src/istio/gateway-data.js';
import { meshSettings } from '../../src/istio/mesh-config.js';
import { loadConfig } from '../../src/profiles/index.js';
import { readManifest } from '../../src/manifest-io/index.js';
import { injectDocuments } from '../../src/manual-inject/index.js';
import { cli, createNamespace, deleteNamespaces, kubectl, type Obj } from '../lib/kube.js';
import { appPod, dryRunCreate, startWebhook, type RunningWebhook } from '../lib/webhook.js';

const ISTIO_NS = 'i12-istio';
const TUTORIAL_NS = 'i12-tutorial';
const CHECK_NS = 'i12-check';
const GATEWAY_NS = 'i12-gateways';
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'i12-e2e-'));
});
after(async () => {
  await deleteNamespaces(ISTIO_NS, TUTORIAL_NS, CHECK_NS, GATEWAY_NS);
  await rm(dir, { recursive: true, force: true });
});

/** Dry-run creates until the apiserver calls the webhook (it loads configurations asynchronously). */
async function injectedPod(ns: string, pod: Obj, isInjected: (p: Obj) => boolean): Promise<Obj> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const got = await dryRunCreate(ns, pod);
    if (isInjected(got) || Date.now() > deadline) return got;
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe("Istio's ConfigMap as --config", { skip: istioChartPresent() ? false : 'Istio conformance data not found' }, () => {
  let hook: RunningWebhook;
  before(async () => {
    const file = join(dir, 'istio-sidecar-injector.yaml');
    await writeFile(file, istioChartConfigMap());
    await createNamespace(ISTIO_NS, { 'istio-injection': 'enabled' });
    hook = await startWebhook({ name: 'i12-istio', config: file });
  });
  after(async () => hook?.remove());

  test('12-1 Istio ConfigMap, no extra keys: native istio-proxy, probes rewritten, Prometheus merged; the apiserver stores it', async () => {
    const pod = appPod('web', {
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090', 'prometheus.io/path': '/metrics' },
      spec: {
        containers: [
          { name: 'app', image: 'registry.example/app:1', ports: [{ containerPort: 8080 }], readinessProbe: { httpGet: { path: '/ready', port: 8080 } } },
        ],
      },
    });
    const got = await injectedPod(ISTIO_NS, pod, (p) => (p.spec.initContainers ?? []).some((c: Obj) => c.name === 'istio-proxy'));
    const proxy = (got.spec.initContainers as Obj[]).find((c) => c.name === 'istio-proxy');
    assert.ok(proxy, `istio-proxy is a native sidecar: ${JSON.stringify(got.spec.initContainers?.map((c: Obj) => c.name))}`);
    assert.equal(proxy.restartPolicy, 'Always');
    const app = (got.spec.containers as Obj[]).find((c) => c.name === 'app')!;
    assert.deepEqual(app.readinessProbe.httpGet, { path: '/app-health/app/readyz', port: 15020, scheme: 'HTTP' }, 'the app probe goes through the agent');
    assert.equal(got.metadata.annotations['prometheus.io/port'], '15020', 'Prometheus scrapes the agent');
    assert.equal(got.metadata.annotations['prometheus.io/path'], '/stats/prometheus');
    const env = (proxy.env as Obj[]).find((e) => e.name === 'ISTIO_PROMETHEUS_ANNOTATIONS');
    assert.match(env?.value ?? '', /"port":"9090"/, "the app's own scrape settings move to the proxy");
    const opt = await dryRunCreate(ISTIO_NS, appPod('opt-out', { annotations: { 'sidecar.istio.io/nativeSidecar': 'false' } }));
    assert.ok(
      (opt.spec.containers as Obj[]).some((c) => c.name === 'istio-proxy'),
      'nativeSidecar "false" on the pod: a regular container, as Istio decides',
    );
  });
});

describe("the tutorial's sidecar config", () => {
  let hook: RunningWebhook;
  before(async () => {
    await createNamespace(TUTORIAL_NS, { 'sidecar-injector': 'enabled' });
    hook = await startWebhook({ name: 'i12-tutorial', config: join(repoRoot, 'examples/nginx-sidecar/config.yaml') });
  });
  after(async () => hook?.remove());

  test('12-2 tutorial config as is: "yes" injects sidecar-nginx, "no" does not, a pod marked status: injected is left alone', async () => {
    const nginx = (p: Obj) => (p.spec.containers as Obj[]).some((c) => c.name === 'sidecar-nginx');
    const yes = await injectedPod(TUTORIAL_NS, appPod('sleep', { annotations: { 'sidecar-injector-webhook.morven.me/inject': 'yes' } }), nginx);
    assert.ok(nginx(yes), 'injected on "yes"');
    assert.deepEqual(
      (yes.spec.volumes as Obj[]).find((v) => v.name === 'nginx-conf'),
      { name: 'nginx-conf', configMap: { name: 'nginx-configmap', defaultMode: 420 } },
    );
    const no = await dryRunCreate(TUTORIAL_NS, appPod('no', { annotations: { 'sidecar-injector-webhook.morven.me/inject': 'no' } }));
    assert.ok(!nginx(no));
    const marked = await dryRunCreate(
      TUTORIAL_NS,
      appPod('marked', { annotations: { 'sidecar-injector-webhook.morven.me/inject': 'yes', 'sidecar-injector-webhook.morven.me/status': 'injected' } }),
    );
    assert.ok(!nginx(marked), "already injected by the tutorial's webhook: not again");
    assert.equal(marked.metadata.annotations['sidecar-injector-webhook.morven.me/status'], 'injected');
  });
});

/** The pod the injection core makes, with neither the CLI's config gate nor its validation. */
async function ungatedInject(podFile: string, configPath: string): Promise<string> {
  const docs = readManifest(await readFile(podFile, 'utf8'), podFile);
  return injectDocuments(docs, await loadConfig(configPath), { validate: false }).text;
}

describe('config check agrees with the apiserver', () => {
  before(async () => createNamespace(CHECK_NS));

  test('12-3 what config check refuses the apiserver refuses (same field); what it passes the apiserver stores', async () => {
    const cases: [string, string, RegExp | undefined][] = [
      ['port', '        ports:\n        - containerPort: 99999\n', /spec\.containers\[1\]\.ports\[0\]\.containerPort/],
      // The apiserver refuses a bad quantity while decoding, without the field's path.
      ['quantity', '        resources:\n          requests:\n            cpu: lots\n', /quantities must match the regular expression/],
      ['mount', '        volumeMounts:\n        - name: logs\n          mountPath: /var/log\n', /spec\.containers\[1\]\.volumeMounts\[0\]\.name/],
      ['ok', '        ports:\n        - containerPort: 2020\n', undefined],
    ];
    for (const [name, extra, apiserverField] of cases) {
      const config = join(dir, `${name}.yaml`);
      await writeFile(config, `templates:\n  sidecar: |\n    spec:\n      containers:\n      - name: shipper\n        image: fluent-bit:3.0\n${extra}`);
      const check = await cli(['config', 'check', '-c', config], { allowFail: true });
      const podFile = join(dir, `${name}-pod.yaml`);
      await writeFile(podFile, JSON.stringify(appPod(name)));
      const injected = await cli(['inject', '-f', podFile, '-c', config], { allowFail: true });
      // inject runs serve's validity gate and refuses the invalid configs (exit 4); the core, with
      // no gate and no validation, makes the pod they would give, so the apiserver can judge it.
      const pod = apiserverField === undefined ? injected.stdout : await ungatedInject(podFile, config);
      if (apiserverField !== undefined) assert.equal(injected.code, 4, `${name}: inject refuses the config as serve would: ${injected.stderr}`);
      const created = await kubectl(['-n', CHECK_NS, 'create', '--dry-run=server', '-f', '-'], { input: pod, allowFail: true });
      if (apiserverField === undefined) {
        assert.equal(check.code, 0, `${name}: config check passes: ${check.stdout}`);
        assert.equal(created.code, 0, `${name}: the apiserver stores it: ${created.stderr}`);
      } else {
        assert.equal(check.code, 4, `${name}: config check refuses: ${check.stdout}`);
        assert.notEqual(created.code, 0, `${name}: the apiserver refuses too`);
        assert.match(created.stderr, apiserverField, `${name}: the apiserver names the problem`);
      }
    }
  });
});

const peer = findIstioPeer();
const peerConfigMap = peer === undefined ? undefined : peerInjectorConfigMap(peer);

describe("today's Istio ConfigMap", { skip: peerConfigMap === undefined ? 'the Istio peer is not built (e2e/build/istio.sh)' : false }, () => {
  before(async () => createNamespace(GATEWAY_NS));

  test('12-4 read back from the cluster, config check passes; each gateway template renders objects the apiserver stores', async () => {
    const cm = readManifest(peerConfigMap!, 'istio-sidecar-injector')[0].value as Obj;
    cm.metadata.namespace = GATEWAY_NS;
    await kubectl(['create', '-f', '-'], { input: JSON.stringify(cm) });
    const file = join(dir, 'istio-sidecar-injector-from-cluster.yaml');
    await writeFile(file, (await kubectl(['-n', GATEWAY_NS, 'get', 'configmap', 'istio-sidecar-injector', '-o', 'yaml'])).stdout);
    const check = await cli(['config', 'check', '-c', file], { allowFail: true });
    assert.equal(check.code, 0, `config check passes on the ConfigMap as kubectl prints it: ${check.stdout}${check.stderr}`);
    assert.match(
      check.stdout,
      /\+ waypoint x 2 Gateway\(s\) \+ kube-gateway x 2 Gateway\(s\) \+ agentgateway x 2 Gateway\(s\) \+ agentgateway-waypoint x 2 Gateway\(s\) = \d+ renders, 0 failure\(s\)/,
    );
    // What check passes, the apiserver stores: every rendered ServiceAccount, Deployment and Service.
    const config = await loadConfig(file);
    const mesh = meshSettings(config);
    for (const cls of GATEWAY_CLASSES) {
      for (const { name, gateway } of representativeGateways(cls)) {
        const gw = { ...gateway, metadata: { ...(gateway.metadata as Obj), namespace: GATEWAY_NS } };
        const text = config.compiledTemplates.get(cls.template)!.execute(gatewayTemplateData(gw, { config, mesh, gatewayClass: cls }));
        const created = await kubectl(['-n', GATEWAY_NS, 'create', '--dry-run=server', '-o', 'name', '-f', '-'], { input: text, allowFail: true });
        assert.equal(created.code, 0, `${cls.template} for Gateway ${name}: the apiserver stores what it renders: ${created.stderr}`);
        assert.match(created.stdout, /serviceaccount\/[\s\S]*deployment\.apps\/[\s\S]*service\//, `${cls.template}: all three objects`);
      }
    }
  });
});
