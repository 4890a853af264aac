/**
 * Istio's post-processing on a small Istio-like template (istio-init + istio-proxy), with the
 * switch values.istioPostProcessing on: probe rewrite, prometheus merge, cluster/network env,
 * overrides annotation, and the init container following a customised proxy user.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { injectChecked, templatesConfig, WEBHOOK } from '../../test/support/inject-fixtures.js';
import { InjectorError } from '../errors.js';
import type { JsonObject } from '../util/json.js';
import { injectPod } from '../inject/index.js';
import { istioPostProcessingEnabled } from './postprocess.js';

type Obj = Record<string, unknown>;

const TEMPLATE = [
  'spec:',
  '  initContainers:',
  '  - name: istio-init',
  '    image: proxy:1',
  '    args: ["istio-iptables", "-u", "1337"]',
  '  containers:',
  '  - name: istio-proxy',
  '    image: proxy:1',
  '    env:',
  '    - name: ISTIO_META_CLUSTER_ID',
  '      value: Kubernetes',
].join('\n');

const values = { istioPostProcessing: true, sidecarInjectorWebhook: { rewriteAppHTTPProbe: true } };
const config = templatesConfig({ sidecar: TEMPLATE }, {}, values);

const proxyOf = (pod: JsonObject) => ((pod.spec as Obj).containers as Obj[]).find((c) => c.name === 'istio-proxy')!;
const envOf = (c: Obj) => Object.fromEntries(((c.env as Obj[]) ?? []).map((e) => [e.name, e.value]));
const app = (pod: JsonObject) => ((pod.spec as Obj).containers as Obj[]).find((c) => c.name === 'app')!;

function pod(extra: { annotations?: Record<string, string>; labels?: Record<string, string>; container?: Obj; more?: Obj[] } = {}): JsonObject {
  const p = {
    metadata: { name: 'p', annotations: extra.annotations ?? {}, labels: extra.labels ?? {} },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'app:1',
          ports: [{ name: 'http', containerPort: 8080 }],
          readinessProbe: { httpGet: { path: '/ready', port: 'http', scheme: 'HTTPS' }, timeoutSeconds: 5 },
          livenessProbe: { tcpSocket: { port: 9000 } },
          startupProbe: { grpc: { port: 9090 } },
          lifecycle: { preStop: { httpGet: { port: 8080, path: '/stop' } } },
          ...extra.container,
        },
        ...(extra.more ?? []),
      ],
    },
  };
  return p as unknown as JsonObject;
}

describe("Istio's post-processing", () => {
  it('is off unless values.istioPostProcessing is true', () => {
    assert.equal(istioPostProcessingEnabled(config), true);
    const plain = templatesConfig({ sidecar: TEMPLATE });
    assert.equal(istioPostProcessingEnabled(plain), false);
    const r = injectPod(pod(), WEBHOOK, plain);
    assert.ok(r.kind === 'injected' && !('ISTIO_KUBE_APP_PROBERS' in envOf(proxyOf(r.pod))));
  });

  it('rewrites HTTP, TCP and gRPC probes and HTTP hooks to the agent, keeping the originals on the proxy', () => {
    const r = injectChecked(pod(), WEBHOOK, config);
    const a = app(r.pod);
    assert.deepEqual(a.readinessProbe, { httpGet: { path: '/app-health/app/readyz', port: 15020, scheme: 'HTTP' }, timeoutSeconds: 5 });
    assert.deepEqual(a.livenessProbe, { httpGet: { path: '/app-health/app/livez', port: 15020 } });
    assert.deepEqual(a.startupProbe, { httpGet: { path: '/app-health/app/startupz', port: 15020 } });
    assert.deepEqual((a.lifecycle as Obj).preStop, { httpGet: { path: '/app-lifecycle/app/prestopz', port: 15020 } });
    assert.equal(
      envOf(proxyOf(r.pod)).ISTIO_KUBE_APP_PROBERS,
      '{"/app-health/app/livez":{"tcpSocket":{"port":9000}},"/app-health/app/readyz":{"httpGet":{"path":"/ready","port":8080,"scheme":"HTTPS"},"timeoutSeconds":5},' +
        '"/app-health/app/startupz":{"grpc":{"port":9090,"service":null}},"/app-lifecycle/app/prestopz":{"httpGet":{"path":"/stop","port":8080}}}',
    );
  });

  it('leaves probes alone when asked; otherwise rewrites them whatever their port, as current Istio does', () => {
    const off = injectChecked(pod({ annotations: { 'sidecar.istio.io/rewriteAppHTTPProbers': 'false' } }), WEBHOOK, config);
    assert.deepEqual(app(off.pod).livenessProbe, { tcpSocket: { port: 9000 } });
    // istioctl kube-inject (the live peer) rewrites a probe on a port excluded from interception too.
    const excluded = injectChecked(pod({ annotations: { 'traffic.sidecar.istio.io/excludeInboundPorts': '9000' } }), WEBHOOK, config);
    assert.deepEqual(app(excluded.pod).livenessProbe, { httpGet: { path: '/app-health/app/livez', port: 15020 } });
    assert.match(envOf(proxyOf(excluded.pod)).ISTIO_KUBE_APP_PROBERS as string, /livez/);
  });

  it('records no prober already pointing at the agent, nor a named port the container does not declare', () => {
    const atAgent = {
      name: 'side',
      image: 'x',
      readinessProbe: { httpGet: { path: '/', port: 15020 } },
      livenessProbe: { tcpSocket: { port: 'nope' } },
      startupProbe: { httpGet: { path: '/s', port: '8080' } },
    };
    const r = injectChecked(pod({ more: [atAgent] }), WEBHOOK, config);
    assert.doesNotMatch(envOf(proxyOf(r.pod)).ISTIO_KUBE_APP_PROBERS as string, /side/);
    // ...but the probes themselves are still pointed at the agent.
    const side = ((r.pod.spec as Obj).containers as Obj[]).find((c) => c.name === 'side')!;
    assert.deepEqual(side.livenessProbe, { httpGet: { path: '/app-health/side/livez', port: 15020 } });
  });

  it("moves the app's prometheus annotations into the proxy and points scraping at the agent", () => {
    const r = injectChecked(pod({ annotations: { 'prometheus.io/port': '9102', 'prometheus.io/path': '/m' } }), WEBHOOK, config);
    const annotations = (r.pod.metadata as Obj).annotations as Record<string, string>;
    assert.equal(annotations['prometheus.io/port'], '15020');
    assert.equal(annotations['prometheus.io/path'], '/stats/prometheus');
    assert.equal(annotations['prometheus.io/scrape'], 'true');
    assert.equal(envOf(proxyOf(r.pod)).ISTIO_PROMETHEUS_ANNOTATIONS, '{"scrape":"","path":"/m","port":"9102"}');
    // Istio's PrometheusScrapeConfiguration has no omitempty on scrape, path and port (found by the live peer).
    const onlyPort = injectChecked(pod({ annotations: { 'prometheus.io/port': '9102' } }), WEBHOOK, config);
    assert.equal(envOf(proxyOf(onlyPort.pod)).ISTIO_PROMETHEUS_ANNOTATIONS, '{"scrape":"","path":"","port":"9102"}');
    // Scrape targets (current Istio): the first sets port and path, a missing path is /metrics.
    const targets = injectChecked(
      pod({ annotations: { 'prometheus.io/port': '1', 'prometheus.istio.io/scrape-targets': ' 9100 , 9102:/m' } }),
      WEBHOOK,
      config,
    );
    assert.equal(
      envOf(proxyOf(targets.pod)).ISTIO_PROMETHEUS_ANNOTATIONS,
      '{"scrape":"","path":"/metrics","port":"9100","targets":[{"port":"9100","path":"/metrics"},{"port":"9102","path":"/m"}]}',
    );
    assert.equal(((targets.pod.metadata as Obj).annotations as Record<string, string>)['prometheus.istio.io/scrape-targets'], undefined);
    // Ports Istio refuses to scrape fail the injection, naming the annotation.
    for (const [annotations, want] of [
      [{ 'prometheus.io/port': 'abc' }, /invalid prometheus scrape configuration: invalid port "abc" \(annotation prometheus\.io\/port\)/],
      [{ 'prometheus.io/port': '15090' }, /port 15090 is reserved for Istio \(Envoy Prometheus/],
      [{ 'prometheus.istio.io/scrape-targets': '8080,15021:/x' }, /invalid prometheus scrape targets: target port 15021 is reserved/],
      [{ 'prometheus.istio.io/scrape-targets': '70000' }, /invalid target port "70000"/],
    ] as const) {
      assert.throws(
        () => injectPod(pod({ annotations: { ...annotations } }), WEBHOOK, config),
        (err: unknown) => err instanceof InjectorError && err.code === 'SI_INJECT_ANNOTATION' && want.test(err.message),
      );
    }
    // A target without a port: Istio ignores the annotation.
    const ignored = injectChecked(pod({ annotations: { 'prometheus.istio.io/scrape-targets': ':/no-port' } }), WEBHOOK, config);
    assert.equal(envOf(proxyOf(ignored.pod)).ISTIO_PROMETHEUS_ANNOTATIONS, undefined);
    const off = injectChecked(pod({ annotations: { 'prometheus.io/scrape': 'false' } }), WEBHOOK, config);
    assert.equal(((off.pod.metadata as Obj).annotations as Record<string, string>)['prometheus.io/port'], undefined);
  });

  it('cluster and network from values, the webhook path and the network label go on the proxy env and the pod label', () => {
    const withNet = templatesConfig({ sidecar: TEMPLATE }, {}, { ...values, global: { network: 'net-values' } });
    const r = injectChecked(pod(), { ...WEBHOOK, pathParams: { ISTIO_META_CLUSTER_ID: 'c1' } }, withNet);
    assert.equal(envOf(proxyOf(r.pod)).ISTIO_META_CLUSTER_ID, 'c1');
    assert.equal(envOf(proxyOf(r.pod)).ISTIO_META_NETWORK, 'net-values');
    assert.equal(((r.pod.metadata as Obj).labels as Record<string, string>)['topology.istio.io/network'], 'net-values');
    const labelled = injectChecked(pod({ labels: { 'topology.istio.io/network': 'net-label' } }), WEBHOOK, withNet);
    assert.equal(envOf(proxyOf(labelled.pod)).ISTIO_META_NETWORK, 'net-label');
  });

  it("records a customised proxy in Istio's overrides annotation (Go JSON) and makes istio-init follow its user", () => {
    // Go's omitempty: an empty env value, a false stdin and an empty args list are left out (found by the live peer).
    const mine = {
      name: 'istio-proxy',
      image: 'auto',
      args: [],
      env: [{ name: 'EMPTY', value: '' }],
      stdin: false,
      securityContext: { runAsUser: 1234 },
      resources: { limits: { cpu: '3000m' } },
    };
    const r = injectChecked(pod({ more: [mine] }), WEBHOOK, config);
    const annotations = (r.pod.metadata as Obj).annotations as Record<string, string>;
    assert.equal(
      annotations['proxy.istio.io/overrides'],
      '{"containers":[{"name":"istio-proxy","env":[{"name":"EMPTY"}],"resources":{"limits":{"cpu":"3"}},"securityContext":{"runAsUser":1234}}]}',
    );
    const init = ((r.pod.spec as Obj).initContainers as Obj[])[0];
    assert.deepEqual(init.args, ['istio-iptables', '-u', '1234']);
  });

  it("writes into the user's own istio-proxy and istio-init, when no template injected them, without touching the pod given", () => {
    // A template that injects neither: the proxy and init container the post-processing edits are the user's.
    const volumeOnly = templatesConfig({ sidecar: 'spec:\n  volumes:\n  - name: istio-envoy\n    emptyDir: {}' }, {}, { ...values, global: { network: 'n1' } });
    const input = pod({
      more: [{ name: 'istio-proxy', image: 'proxy:1', env: [{ name: 'KEEP', value: 'x' }], securityContext: { runAsUser: 1234 } }],
    });
    (input.spec as Obj).initContainers = [{ name: 'istio-init', image: 'proxy:1', args: ['istio-iptables', '-u', '1337'] }];
    const before = JSON.stringify(input);
    const r = injectChecked(input, WEBHOOK, volumeOnly); // the test run freezes `input`: a write into it throws
    assert.equal(JSON.stringify(input), before);
    assert.equal(envOf(proxyOf(r.pod)).ISTIO_META_NETWORK, 'n1');
    assert.deepEqual(((r.pod.spec as Obj).initContainers as Obj[])[0].args, ['istio-iptables', '-u', '1234']);
  });
});
