/**
 * @module bench/fixtures
 * The benchmark's inputs, generated deterministically (no randomness, fixed uids) so every run
 * and every machine measures the same bytes: AdmissionReviews F1-F5 as the apiserver sends them
 * (compact JSON) and the M200/M1000 manifests for the CLI.
 *
 * - F1: a small pod (~6 KB: two containers, probes, env, a projected token volume,
 *   managedFields), opted in with the `sidecar.istio.io/inject: "true"` label: injected.
 * - F2: a large pod (20 containers, ~40 KB): injected.
 * - F3: F1 with 2,000 env vars on its first container (Istio's O(n^2) trap): injected.
 * - F4: F1 opted out (`sidecar.istio.io/inject: "false"`): skipped, the fast path.
 * - F5: F1 already injected by the built-in config (the F1 patch applied): empty patch.
 *
 * Variant sets, for "every pod new" (issue 18): one request body repeated would let every cache
 * inside the server (the parsed-overlay cache, a render memo) hit on every request, so those rows
 * cycle through many different pods instead (`variantBodies`, `writeVariants`):
 * - F1-new, F2-new: N distinct workloads shaped like F1 / F2 (about the same size): each its own
 *   ReplicaSet (owner name and uid, generateName, pod-template-hash), app and version labels,
 *   container names, images, ports, annotations, service account and config map, and its own
 *   request uid. Any template reading names, labels, containers or annotations renders
 *   differently for each.
 * - F1-daemonset: N pods of one DaemonSet built from F1, identical except the node affinity the
 *   DaemonSet controller sets per node (matchFields metadata.name In [node-i]) and the request
 *   uid, as in a real cluster: the result cache misses (the pods differ), while a memo of what
 *   templates read may rightly hit (templates do not read affinity).
 *
 *   npx tsx bench/fixtures.ts [--out DIR] [--variants N]
 *     writes f1.json ... f5.json, m200.yaml, m1000.yaml, and N bodies per variant set
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateManifest } from '../test/support/manifest-fixtures.js';
import type { StatusKeyring } from '../src/inject/status-mac.js';

export type FixtureName = 'F1' | 'F2' | 'F3' | 'F4' | 'F5';
export const FIXTURE_NAMES: readonly FixtureName[] = ['F1', 'F2', 'F3', 'F4', 'F5'];

type Obj = Record<string, unknown>;

const NAMESPACE = 'shop';
const INJECT_LABEL = 'sidecar.istio.io/inject';

/** One application container; `i` varies names, ports and sizes so no two are alike. */
function container(i: number, name: string, w: Workload = CHECKOUT): Obj {
  const port = w.port + i;
  return {
    name,
    image: `registry.example.com/shop/${name}:${w.imageMajor}.${i}.${i % 7}`,
    imagePullPolicy: 'IfNotPresent',
    args: ['--port', String(port), '--log-format=json', `--config=/etc/${name}/config.yaml`],
    ports: [
      { name: 'http', containerPort: port, protocol: 'TCP' },
      { name: 'metrics', containerPort: port + 1010, protocol: 'TCP' },
    ],
    env: [
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'SERVICE_NAME', value: name },
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      { name: 'POD_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
      { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: `${name}-db`, key: 'password' } } },
    ],
    resources: { requests: { cpu: `${100 + i * 10}m`, memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
    readinessProbe: {
      httpGet: { path: '/ready', port, scheme: 'HTTP' },
      initialDelaySeconds: 5,
      periodSeconds: 10,
      timeoutSeconds: 1,
      successThreshold: 1,
      failureThreshold: 3,
    },
    livenessProbe: { httpGet: { path: '/healthz', port, scheme: 'HTTP' }, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
    volumeMounts: [
      { name: 'config', mountPath: `/etc/${name}`, readOnly: true },
      { name: `kube-api-access-${w.tokenSuffix}`, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
    ],
    securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
  };
}

/** managedFields as the kube-controller-manager writes them for the containers' fields. */
function managedFields(names: string[], w: Workload = CHECKOUT): Obj[] {
  const containers: Obj = {};
  for (const n of names) {
    containers[`k:{"name":"${n}"}`] = {
      '.': {},
      'f:args': {},
      'f:env': {
        '.': {},
        'k:{"name":"LOG_LEVEL"}': { '.': {}, 'f:name': {}, 'f:value': {} },
        'k:{"name":"POD_NAME"}': { '.': {}, 'f:name': {}, 'f:valueFrom': { '.': {}, 'f:fieldRef': {} } },
      },
      'f:image': {},
      'f:imagePullPolicy': {},
      'f:livenessProbe': { '.': {}, 'f:httpGet': { '.': {}, 'f:path': {}, 'f:port': {}, 'f:scheme': {} } },
      'f:name': {},
      'f:ports': { '.': {}, [`k:{"containerPort":${w.port},"protocol":"TCP"}`]: { '.': {}, 'f:containerPort': {}, 'f:name': {}, 'f:protocol': {} } },
      'f:resources': { '.': {}, 'f:limits': { '.': {}, 'f:cpu': {}, 'f:memory': {} }, 'f:requests': { '.': {}, 'f:cpu': {}, 'f:memory': {} } },
    };
  }
  return [
    {
      manager: 'kube-controller-manager',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-11-22T08:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': {
          'f:generateName': {},
          'f:labels': { '.': {}, 'f:app': {}, [`f:${w.hashLabel}`]: {} },
          'f:ownerReferences': { '.': {}, [`k:{"uid":"${w.ownerUid}"}`]: {} },
        },
        'f:spec': {
          'f:containers': containers,
          'f:dnsPolicy': {},
          'f:enableServiceLinks': {},
          'f:restartPolicy': {},
          'f:schedulerName': {},
          'f:securityContext': {},
          'f:terminationGracePeriodSeconds': {},
        },
      },
    },
  ];
}

/**
 * What differs between workloads: the owner (a Deployment's ReplicaSet, or a DaemonSet) and what
 * its pod template says. `CHECKOUT` is F1-F5's; `distinctWorkload` makes others.
 */
export interface Workload {
  /** The app: the app label, the first container, the service account and config map. */
  app: string;
  ownerKind: 'ReplicaSet' | 'DaemonSet';
  /** The owner's name (a ReplicaSet's is app-hash; a DaemonSet's is the app). */
  ownerName: string;
  ownerUid: string;
  /** metadata.generateName: the owner's name and a dash. */
  generateName: string;
  /** pod-template-hash (ReplicaSet) or controller-revision-hash (DaemonSet) label. */
  hashLabel: 'pod-template-hash' | 'controller-revision-hash';
  hash: string;
  version: string;
  /** The first container's port (http); the others follow, metrics 1010 above. */
  port: number;
  imageMajor: number;
  restartedAt: string;
  /** The projected service-account token volume's random suffix (kube-api-access-xxxxx). */
  tokenSuffix: string;
  /** A DaemonSet's pod: pinned to this node by the controller's node affinity. */
  node?: string;
}

export const CHECKOUT: Workload = {
  app: 'checkout',
  ownerKind: 'ReplicaSet',
  ownerName: 'checkout-5c7b9d8f6',
  ownerUid: '6f1c2e1e-1111-4a4a-9b9b-000000000001',
  generateName: 'checkout-5c7b9d8f6-',
  hashLabel: 'pod-template-hash',
  hash: '5c7b9d8f6',
  version: 'v2',
  port: 8080,
  imageMajor: 1,
  restartedAt: '2026-11-20T10:00:00Z',
  tokenSuffix: 'x7k2p',
};

/** A pod as the apiserver has it at admission time (defaults filled in, no status yet). */
export function benchPod(containerNames: string[], injectLabel: 'true' | 'false' = 'true', w: Workload = CHECKOUT): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: w.generateName,
      namespace: NAMESPACE,
      labels:
        w.ownerKind === 'DaemonSet'
          ? { app: w.app, [w.hashLabel]: w.hash, 'pod-template-generation': '1', version: w.version, [INJECT_LABEL]: injectLabel }
          : { app: w.app, [w.hashLabel]: w.hash, version: w.version, [INJECT_LABEL]: injectLabel },
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(w.port + 1010), 'kubectl.kubernetes.io/restartedAt': w.restartedAt },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: w.ownerKind, name: w.ownerName, uid: w.ownerUid, controller: true, blockOwnerDeletion: true }],
      managedFields: managedFields(containerNames, w),
    },
    spec: {
      containers: containerNames.map((n, i) => container(i, n, w)),
      volumes: [
        { name: 'config', configMap: { name: `${w.app}-config`, defaultMode: 420 } },
        {
          name: `kube-api-access-${w.tokenSuffix}`,
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
            ],
          },
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: w.app,
      serviceAccount: w.app,
      securityContext: { runAsUser: 1000, fsGroup: 2000 },
      ...(w.node !== undefined ? { affinity: nodeAffinity(w.node) } : {}),
      schedulerName: 'default-scheduler',
      tolerations:
        w.ownerKind === 'DaemonSet'
          ? DAEMONSET_TOLERATIONS
          : [
              { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
              { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
            ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
  };
}

/** The node affinity the DaemonSet controller gives each of its pods (one node each). */
function nodeAffinity(node: string): Obj {
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
    },
  };
}

/** The tolerations the DaemonSet controller adds to its pods. */
const DAEMONSET_TOLERATIONS: Obj[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

/** An AdmissionReview v1 for a Pod CREATE, as the apiserver sends it. */
export function benchReview(pod: unknown, uid: string, username = 'system:serviceaccount:kube-system:replicaset-controller'): Obj {
  const gvk = { group: '', version: 'v1', kind: 'Pod' };
  const gvr = { group: '', version: 'v1', resource: 'pods' };
  return {
    kind: 'AdmissionReview',
    apiVersion: 'admission.k8s.io/v1',
    request: {
      uid,
      kind: gvk,
      resource: gvr,
      requestKind: gvk,
      requestResource: gvr,
      namespace: NAMESPACE,
      operation: 'CREATE',
      userInfo: {
        username,
        uid: '9c8a1f0e-2222-4b4b-8c8c-000000000002',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
      },
      object: pod,
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    },
  };
}

export const F1_CONTAINERS = ['checkout', 'log-shipper'];
export const F2_CONTAINERS = Array.from({ length: 20 }, (_, i) => `worker-${String(i).padStart(2, '0')}`);

function uid(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

export function podF1(): Obj {
  return benchPod(F1_CONTAINERS);
}

export function podF2(): Obj {
  return benchPod(F2_CONTAINERS);
}

export function podF3(): Obj {
  const pod = benchPod(F1_CONTAINERS);
  const first = ((pod.spec as Obj).containers as Obj[])[0];
  first.env = Array.from({ length: 2000 }, (_, i) => ({ name: `SETTING_${i}`, value: `value-${i}` }));
  return pod;
}

export function podF4(): Obj {
  return benchPod(F1_CONTAINERS, 'false');
}

/** Deterministic bytes for a seed (no randomness: every run and machine sends the same bodies). */
function digest(seed: string): Buffer {
  return createHash('sha256').update(seed).digest();
}

/** A uuid (version 4 layout) derived from a seed. */
export function seededUid(seed: string): string {
  const h = digest(seed).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16], 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Kubernetes' SafeEncodeString alphabet (pod-template-hash, generated name suffixes). */
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

function safeString(seed: string, length: number): string {
  const d = digest(seed);
  let out = '';
  for (let i = 0; i < length; i++) out += SAFE[d[i] % SAFE.length];
  return out;
}

/** Service names for the distinct workloads (a suffix per workload makes each unique). */
const APPS = [
  'cart',
  'catalog',
  'payments',
  'search',
  'shipping',
  'orders',
  'reviews',
  'pricing',
  'invoice',
  'profile',
  'auth',
  'inventory',
  'ledger',
  'notify',
  'ratings',
  'frontend',
];
/** The second container of an F1-shaped workload. */
const HELPERS = ['log-shipper', 'metrics-agent', 'cfg-reloader', 'cache-warmer', 'trace-agent', 'db-proxy'];

/** Workload `i` of a fixture's distinct set: its own ReplicaSet, labels, ports, images. */
export function distinctWorkload(fixture: 'F1' | 'F2', i: number): Workload {
  const app = `${APPS[i % APPS.length]}-${i.toString(36).padStart(2, '0')}`;
  const hash = safeString(`${fixture}/${i}/hash`, 9 + (i % 2));
  return {
    app,
    ownerKind: 'ReplicaSet',
    ownerName: `${app}-${hash}`,
    ownerUid: seededUid(`${fixture}/${i}/owner`),
    generateName: `${app}-${hash}-`,
    hashLabel: 'pod-template-hash',
    hash,
    version: `v${1 + (i % 5)}`,
    port: 3000 + ((i * 37) % 5000),
    imageMajor: 1 + (i % 9),
    restartedAt: new Date(Date.UTC(2026, 10, 1) + i * 997_000).toISOString().replace('.000Z', 'Z'),
    tokenSuffix: safeString(`${fixture}/${i}/token`, 5),
  };
}

/** The containers of workload `i`: named after it (F1: the app and a helper; F2: 20 workers of it, names unique to it). */
export function distinctContainers(fixture: 'F1' | 'F2', w: Workload, i: number): string[] {
  if (fixture === 'F1') return [w.app, HELPERS[i % HELPERS.length]];
  // As long as F2's worker-NN, and unique to the workload (its index in base 36).
  const stem = `${APPS[i % APPS.length].slice(0, 4)}${i.toString(36).padStart(2, '0')}`;
  return Array.from({ length: 20 }, (_, k) => `${stem}-${String(k).padStart(2, '0')}`);
}

/** The pods of one DaemonSet built from F1: the same except the node each is pinned to. */
export function daemonSetWorkload(i: number): Workload {
  return {
    ...CHECKOUT,
    ownerKind: 'DaemonSet',
    ownerName: 'checkout',
    generateName: 'checkout-',
    hashLabel: 'controller-revision-hash',
    hash: '6d4b9c7f8',
    node: `node-${String(i).padStart(4, '0')}`,
  };
}

export type VariantSet = 'F1-new' | 'F2-new' | 'F1-daemonset';
export const VARIANT_SETS: readonly VariantSet[] = ['F1-new', 'F2-new', 'F1-daemonset'];
export const DEFAULT_VARIANTS = 512;
/** The every-pod-new variant set of a fixture (F3-F5 have none: they are one special pod each). */
export const NEW_SET: Partial<Record<FixtureName, VariantSet>> = { F1: 'F1-new', F2: 'F2-new' };

/** What each set sends, for the report and README. */
export const VARIANT_DESCRIPTIONS: Record<VariantSet, string> = {
  'F1-new':
    'distinct F1-sized workloads (each its own ReplicaSet owner name and uid, generateName, pod-template-hash, app and version labels, container names, images, ports, annotations, service account and config map; its own request uid)',
  'F2-new': 'distinct F2-sized workloads (20 containers each; names, owner, labels, images, ports and annotations differ per workload; its own request uid)',
  'F1-daemonset': 'pods of one DaemonSet built from F1, identical except the node affinity (matchFields metadata.name In [node-i]) and the request uid',
};

/** Pod `i` of a variant set. */
export function variantPod(set: VariantSet, i: number): Obj {
  if (set === 'F1-daemonset') return benchPod(F1_CONTAINERS, 'true', daemonSetWorkload(i));
  const fixture = set === 'F1-new' ? 'F1' : 'F2';
  const w = distinctWorkload(fixture, i);
  return benchPod(distinctContainers(fixture, w, i), 'true', w);
}

/** The review uid of variant `i` (each request its own, as the apiserver sends). */
export function variantUid(set: VariantSet, i: number): string {
  return seededUid(`${set}/${i}/request`);
}

/** `n` review bodies of a variant set, deterministic: the same bytes on every run. */
export function variantBodies(set: VariantSet, n: number = DEFAULT_VARIANTS): Buffer[] {
  const user = set === 'F1-daemonset' ? 'system:serviceaccount:kube-system:daemon-set-controller' : undefined;
  return Array.from({ length: n }, (_, i) => Buffer.from(JSON.stringify(benchReview(variantPod(set, i), variantUid(set, i), user))));
}

export interface VariantFiles {
  set: VariantSet;
  /** One body file per line, in the order they are sent. */
  listFile: string;
  files: string[];
  uids: string[];
  bytes: number[];
}

/** Write `n` bodies of each set under `dir/<set>/` with a list file `dir/<set>.list`. */
export function writeVariants(dir: string, n: number = DEFAULT_VARIANTS): Record<VariantSet, VariantFiles> {
  const out = {} as Record<VariantSet, VariantFiles>;
  for (const set of VARIANT_SETS) {
    const sub = join(dir, set.toLowerCase());
    mkdirSync(sub, { recursive: true });
    const bodies = variantBodies(set, n);
    const files = bodies.map((b, i) => {
      const f = join(sub, `${String(i).padStart(4, '0')}.json`);
      writeFileSync(f, b);
      return f;
    });
    const listFile = join(dir, `${set.toLowerCase()}.list`);
    writeFileSync(listFile, `${files.join('\n')}\n`);
    out[set] = { set, listFile, files, uids: bodies.map((_, i) => variantUid(set, i)), bytes: bodies.map((b) => b.length) };
  }
  return out;
}

/**
 * F1 as the webhook left it: the patch of the given core applied. Built at run time from the
 * core under test (an injected pod is whatever the current core and built-in config make).
 */
export async function podF5(statusKeys?: StatusKeyring): Promise<Obj> {
  const { injectPod } = await import('../src/inject/index.js');
  const { defaultConfig } = await import('../src/profiles/index.js');
  const { applyPatch } = await import('../src/patch/index.js');
  const original = podF1();
  const result = injectPod(original, { namespace: NAMESPACE, mode: 'webhook', ...(statusKeys !== undefined ? { statusKeys } : {}) }, defaultConfig());
  if (result.kind !== 'injected') throw new Error(`F1 was not injected by the built-in config (${result.decision.reason}); the fixtures need updating`);
  return applyPatch(original, result.patch) as Obj;
}

/**
 * The review bodies. F5's status annotation is signed with `statusKeys` when given: a server
 * trusts (and so leaves alone) only a status signed with its own key, derived from its TLS key.
 */
export async function reviewBodies(statusKeys?: StatusKeyring): Promise<Record<FixtureName, Buffer>> {
  const body = (pod: unknown, n: number): Buffer => Buffer.from(JSON.stringify(benchReview(pod, uid(n))));
  return { F1: body(podF1(), 1), F2: body(podF2(), 2), F3: body(podF3(), 3), F4: body(podF4(), 4), F5: body(await podF5(statusKeys), 5) };
}

/** The status keys of a server serving the key in `keyFile` (PEM), for F5. */
export async function serverStatusKeys(keyFile: string): Promise<StatusKeyring> {
  const { StatusKeys, statusKeyFromTlsKey } = await import('../src/inject/status-mac.js');
  const keys = new StatusKeys();
  keys.rotate(statusKeyFromTlsKey(readFileSync(keyFile, 'utf8')));
  return keys;
}

export interface FixtureFiles {
  dir: string;
  reviews: Record<FixtureName, string>;
  sizes: Record<FixtureName, number>;
  m200: string;
  m1000: string;
}

/** Write every fixture into `dir` and return the paths. */
export async function writeFixtures(dir: string, statusKeys?: StatusKeyring): Promise<FixtureFiles> {
  mkdirSync(dir, { recursive: true });
  const bodies = await reviewBodies(statusKeys);
  const reviews = {} as Record<FixtureName, string>;
  const sizes = {} as Record<FixtureName, number>;
  for (const name of FIXTURE_NAMES) {
    reviews[name] = join(dir, `${name.toLowerCase()}.json`);
    sizes[name] = bodies[name].length;
    writeFileSync(reviews[name], bodies[name]);
  }
  const m200 = join(dir, 'm200.yaml');
  const m1000 = join(dir, 'm1000.yaml');
  writeFileSync(m200, generateManifest(200));
  writeFileSync(m1000, generateManifest(1000));
  return { dir, reviews, sizes, m200, m1000 };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const i = process.argv.indexOf('--out');
  const dir = i > 0 ? process.argv[i + 1] : join(process.cwd(), '.bench-tmp', 'fixtures');
  const v = process.argv.indexOf('--variants');
  const files = await writeFixtures(dir);
  for (const name of FIXTURE_NAMES) console.log(`${name} ${files.sizes[name].toString().padStart(7)} B  ${files.reviews[name]}`);
  console.log(`M200  ${files.m200}\nM1000 ${files.m1000}`);
  const sets = writeVariants(dir, v > 0 ? Number(process.argv[v + 1]) : DEFAULT_VARIANTS);
  for (const x of Object.values(sets)) console.log(`${x.set} ${x.files.length} bodies, ${Math.min(...x.bytes)}-${Math.max(...x.bytes)} B  ${x.listFile}`);
}
