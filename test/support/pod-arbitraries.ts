/**
 * @module test/support/pod-arbitraries
 * fast-check arbitraries for the webhook fuzzer: pods that a cluster could send (random
 * containers, init containers incl. native sidecars, volumes, labels and annotations whose keys
 * contain `/`, `~`, `__proto__`, `constructor`, unicode; opt-in/opt-out values right and wrong;
 * names that collide with the sidecar's), AdmissionReviews around them, and hostile mutations of
 * those reviews (a field replaced by a wrong type, null, or a large string within the limits).
 * Objects are built with Object.fromEntries, so a `__proto__` key stays an own data property
 * and survives JSON.stringify, as it would arrive from the wire.
 */
import fc from 'fast-check';

type Obj = Record<string, unknown>;

/** Keys that have broken injectors and JSON patch libraries before. */
const AWKWARD_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'a/b',
  'a~b',
  '~1',
  '~0/~1~',
  'example.com/team',
  'app.kubernetes.io/name',
  'ünïcødé/ключ',
  '键',
  '😀',
  'with space',
  '',
  '-',
  '0',
] as const;

const dnsLabel = fc.stringMatching(/^[a-z]([a-z0-9-]{0,14}[a-z0-9])?$/);
const text = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom('{{ .Values.x }}', '${HOME}', '"\n- name: evil', 'true', 'false', 'yes', 'TRUE', '0', '1e6', 'null'),
);
const key = fc.oneof(
  { weight: 3, arbitrary: dnsLabel },
  { weight: 2, arbitrary: fc.constantFrom(...AWKWARD_KEYS) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 16 }) },
);

/** A map of strings as labels and annotations are, with awkward keys, built safely. */
function stringMap(extra: fc.Arbitrary<[string, string]>[] = []): fc.Arbitrary<Obj> {
  const entry = fc.tuple(key, text);
  return fc
    .tuple(fc.array(entry, { maxLength: 6 }), ...extra.map((e) => fc.option(e, { nil: undefined })))
    .map(([entries, ...more]) => Object.fromEntries([...entries, ...more.filter((m): m is [string, string] => m !== undefined)]));
}

const port = fc.integer({ min: 1, max: 65535 });

function containerArb(name: string): fc.Arbitrary<Obj> {
  return fc
    .record(
      {
        image: fc.oneof(fc.constant('nginx:1.27'), fc.string({ maxLength: 30 })),
        args: fc.array(text, { maxLength: 3 }),
        ports: fc.uniqueArray(fc.record({ containerPort: port, protocol: fc.constantFrom('TCP', 'UDP') }), {
          maxLength: 3,
          selector: (p) => `${p.containerPort}/${p.protocol}`,
        }),
        env: fc.array(fc.record({ name: fc.oneof(dnsLabel, fc.constantFrom('__proto__', 'A~B', 'X/Y')), value: text }), { maxLength: 4 }),
        resources: fc.record({
          requests: fc.record({ cpu: fc.constantFrom('10m', '1', '0.5'), memory: fc.constantFrom('64Mi', '1Gi') }, { requiredKeys: [] }),
        }),
        securityContext: fc.record({ runAsUser: fc.integer({ min: 0, max: 65535 }), runAsNonRoot: fc.boolean() }, { requiredKeys: [] }),
        readinessProbe: fc.record({ httpGet: fc.record({ path: fc.constantFrom('/ready', '/'), port }) }),
        restartPolicy: fc.constant('Always'),
      },
      { requiredKeys: ['image'] },
    )
    .map((c) => Object.fromEntries([['name', name], ...Object.entries(c)]));
}

/** Names a sidecar template is likely to use: collisions must be handled (override or deny), never duplicated. */
const SIDECAR_NAMES = ['sidecar-proxy', 'proxy-init', 'istio-proxy', 'istio-init', 'log-shipper', 'nginx'];
const containerName = fc.oneof({ weight: 6, arbitrary: dnsLabel }, { weight: 1, arbitrary: fc.constantFrom(...SIDECAR_NAMES) });

export interface PodOptions {
  /** Label or annotation keys that opt a pod in or out (the configs' inject keys). */
  injectKeys: string[];
}

/** A pod as a cluster could send it: structurally valid (names unique), contents arbitrary. */
function podArbitrary(options: PodOptions): fc.Arbitrary<Obj> {
  // Mostly "true", so most pods reach the injection path; the rest are the wrong spellings.
  const optIn = fc.tuple(
    fc.constantFrom(...options.injectKeys),
    fc.oneof({ weight: 6, arbitrary: fc.constant('true') }, { weight: 1, arbitrary: fc.constantFrom('false', 'yes', 'TRUE', 'enabled', '') }),
  );
  const istioAnnotation = fc.oneof(
    fc.tuple(fc.constant('sidecar.istio.io/proxyCPU'), fc.constantFrom('100m', '2', '0.5')),
    fc.tuple(fc.constant('sidecar.istio.io/interceptionMode'), fc.constantFrom('REDIRECT', 'TPROXY', 'NONE')),
    fc.tuple(fc.constant('traffic.sidecar.istio.io/includeInboundPorts'), fc.constantFrom('*', '8080,9090', '')),
    fc.tuple(fc.constant('sidecar.istio.io/nativeSidecar'), fc.constantFrom('true', 'false')),
    fc.tuple(fc.constantFrom('sidecar.istio.io/proxyCPU', 'sidecar.istio.io/interceptionMode', 'traffic.sidecar.istio.io/includeInboundPorts'), text),
  );
  const names = fc.uniqueArray(containerName, { minLength: 1, maxLength: 6 });
  return fc
    .record({
      names,
      initCount: fc.nat({ max: 2 }),
      volumes: fc.uniqueArray(fc.oneof(dnsLabel, fc.constantFrom('sidecar-proxy-workdir', 'istio-envoy', 'logs')), { maxLength: 4 }),
      labels: fc.option(stringMap([optIn]), { nil: null, freq: 8 }),
      annotations: fc.option(stringMap([optIn, istioAnnotation]), { nil: null, freq: 8 }),
      podName: fc.option(dnsLabel, { nil: undefined }),
      namespace: fc.option(fc.oneof(dnsLabel, fc.constantFrom('kube-system', 'default')), { nil: undefined }),
      hostNetwork: fc.option(fc.boolean(), { nil: undefined, freq: 6 }),
      initNull: fc.boolean(),
      seed: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
      specs: fc.array(containerArb('x'), { minLength: 8, maxLength: 8 }),
    })
    .map((r) => {
      const split = Math.max(1, r.names.length - r.initCount);
      const containers = r.names.slice(0, split).map((n, i) => ({ ...withoutRestart(r.specs[i]), name: n }));
      const inits = r.names.slice(split).map((n, i) => ({ ...(r.seed[i] % 2 === 0 ? withoutRestart(r.specs[split + i]) : r.specs[split + i]), name: n }));
      const entries: [string, unknown][] = [['generateName', 'fuzz-']];
      if (r.podName !== undefined) entries.push(['name', r.podName]);
      if (r.namespace !== undefined) entries.push(['namespace', r.namespace]);
      entries.push(['labels', r.labels], ['annotations', r.annotations]);
      const metadata: Obj = Object.fromEntries(entries);
      const spec: Obj = { containers, volumes: r.volumes.map((name, i) => (i % 2 === 0 ? { name, emptyDir: {} } : { name, configMap: { name } })) };
      if (inits.length > 0) spec.initContainers = inits;
      else if (r.initNull) spec.initContainers = null;
      if (r.hostNetwork !== undefined) spec.hostNetwork = r.hostNetwork;
      return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
    });
}

function withoutRestart(c: Obj): Obj {
  const { restartPolicy: _r, ...rest } = c;
  return rest;
}

/** An AdmissionReview (v1 or v1beta1) for a Pod CREATE around `pod`. */
function reviewFor(pod: unknown, uid: string, namespace: string, apiVersion = 'admission.k8s.io/v1', extra: Obj = {}): Obj {
  return {
    apiVersion,
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace,
      operation: 'CREATE',
      userInfo: { username: 'fuzz' },
      object: pod,
      oldObject: null,
      dryRun: false,
      ...extra,
    },
  };
}

export const validReviewArbitrary = (options: PodOptions): fc.Arbitrary<Obj> =>
  fc
    .record({
      pod: podArbitrary(options),
      uid: fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 40 })),
      namespace: fc.oneof(dnsLabel, fc.constantFrom('kube-system', 'default', '')),
      apiVersion: fc.constantFrom('admission.k8s.io/v1', 'admission.k8s.io/v1beta1'),
      dryRun: fc.boolean(),
    })
    .map((r) => reviewFor(r.pod, r.uid, r.namespace, r.apiVersion, { dryRun: r.dryRun }));

/** Where a hostile mutation may strike (a path into the review). */
const HOSTILE_PATHS: string[][] = [
  ['apiVersion'],
  ['kind'],
  ['request'],
  ['request', 'uid'],
  ['request', 'kind'],
  ['request', 'operation'],
  ['request', 'namespace'],
  ['request', 'dryRun'],
  ['request', 'subResource'],
  ['request', 'object'],
  ['request', 'object', 'metadata'],
  ['request', 'object', 'metadata', 'labels'],
  ['request', 'object', 'metadata', 'annotations'],
  ['request', 'object', 'metadata', 'name'],
  ['request', 'object', 'metadata', 'namespace'],
  ['request', 'object', 'spec'],
  ['request', 'object', 'spec', 'containers'],
  ['request', 'object', 'spec', 'containers', '0'],
  ['request', 'object', 'spec', 'containers', '0', 'name'],
  ['request', 'object', 'spec', 'containers', '0', 'ports'],
  ['request', 'object', 'spec', 'containers', '0', 'env'],
  ['request', 'object', 'spec', 'initContainers'],
  ['request', 'object', 'spec', 'volumes'],
  ['request', 'object', 'spec', 'hostNetwork'],
];

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 20 }),
  fc.constant([]),
  fc.constant({}),
  fc.jsonValue({ maxDepth: 3 }),
  // Large but within the body limit: 64 KiB to 1 MiB of text.
  fc.integer({ min: 64, max: 1024 }).map((k) => 'x'.repeat(k * 1024)),
);

/** Replace the value at `path` (creating nothing: a missing parent leaves the review as is). */
function mutateAt(review: Obj, path: string[], value: unknown): Obj {
  const copy = JSON.parse(JSON.stringify(review)) as Obj;
  let cur: unknown = copy;
  for (let i = 0; i < path.length - 1; i++) {
    if (cur === null || typeof cur !== 'object') return copy;
    cur = (cur as Obj)[path[i]];
  }
  if (cur === null || typeof cur !== 'object') return copy;
  const last = path[path.length - 1];
  if (value === undefined) delete (cur as Obj)[last];
  else Object.defineProperty(cur, last, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

export const hostileReviewArbitrary = (options: PodOptions): fc.Arbitrary<Obj> =>
  fc
    .tuple(validReviewArbitrary(options), fc.array(fc.tuple(fc.constantFrom(...HOSTILE_PATHS), wrongValue), { minLength: 1, maxLength: 3 }))
    .map(([review, hits]) => hits.reduce((r, [path, value]) => mutateAt(r, path, value), review));
