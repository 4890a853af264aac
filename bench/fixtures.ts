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
 *   npx tsx bench/fixtures.ts [--out DIR]     writes f1.json ... f5.json, m200.yaml, m1000.yaml
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateManifest } from '../src/testing/manifest-fixtures.js';
import type { StatusKeyring } from '../src/inject/status-mac.js';

export type FixtureName = 'F1' | 'F2' | 'F3' | 'F4' | 'F5';
export const FIXTURE_NAMES: readonly FixtureName[] = ['F1', 'F2', 'F3', 'F4', 'F5'];

type Obj = Record<string, unknown>;

const NAMESPACE = 'shop';
const INJECT_LABEL = 'sidecar.istio.io/inject';

/** One application container; `i` varies names, ports and sizes so no two are alike. */
function container(i: number, name: string): Obj {
  return {
    name,
    image: `registry.example.com/shop/${name}:1.${i}.${i % 7}`,
    imagePullPolicy: 'IfNotPresent',
    args: ['--port', String(8080 + i), '--log-format=json', `--config=/etc/${name}/config.yaml`],
    ports: [
      { name: 'http', containerPort: 8080 + i, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9090 + i, protocol: 'TCP' },
    ],
    env: [
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'SERVICE_NAME', value: name },
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      { name: 'POD_IP', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } } },
      { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: `${name}-db`, key: 'password' } } },
    ],
    resources: { requests: { cpu: `${100 + i * 10}m`, memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
    readinessProbe: { httpGet: { path: '/ready', port: 8080 + i, scheme: 'HTTP' }, initialDelaySeconds: 5, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
    livenessProbe: { httpGet: { path: '/healthz', port: 8080 + i, scheme: 'HTTP' }, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
    volumeMounts: [
      { name: 'config', mountPath: `/etc/${name}`, readOnly: true },
      { name: 'kube-api-access-x7k2p', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
    ],
    securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
  };
}

/** managedFields as the kube-controller-manager writes them for the containers' fields. */
function managedFields(names: string[]): Obj[] {
  const containers: Obj = {};
  for (const n of names) {
    containers[`k:{"name":"${n}"}`] = {
      '.': {},
      'f:args': {},
      'f:env': { '.': {}, 'k:{"name":"LOG_LEVEL"}': { '.': {}, 'f:name': {}, 'f:value': {} }, 'k:{"name":"POD_NAME"}': { '.': {}, 'f:name': {}, 'f:valueFrom': { '.': {}, 'f:fieldRef': {} } } },
      'f:image': {},
      'f:imagePullPolicy': {},
      'f:livenessProbe': { '.': {}, 'f:httpGet': { '.': {}, 'f:path': {}, 'f:port': {}, 'f:scheme': {} } },
      'f:name': {},
      'f:ports': { '.': {}, 'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:name': {}, 'f:protocol': {} } },
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
        'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} }, 'f:ownerReferences': { '.': {}, 'k:{"uid":"6f1c2e1e-1111-4a4a-9b9b-000000000001"}': {} } },
        'f:spec': { 'f:containers': containers, 'f:dnsPolicy': {}, 'f:enableServiceLinks': {}, 'f:restartPolicy': {}, 'f:schedulerName': {}, 'f:securityContext': {}, 'f:terminationGracePeriodSeconds': {} },
      },
    },
  ];
}

/** A pod as the apiserver has it at admission time (defaults filled in, no status yet). */
export function benchPod(containerNames: string[], injectLabel: 'true' | 'false' = 'true'): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: 'checkout-5c7b9d8f6-',
      namespace: NAMESPACE,
      labels: { app: 'checkout', 'pod-template-hash': '5c7b9d8f6', version: 'v2', [INJECT_LABEL]: injectLabel },
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090', 'kubectl.kubernetes.io/restartedAt': '2026-11-20T10:00:00Z' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'checkout-5c7b9d8f6', uid: '6f1c2e1e-1111-4a4a-9b9b-000000000001', controller: true, blockOwnerDeletion: true }],
      managedFields: managedFields(containerNames),
    },
    spec: {
      containers: containerNames.map((n, i) => container(i, n)),
      volumes: [
        { name: 'config', configMap: { name: 'checkout-config', defaultMode: 420 } },
        {
          name: 'kube-api-access-x7k2p',
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
      serviceAccountName: 'checkout',
      serviceAccount: 'checkout',
      securityContext: { runAsUser: 1000, fsGroup: 2000 },
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
  };
}

/** An AdmissionReview v1 for a Pod CREATE, as the apiserver sends it. */
export function benchReview(pod: unknown, uid: string): Obj {
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
      userInfo: { username: 'system:serviceaccount:kube-system:replicaset-controller', uid: '9c8a1f0e-2222-4b4b-8c8c-000000000002', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] },
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
  const files = await writeFixtures(dir);
  for (const name of FIXTURE_NAMES) console.log(`${name} ${files.sizes[name].toString().padStart(7)} B  ${files.reviews[name]}`);
  console.log(`M200  ${files.m200}\nM1000 ${files.m1000}`);
}
