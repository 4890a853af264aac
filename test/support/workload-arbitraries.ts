/**
 * @module test/support/workload-arbitraries
 * fast-check arbitraries of realistic workloads for differential testing against Istio's
 * injector: Pods and Deployments (also StatefulSets, Jobs, DaemonSets) with several containers,
 * init containers and native sidecars, http/tcp/grpc/exec probes, ports, security contexts,
 * volumes, resources, and Istio's annotations and labels with valid and invalid values. Unlike
 * the fuzz arbitraries (pod-arbitraries.ts) everything here is something a user could apply:
 * the point is to find where two injectors disagree on real input, not to crash one.
 */
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '../../src/util/json.js';

/** Builds an object from entries, leaving out undefined values (optional fields). */
function obj(entries: [string, JsonValue | undefined][]): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of entries) if (v !== undefined) out[k] = v;
  return out;
}

const opt = <T>(a: fc.Arbitrary<T>, freq = 2): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined, freq });

// istio-proxy: a user container of the sidecar's name customises the injected one (Istio's documented way).
const CONTAINER_NAMES = ['app', 'web', 'api', 'worker', 'cache', 'metrics', 'log-shipper', 'istio-proxy'];
// Not Istio's own init container names (istio-init, istio-validation): no user picks those.
const INIT_NAMES = ['init-db', 'migrate', 'setup', 'fetch-config'];
const IMAGES = ['nginx:1.27', 'busybox:1.36', 'registry.example.com/shop/api:v1.2.3', 'ghcr.io/acme/worker@sha256:' + 'a'.repeat(64), 'redis:7-alpine'];
const PORT_NAMES = ['http', 'http-web', 'grpc', 'tcp-db', 'metrics', 'https', 'http2', 'redis'];

const quantityCpu = fc.constantFrom('10m', '100m', '250m', '0.5', '1', '2', '1500m', '0.1');
const quantityMem = fc.constantFrom('64Mi', '128Mi', '1Gi', '512M', '1G', '100000000', '1.5Gi');
const resources = fc
  .record(
    {
      requests: opt(fc.record({ cpu: quantityCpu, memory: quantityMem }, { requiredKeys: [] })),
      limits: opt(fc.record({ cpu: quantityCpu, memory: quantityMem }, { requiredKeys: [] })),
    },
    { requiredKeys: [] },
  )
  .map((r) => obj(Object.entries(r)) as JsonObject);

// Mostly common app ports; now and then one of the proxy's own (15020, 15021, 15090).
const portNumber = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(80, 8080, 9090, 3306, 6379, 443, 8443) },
  { weight: 1, arbitrary: fc.constantFrom(15020, 15021, 15090) },
  { weight: 3, arbitrary: fc.integer({ min: 1024, max: 32000 }) },
);

function probeArb(ports: number[]): fc.Arbitrary<JsonObject> {
  const p = ports.length > 0 ? fc.oneof(fc.constantFrom(...ports), portNumber) : portNumber;
  const namedOrNumber = fc.oneof(
    { weight: 4, arbitrary: p as fc.Arbitrary<JsonValue> },
    { weight: 1, arbitrary: fc.constantFrom('http', 'http-web') as fc.Arbitrary<JsonValue> },
  );
  const handler = fc.oneof(
    fc.record({
      httpGet: fc.record(
        { path: fc.constantFrom('/', '/healthz', '/ready', '/live?full=1'), port: namedOrNumber, scheme: opt(fc.constantFrom('HTTP', 'HTTPS')) },
        { requiredKeys: ['path', 'port'] },
      ),
    }),
    fc.record({ tcpSocket: fc.record({ port: namedOrNumber }) }),
    fc.record({ grpc: fc.record({ port: p, service: opt(fc.constantFrom('health', '')) }, { requiredKeys: ['port'] }) }),
    fc.record({ exec: fc.record({ command: fc.constantFrom(['cat', '/tmp/healthy'], ['sh', '-c', 'pg_isready']) }) }),
  );
  return fc
    .tuple(
      handler,
      fc.record(
        {
          initialDelaySeconds: fc.integer({ min: 0, max: 30 }),
          periodSeconds: fc.integer({ min: 1, max: 30 }),
          timeoutSeconds: fc.integer({ min: 1, max: 10 }),
          failureThreshold: fc.integer({ min: 1, max: 10 }),
        },
        { requiredKeys: [] },
      ),
    )
    .map(([h, timing]) => obj([...Object.entries(h as JsonObject), ...Object.entries(timing)]) as JsonObject);
}

const securityContext = fc
  .record(
    {
      runAsUser: fc.constantFrom(0, 1000, 1337, 65532),
      runAsGroup: fc.constantFrom(0, 1000, 1337),
      runAsNonRoot: fc.boolean(),
      readOnlyRootFilesystem: fc.boolean(),
      allowPrivilegeEscalation: fc.boolean(),
      privileged: fc.boolean(),
      capabilities: fc.record(
        { drop: opt(fc.constant(['ALL'])), add: opt(fc.constantFrom(['NET_BIND_SERVICE'], ['NET_ADMIN', 'NET_RAW'])) },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  )
  .map((r) => r as JsonObject);

function containerArb(name: string, volumes: string[], init: boolean): fc.Arbitrary<JsonObject> {
  return fc
    .uniqueArray(fc.record({ containerPort: portNumber, name: opt(fc.constantFrom(...PORT_NAMES)), protocol: opt(fc.constantFrom('TCP', 'UDP')) }), {
      maxLength: init ? 1 : 3,
      selector: (p) => p.containerPort,
    })
    .chain((rawPorts) => {
      // Port names must be unique in a container.
      const seen = new Set<string>();
      const ports = rawPorts.map((p) => {
        const name = p.name !== undefined && !seen.has(p.name) ? (seen.add(p.name), p.name) : undefined;
        return obj([
          ['containerPort', p.containerPort],
          ['name', name],
          ['protocol', p.protocol],
        ]);
      });
      const numbers = rawPorts.map((p) => p.containerPort);
      return fc
        .record(
          {
            image: fc.constantFrom(...IMAGES),
            imagePullPolicy: opt(fc.constantFrom('Always', 'IfNotPresent')),
            command: opt(fc.constantFrom(['/bin/server'], ['sh', '-c', 'sleep 3600'])),
            args: opt(fc.constantFrom(['--port=8080'], ['--verbose', '--config', '/etc/app/config.yaml'])),
            env: opt(
              fc.uniqueArray(
                fc.record({ name: fc.constantFrom('LOG_LEVEL', 'PORT', 'MODE', 'GOMAXPROCS'), value: fc.constantFrom('debug', '8080', 'prod', '') }),
                { maxLength: 3, selector: (e) => e.name },
              ),
            ),
            resources: opt(resources),
            securityContext: opt(securityContext),
            readinessProbe: init ? fc.constant(undefined) : opt(probeArb(numbers)),
            livenessProbe: init ? fc.constant(undefined) : opt(probeArb(numbers)),
            startupProbe: init ? fc.constant(undefined) : opt(probeArb(numbers), 4),
            volumeMounts:
              volumes.length > 0
                ? opt(fc.subarray(volumes, { minLength: 1 }).map((vs) => vs.map((v) => ({ name: v, mountPath: `/mnt/${v}` }))))
                : fc.constant(undefined),
          },
          { requiredKeys: ['image'] },
        )
        .map(
          (c) =>
            obj([['name', name], ...(Object.entries(c) as [string, JsonValue | undefined][]), ['ports', ports.length > 0 ? ports : undefined]]) as JsonObject,
        );
    });
}

// Istio's annotations, each with right and wrong values (wrong ones must be refused or ignored as Istio does).
const ANNOTATION_VALUES: Record<string, string[]> = {
  'sidecar.istio.io/inject': ['true', 'false', 'True', 'yes', 'n', ''],
  'sidecar.istio.io/proxyCPU': ['100m', '2', '0.5', 'abc'],
  'sidecar.istio.io/proxyMemory': ['128Mi', '1G', 'lots'],
  'sidecar.istio.io/proxyCPULimit': ['500m', '2'],
  'sidecar.istio.io/proxyMemoryLimit': ['1Gi', '512Mi'],
  'sidecar.istio.io/logLevel': ['debug', 'info', 'warning'],
  'sidecar.istio.io/componentLogLevel': ['misc:error', 'upstream:debug,connection:trace'],
  'sidecar.istio.io/agentLogLevel': ['debug', 'all:info'],
  'sidecar.istio.io/rewriteAppHTTPProbers': ['true', 'false'],
  'sidecar.istio.io/interceptionMode': ['REDIRECT', 'TPROXY', 'NONE', 'bogus'],
  'sidecar.istio.io/proxyImage': ['docker.io/istio/proxyv2:custom', 'example.com/proxy:1'],
  'sidecar.istio.io/statsInclusionPrefixes': ['cluster.outbound,listener'],
  'sidecar.istio.io/enableCoreDump': ['true', 'false'],
  'sidecar.istio.io/bootstrapOverride': ['my-bootstrap'],
  'sidecar.istio.io/userVolume': ['{"certs":{"secret":{"secretName":"certs"}}}', 'not json'],
  'sidecar.istio.io/userVolumeMount': ['{"certs":{"mountPath":"/etc/certs","readOnly":true}}', 'not json'],
  'traffic.sidecar.istio.io/includeOutboundIPRanges': ['*', '10.0.0.0/8', '10.0.0.0/8,192.168.0.0/16', '', 'bad-range'],
  'traffic.sidecar.istio.io/excludeOutboundIPRanges': ['169.254.169.254/32', '1.1.1.1/32,2.2.2.0/24', 'nope'],
  'traffic.sidecar.istio.io/includeInboundPorts': ['*', '80,8080', '', 'http'],
  'traffic.sidecar.istio.io/excludeInboundPorts': ['9090', '15020,9091', '70000'],
  'traffic.sidecar.istio.io/includeOutboundPorts': ['443', '80,443'],
  'traffic.sidecar.istio.io/excludeOutboundPorts': ['3306', '3306,6379', 'x'],
  'traffic.sidecar.istio.io/kubevirtInterfaces': ['net1', 'net1,net2'],
  'proxy.istio.io/config': [
    'holdApplicationUntilProxyStarts: true',
    'concurrency: 2',
    '{"terminationDrainDuration":"30s"}',
    'proxyMetadata:\n  FOO: bar\n',
    'tracing: {}',
    '{bad',
  ],
  'status.sidecar.istio.io/port': ['15020', '0', '8080', 'abc', '70000'],
  'readiness.status.sidecar.istio.io/initialDelaySeconds': ['5', 'x'],
  'readiness.status.sidecar.istio.io/periodSeconds': ['10'],
  'readiness.status.sidecar.istio.io/failureThreshold': ['3'],
  'readiness.status.sidecar.istio.io/applicationPorts': ['8080', '80,8080', ''],
  'prometheus.io/scrape': ['true', 'false'],
  'prometheus.io/port': ['9090', '8080', '15090', 'abc'],
  'prometheus.istio.io/scrape-targets': ['8080:/metrics,9100:/custom', '9100', ' 9102 : /m ', '15021:/x', ':/no-port', '70000'],
  'prometheus.io/path': ['/metrics', '/stats'],
  'prometheus.istio.io/merge-metrics': ['false', 'true'],
  'kubectl.kubernetes.io/default-container': ['app', 'web'],
  'kubectl.kubernetes.io/default-logs-container': ['app'],
  'inject.istio.io/templates': ['sidecar', 'grpc-agent'],
  'istio.io/rev': ['default'],
  'example.com/team': ['payments'],
};
const ANNOTATION_KEYS = Object.keys(ANNOTATION_VALUES);

const annotationEntry: fc.Arbitrary<[string, string]> = fc
  .constantFrom(...ANNOTATION_KEYS)
  .chain((k) => fc.constantFrom(...ANNOTATION_VALUES[k]).map((v): [string, string] => [k, v]));
const annotations = fc.uniqueArray(annotationEntry, { maxLength: 5, selector: (e) => e[0] }).map((es) => Object.fromEntries(es) as JsonObject);

const labelEntry: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.constantFrom<[string, string]>(
    ['sidecar.istio.io/inject', 'true'],
    ['sidecar.istio.io/inject', 'false'],
    ['istio.io/rev', 'default'],
    ['version', 'v2'],
    ['service.istio.io/canonical-name', 'shop'],
    ['app.kubernetes.io/name', 'shop'],
    ['security.istio.io/tlsMode', 'istio'],
  ),
  fc.constantFrom('tier', 'team').map((k): [string, string] => [k, 'backend']),
);
const labels = fc.uniqueArray(labelEntry, { maxLength: 3, selector: (e) => e[0] }).map((es) => Object.fromEntries(es) as JsonObject);

/** A pod spec (and the template metadata that goes with it). */
const podSpecArbitrary: fc.Arbitrary<{ spec: JsonObject; labels: JsonObject; annotations: JsonObject }> = fc
  .record({
    volumes: fc.subarray(['data', 'config', 'cache', 'secrets'], { maxLength: 3 }),
    containerNames: fc.uniqueArray(fc.constantFrom(...CONTAINER_NAMES), { minLength: 1, maxLength: 3 }),
    initNames: fc.uniqueArray(fc.constantFrom(...INIT_NAMES), { maxLength: 2 }),
    nativeSidecar: fc.boolean().chain((b) => (b ? fc.constantFrom('log-agent', 'vault-agent') : fc.constant(undefined))),
  })
  .chain(({ volumes, containerNames, initNames, nativeSidecar }) =>
    fc.record({
      containers: fc.tuple(...containerNames.map((n) => containerArb(n, volumes, false))),
      initContainers: fc.tuple(...initNames.map((n) => containerArb(n, volumes, true))),
      native: nativeSidecar === undefined ? fc.constant(undefined) : containerArb(nativeSidecar, volumes, false),
      hostNetwork: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.boolean() }),
      serviceAccountName: opt(fc.constantFrom('default', 'shop-api')),
      podSecurityContext: opt(
        fc.record({ runAsUser: fc.constantFrom(1000, 1337), fsGroup: fc.constantFrom(1000, 2000), runAsNonRoot: fc.boolean() }, { requiredKeys: [] }),
      ),
      restartPolicy: opt(fc.constantFrom('Always', 'OnFailure'), 6),
      terminationGracePeriodSeconds: opt(fc.constantFrom(0, 30, 60)),
      nodeName: opt(fc.constant('node-1'), 8),
      imagePullSecrets: opt(fc.constant([{ name: 'regcred' }]), 6),
      labels,
      annotations,
      app: fc.constantFrom('shop', 'cart', 'payments'),
      volumes: fc.constant(volumes),
    }),
  )
  .map((r) => {
    const inits: JsonObject[] = [...r.initContainers];
    // A native sidecar (restartPolicy: Always) sits among the init containers, before the others.
    if (r.native !== undefined) inits.splice(0, 0, { ...r.native, restartPolicy: 'Always' });
    const volumeDefs = r.volumes.map(
      (v): JsonObject =>
        v === 'config'
          ? { name: v, configMap: { name: 'app-config' } }
          : v === 'secrets'
            ? { name: v, secret: { secretName: 'app-secrets' } }
            : { name: v, emptyDir: v === 'cache' ? { medium: 'Memory', sizeLimit: '64Mi' } : {} },
    );
    const spec = obj([
      ['hostNetwork', r.hostNetwork],
      ['serviceAccountName', r.serviceAccountName],
      ['securityContext', r.podSecurityContext as JsonObject | undefined],
      ['terminationGracePeriodSeconds', r.terminationGracePeriodSeconds],
      ['nodeName', r.nodeName],
      ['imagePullSecrets', r.imagePullSecrets as JsonValue | undefined],
      ['initContainers', inits.length > 0 ? inits : undefined],
      ['containers', [...r.containers]],
      ['volumes', volumeDefs.length > 0 ? volumeDefs : undefined],
    ]);
    return { spec, labels: { app: r.app, ...r.labels }, annotations: r.annotations };
  });

/** Where the workload lives: none (kube-inject's default), an app namespace, or a system one Istio never injects. */
const namespace = fc.oneof(
  { weight: 5, arbitrary: fc.constant(undefined) },
  { weight: 5, arbitrary: fc.constantFrom('default', 'shop') },
  { weight: 1, arbitrary: fc.constantFrom('kube-system', 'kube-public') },
);

/**
 * One workload document, named `w<index>` afterwards by the caller (names must be unique within
 * a batch so outputs can be matched to inputs).
 */
const workloadArbitrary: fc.Arbitrary<JsonObject> = fc
  .record({
    kind: fc.constantFrom('Pod', 'Pod', 'Deployment', 'Deployment', 'StatefulSet', 'Job', 'DaemonSet'),
    ns: namespace,
    pod: podSpecArbitrary,
    topAnnotations: opt(annotations, 6),
  })
  .map(({ kind, ns, pod, topAnnotations }) => {
    const meta = obj([
      ['name', 'w'],
      ['namespace', ns],
      ['labels', { app: pod.labels.app }],
      ['annotations', topAnnotations],
    ]);
    const podMeta = obj([
      ['labels', pod.labels],
      ['annotations', Object.keys(pod.annotations).length > 0 ? pod.annotations : undefined],
    ]);
    if (kind === 'Pod') {
      return {
        apiVersion: 'v1',
        kind,
        metadata: {
          ...meta,
          labels: pod.labels,
          ...(podMeta.annotations !== undefined ? { annotations: { ...(topAnnotations ?? {}), ...(podMeta.annotations as JsonObject) } } : {}),
        },
        spec: pod.spec,
      };
    }
    const template = { metadata: podMeta, spec: kind === 'Job' ? { ...pod.spec, restartPolicy: 'OnFailure' } : pod.spec };
    const selector = { matchLabels: { app: pod.labels.app } };
    const apiVersion = kind === 'Job' ? 'batch/v1' : 'apps/v1';
    const spec: JsonObject =
      kind === 'Job'
        ? { template }
        : kind === 'Deployment'
          ? { replicas: 2, selector, template }
          : kind === 'StatefulSet'
            ? { serviceName: 'w', selector, template }
            : { selector, template };
    return { apiVersion, kind, metadata: meta, spec };
  });

/** `n` workloads from a seed, deterministic, named w0..w(n-1). */
export function sampleWorkloads(n: number, seed: number): JsonObject[] {
  return fc.sample(workloadArbitrary, { numRuns: n, seed }).map((w, i) => ({ ...w, metadata: { ...(w.metadata as JsonObject), name: `w${i}` } }));
}
