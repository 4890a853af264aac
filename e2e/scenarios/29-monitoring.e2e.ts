/**
 * Issue 29: the alerts and the dashboard against a real Prometheus 3.16 (e2e/build/prometheus.sh)
 * on loopback, scraping the e2e kube-apiserver (with the admin client certificate of the
 * cluster's PKI, from the kubeconfig) and `serve --monitoring-port` in URL mode on 127.0.0.1,
 * with --reconcile and, as root, the caBundle reconciler running as in a pod.
 * - 29.1: prometheus-operator's CRDs (v0.85.0, from its Go module) on the apiserver accept the
 *   PrometheusRule and ServiceMonitor that `manifests` and the chart write, and refuse broken ones.
 * - 29.2: while pods are created, every alert expression and signal and every panel query
 *   evaluates through the HTTP API without error, and Prometheus evaluates every rule healthily.
 * - 29.3: the webhook stopped under failurePolicy Fail while pods keep being created fires
 *   SidecarInjectorWebhookUnreachable within its (shortened) for:; then under Ignore the pods are
 *   admitted uninjected (fail-open), and the webhook comes back.
 * - 29.4: a serving certificate that expires in ten days, swapped in by a reload, fires
 *   SidecarInjectorCertificateExpiringSoon within its for:.
 * - 29.5: every signal and panel query returns series, except the one kube-state-metrics would
 *   feed (the Go module proxy refuses k8s.io/kube-state-metrics/v2 here, so it cannot be built).
 * The rules are the shipped ones from src/monitoring with every `for:` set to FOR.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { issueServingCert } from '../../src/certs/create-certs.js';
import { loadCA } from '../../src/certs/load-ca.js';
import { alertSpecs, WEBHOOK_NAME_MATCHER } from '../../src/monitoring/alerts.js';
import { dashboardPanels } from '../../src/monitoring/dashboard.js';
import { rulesFileYaml } from '../../src/monitoring/render-monitoring.js';
import { locatePrometheus } from '../../test/support/prometheus.js';
import { repoRoot } from '../cluster/paths.js';
import { inPod, isRoot, type InPod } from '../lib/in-pod.js';
import { ENABLED, SIDECAR, assertInjected } from '../lib/injected.js';
import { apply, cli, createNamespace, deleteNamespaces, getJson, kubectl, pods, run, waitFor, type Obj } from '../lib/kube.js';
import { startPrometheus, type ActiveAlert, type RunningPrometheus } from '../lib/prometheus.js';
import { assertSubset } from '../lib/subset.js';
import { appPod, freePort, startWebhook, waitUntilInjecting, type RunningWebhook } from '../lib/webhook.js';

const NAME = 'e2e-mon';
const PODS = 'e2e-mon-pods';
const FOR = '15s';
const FOR_MS = 15_000;
const TIMEOUT_SECONDS = '3';
/** From a fault to a firing alert: FOR, plus scrapes (1-2 s), a rate over two samples and evaluations (1 s). */
const FIRE_WITHIN_MS = FOR_MS + 30_000;

const located = locatePrometheus();
if ('skip' in located) throw new Error(`${located.skip} (npm run e2e builds it first)`);
const build = located;
let pod: InPod | undefined;
let hook: RunningWebhook;
let prometheus: RunningPrometheus;
let credentials: string;
const specs = alertSpecs({ namespace: NAME, name: NAME, timeoutSeconds: TIMEOUT_SECONDS });

before(async () => {
  for (const crd of build.crds) await kubectl(['apply', '--server-side', '-f', crd]);
  await kubectl([
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/prometheusrules.monitoring.coreos.com',
    'crd/servicemonitors.monitoring.coreos.com',
    'crd/podmonitors.monitoring.coreos.com',
  ]);
  if (isRoot) pod = await inPod(NAME);
  await createNamespace(PODS, ENABLED);
  const monitoringPort = await freePort();
  hook = await startWebhook({
    name: NAME,
    failurePolicy: 'Fail',
    serveArgs: [
      '--monitoring-port',
      String(monitoringPort),
      '--reconcile',
      '--reconcile-namespace',
      PODS,
      '--reconcile-lease-namespace',
      PODS,
      '--reconcile-lease',
      NAME,
      '--reconcile-webhook-config',
      NAME,
      ...(pod ? ['--webhook-config', NAME, '--ca-bundle-resync', '2'] : []),
    ],
    ...(pod ? { env: pod.env, wrap: pod.wrap } : {}),
  });
  await waitUntilInjecting(PODS, SIDECAR);

  // Prometheus authenticates to the apiserver as the e2e admin: the client certificate of the kubeconfig.
  const kc = parse(await readFile(process.env.KUBECONFIG!, 'utf8')) as Obj;
  credentials = await mkdtemp(join(tmpdir(), 'si-e2e-prom-creds-'));
  const cluster = kc.clusters[0].cluster;
  const user = kc.users[0].user;
  for (const [file, data] of [
    ['ca.crt', cluster['certificate-authority-data']],
    ['client.crt', user['client-certificate-data']],
    ['client.key', user['client-key-data']],
  ] as const) {
    await writeFile(join(credentials, file), Buffer.from(data as string, 'base64'), { mode: 0o600 });
  }
  prometheus = await startPrometheus(
    build.prometheus,
    {
      global: { scrape_interval: '2s', scrape_timeout: '2s', evaluation_interval: '1s' },
      rule_files: ['rules.yaml'],
      scrape_configs: [
        {
          job_name: 'apiserver',
          scheme: 'https',
          tls_config: { ca_file: join(credentials, 'ca.crt'), cert_file: join(credentials, 'client.crt'), key_file: join(credentials, 'client.key') },
          static_configs: [{ targets: [new URL(cluster.server as string).host] }],
        },
        {
          job_name: 'sidecar-injector',
          scrape_interval: '1s',
          scrape_timeout: '1s',
          static_configs: [{ targets: [`127.0.0.1:${monitoringPort}`], labels: { namespace: NAME, pod: 'serve-0' } }],
        },
      ],
    },
    { 'rules.yaml': rulesFileYaml({ namespace: NAME, name: NAME, timeoutSeconds: TIMEOUT_SECONDS, forOverride: FOR }) },
  );
  await waitFor(
    'Prometheus to scrape the apiserver and serve',
    async () => {
      const up = await prometheus.query('up == 1');
      return up.ok && up.series.length === 2;
    },
    60_000,
    500,
  );
});

after(async () => {
  await prometheus?.stop();
  await hook?.remove();
  await pod?.dispose();
  await deleteNamespaces(PODS);
  for (const crd of build.crds) await kubectl(['delete', '-f', crd, '--ignore-not-found', '--wait=false'], { allowFail: true });
  if (credentials) await rm(credentials, { recursive: true, force: true });
});

const monitoringObjects = (text: string): Obj[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as Obj)
    .filter((o) => o && String(o.apiVersion).startsWith('monitoring.coreos.com/'));

test("29.1: the apiserver, with prometheus-operator's CRDs, accepts the PrometheusRule and ServiceMonitor of manifests and of the chart, and refuses broken ones", async () => {
  const ours = monitoringObjects(
    (
      await cli([
        'manifests',
        '--name',
        NAME,
        '--namespace',
        PODS,
        '--no-namespace-object',
        '--no-certs',
        '--prometheus-rule',
        '--service-monitor',
        '--monitoring-label',
        'release=kube-prometheus-stack',
      ])
    ).stdout,
  );
  const chart = monitoringObjects(
    (
      await run('helm', [
        'template',
        `${NAME}-chart`,
        join(repoRoot, 'deploy/helm/sidecar-injector'),
        '--namespace',
        PODS,
        '--set',
        'monitoring.prometheusRule.enabled=true,monitoring.serviceMonitor.enabled=true',
        '--show-only',
        'templates/prometheusrule.yaml',
        '--show-only',
        'templates/servicemonitor.yaml',
      ])
    ).stdout,
  );
  for (const [what, objects] of [
    ['manifests', ours],
    ['helm template', chart],
  ] as const) {
    assert.deepEqual(objects.map((o) => o.kind).sort(), ['PrometheusRule', 'ServiceMonitor'], what);
    await apply(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
    for (const o of objects) assertSubset(await getJson(['-n', PODS, `${o.kind.toLowerCase()}.monitoring.coreos.com`, o.metadata.name]), o);
  }
  const rule = structuredClone(ours.find((o) => o.kind === 'PrometheusRule')!);
  rule.metadata.name = 'e2e-mon-broken';
  rule.spec.groups[0].rules[0].for = 'ten minutes';
  const refused = await kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(rule), allowFail: true });
  assert.notEqual(refused.code, 0, 'a PrometheusRule with an invalid for: is refused by the CRD schema');
  assert.match(refused.stderr, /spec\.groups\[0\]\.rules\[0\]\.for/);
  const monitor = structuredClone(ours.find((o) => o.kind === 'ServiceMonitor')!);
  monitor.metadata.name = 'e2e-mon-broken';
  monitor.spec.endpoints[0].scheme = 'ftp';
  const refusedMonitor = await kubectl(['apply', '--server-side', '-f', '-'], { input: JSON.stringify(monitor), allowFail: true });
  assert.notEqual(refusedMonitor.code, 0);
  assert.match(refusedMonitor.stderr, /spec\.endpoints\[0\]\.scheme/);
});

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

/** Every query of the dashboard and of the alerts (expression and signal), named for messages. */
function allQueries(): Array<{ what: string; expr: string }> {
  return [
    ...dashboardPanels().flatMap((p) => p.queries.map((q) => ({ what: `panel "${p.title}" (${q.legend})`, expr: q.expr }))),
    ...specs.flatMap((s) => [
      { what: `${s.alert} expression`, expr: `${s.signal} ${s.condition}` },
      { what: `${s.alert} signal`, expr: s.signal },
    ]),
  ];
}

test('29.2: while pods are created, every alert expression and panel query evaluates without error, and every rule evaluates healthily', async () => {
  await kubectl(['-n', PODS, 'create', '-f', '-'], { input: JSON.stringify(deployment('web', 6)) });
  for (let i = 0; i < 3; i++) await kubectl(['-n', PODS, 'create', '-f', '-'], { input: JSON.stringify(appPod(`bare-${i}`)) });
  const created = await waitFor(
    "the Deployment's pods",
    async () => {
      const p = await pods(PODS, 'app=web');
      return p.length >= 6 ? p : undefined;
    },
    60_000,
  );
  for (const p of created) assertInjected(p);
  await waitFor(
    "Prometheus to see our admissions and the apiserver's view of them",
    async () => {
      const ours = await prometheus.query('sidecar_injector_request_duration_seconds_count{outcome="injected"} > 0');
      const theirs = await prometheus.query(`apiserver_admission_webhook_admission_duration_seconds_count{${WEBHOOK_NAME_MATCHER}} > 0`);
      return ours.ok && ours.series.length > 0 && theirs.ok && theirs.series.length > 0;
    },
    60_000,
    500,
  );
  const errors: string[] = [];
  for (const q of allQueries()) {
    const r = await prometheus.query(q.expr);
    if (!r.ok) errors.push(`${q.what}: ${r.error}`);
  }
  assert.deepEqual(errors, []);
  const rules = await waitFor(
    'every rule to be evaluated',
    async () => {
      const r = await prometheus.rules();
      return r.length === specs.length && r.every((x) => x.health !== 'unknown') ? r : undefined;
    },
    30_000,
    500,
  );
  assert.deepEqual(
    rules.filter((r) => r.health !== 'ok').map((r) => `${r.name}: ${r.lastError}`),
    [],
  );
  const firing = (await prometheus.alerts()).filter((a) => a.state === 'firing').map((a) => a.labels.alertname);
  assert.deepEqual(firing, [], 'a healthy install fires nothing');
});

/** Wait for an alert to fire and check that it was pending for its whole for: first. */
async function firesWithinFor(t: { diagnostic(s: string): void }, alertname: string, since: number, match: (a: ActiveAlert) => boolean): Promise<ActiveAlert> {
  const alert = await waitFor(
    `${alertname} to fire`,
    async () => (await prometheus.alerts()).find((a) => a.labels.alertname === alertname && a.state === 'firing' && match(a)),
    FIRE_WITHIN_MS + 10_000,
    250,
  );
  const firedAt = Date.now();
  const pendingMs = firedAt - Date.parse(alert.activeAt);
  t.diagnostic(`${alertname}: firing ${((firedAt - since) / 1000).toFixed(1)} s after the fault, pending for ${(pendingMs / 1000).toFixed(1)} s (for: ${FOR})`);
  assert.ok(pendingMs >= FOR_MS - 1000, `${alertname} waited its for: (pending ${pendingMs} ms)`);
  assert.ok(firedAt - since <= FIRE_WITHIN_MS, `${alertname} fired within ${FIRE_WITHIN_MS} ms of the fault (took ${firedAt - since} ms)`);
  return alert;
}

async function setFailurePolicy(policy: 'Fail' | 'Ignore'): Promise<void> {
  const mwc = await getJson(['mutatingwebhookconfiguration', NAME]);
  const patch = (mwc.webhooks as Obj[]).map((_, i) => ({ op: 'replace', path: `/webhooks/${i}/failurePolicy`, value: policy }));
  await kubectl(['patch', 'mutatingwebhookconfiguration', NAME, '--type=json', '-p', JSON.stringify(patch)]);
}

test('29.3: the webhook stopped under failurePolicy Fail while pods keep being created fires SidecarInjectorWebhookUnreachable within its for:', async (t) => {
  assert.equal((await prometheus.alerts()).filter((a) => a.labels.alertname === 'SidecarInjectorWebhookUnreachable').length, 0);
  await hook.stop();
  const since = Date.now();
  let creating = true;
  let refused = 0;
  const traffic = (async () => {
    for (let i = 0; creating && i < 400; i++) {
      const r = await kubectl(['-n', PODS, 'create', '-f', '-'], {
        input: JSON.stringify({ ...appPod('x'), metadata: { generateName: 'during-outage-', labels: { app: 'outage' } } }),
        allowFail: true,
      });
      if (r.code !== 0 && /failed calling webhook/.test(r.stderr)) refused++;
      await new Promise((r) => setTimeout(r, 300));
    }
  })();
  try {
    const alert = await firesWithinFor(t, 'SidecarInjectorWebhookUnreachable', since, () => true);
    assert.equal(alert.labels.error_type, 'calling_webhook_error');
    assert.match(alert.labels.name!, /^(namespace|object|auto)\.sidecar-injector\.io$/);
    assert.equal(alert.labels.severity, 'critical');
    assert.match(alert.annotations.runbook_url!, /docs\/runbooks\.md#sidecarinjectorwebhookunreachable$/);
  } finally {
    creating = false;
    await traffic;
  }
  assert.ok(refused > 0, 'the apiserver refused the pods');
  assert.equal((await pods(PODS, 'app=outage')).length, 0, 'no pod was created without its sidecar');

  // The same outage under Ignore: pods are admitted without the sidecar, and the apiserver counts it.
  await setFailurePolicy('Ignore');
  await waitFor(
    'a pod admitted uninjected (fail open)',
    async () => {
      await kubectl(['-n', PODS, 'create', '-f', '-'], {
        input: JSON.stringify({ ...appPod('x'), metadata: { generateName: 'fail-open-', labels: { app: 'fail-open' } } }),
        allowFail: true,
      });
      const r = await prometheus.query(`apiserver_admission_webhook_fail_open_count{${WEBHOOK_NAME_MATCHER}} > 0`);
      return r.ok && r.series.length > 0;
    },
    60_000,
    1000,
  );
  await setFailurePolicy('Fail');
  await hook.start();
  await waitUntilInjecting(PODS, SIDECAR);
});

test('29.4: a serving certificate that expires in ten days, reloaded, fires SidecarInjectorCertificateExpiringSoon within its for:', async (t) => {
  assert.equal(
    (await prometheus.alerts()).filter((a) => a.labels.alertname === 'SidecarInjectorCertificateExpiringSoon').length,
    0,
    'not with the one-year certificate',
  );
  const ca = await loadCA(hook.certsDir);
  assert.ok(ca, 'manifests --certs-dir keeps the CA');
  const leaf = await issueServingCert(ca, { ipAddresses: ['127.0.0.1'], validityDays: 10 });
  // As a Secret update reaches a pod: each file replaced by a rename.
  for (const [file, text] of [
    ['tls.key', leaf.keyPem],
    ['tls.crt', leaf.certPem],
  ] as const) {
    await writeFile(join(hook.certsDir, `.${file}.new`), text);
    await rename(join(hook.certsDir, `.${file}.new`), join(hook.certsDir, file));
  }
  const since = Date.now();
  const alert = await firesWithinFor(t, 'SidecarInjectorCertificateExpiringSoon', since, (a) => a.labels.certificate === 'serving');
  assert.match(alert.annotations.description!, /^The serving certificate expires in 9d 23h/);
  const served = await prometheus.query('sidecar_injector_certificate_expiry_timestamp_seconds{certificate="serving"}');
  assert.ok(served.ok && served.series.length === 1);
  assert.equal(Number(served.series[0]!.value[1]), Math.floor(leaf.notAfter.getTime() / 1000), "the metric is the new certificate's notAfter");
  const ca10y = await prometheus.query('sidecar_injector_certificate_expiry_timestamp_seconds{certificate="serving-ca"} - time() > 14 * 86400');
  assert.ok(ca10y.ok && ca10y.series.length === 1, 'the CA (ca.crt of the TLS directory) is exported too, and far from expiry');
  await waitUntilInjecting(PODS, SIDECAR);
});

test('29.5: every alert signal and every panel query returns series from the real apiserver and serve', async () => {
  // Signals without a source here, each with the reason.
  const noSource: Record<string, string> = {
    SidecarInjectorTooFewReadyReplicas:
      'kube-state-metrics cannot be built here (the Go module proxy answers 403 for k8s.io/kube-state-metrics/v2); promtool tests cover this alert',
    ...(isRoot ? {} : { SidecarInjectorCABundleOutOfSync: 'the caBundle reconciler runs as in a pod, which needs root (unshare -m)' }),
  };
  await waitFor(
    'the reconcile leader to report pods',
    async () => {
      const r = await prometheus.query('sidecar_injector_pods{state="missing"} > 0');
      return r.ok && r.series.length > 0;
    },
    60_000,
    500,
  );
  const empty: string[] = [];
  for (const q of allQueries()) {
    if (Object.keys(noSource).some((alert) => q.what.startsWith(`${alert} `))) continue;
    // Panels that show only non-zero rates are asked without that filter: the series must exist.
    const expr = q.what.includes(' expression') ? undefined : q.expr.replace(/ > 0$/, '');
    if (expr === undefined) continue;
    const r = await prometheus.query(expr);
    assert.ok(r.ok, `${q.what}: ${r.ok ? '' : r.error}`);
    if (r.series.length === 0) empty.push(`${q.what}: ${expr}`);
  }
  assert.deepEqual(empty, [], 'queries without series');
  const pdb = await prometheus.query('{__name__=~"kube_poddisruptionbudget_.*"}');
  assert.ok(
    pdb.ok && pdb.series.length === 0,
    `no kube-state-metrics here (${noSource.SidecarInjectorTooFewReadyReplicas}); when there is, drop it from noSource`,
  );
});
