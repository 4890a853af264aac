/**
 * @module admission/warmup
 * Run the request path before the server says it is ready. V8 optimises a function only after
 * it has run a few thousand times; a webhook at a real cluster's rate (a few pods a second)
 * takes many minutes to get there, and until then every request runs interpreted and costs
 * several times what it costs warm (an injection with Istio's templates: 40 ms of CPU for the
 * first pod, a median 6.6 ms over the first 20, 2.2 ms after a warm-up; numbers below and in
 * bench/RESULTS.md). So at start, and for every reloaded config before it serves, the handler
 * answers reviews shaped like the apiserver's for a Deployment's pod: one the config injects, the same pod already injected (a reinvocation) and
 * one opted out, each with its own uid and service-account token volume name, as real pods have.
 *
 * The warm-up handler is built by the same `createHandler` as the real one, with its own
 * metrics registry and a logger that writes nothing, so nothing of it is counted or logged; V8 keeps what it learns per function, shared by both. It runs in slices of a
 * few milliseconds, so `/healthz` and `/readyz` answer throughout, and stops at its time budget.
 *
 * At start the server is ready once the first `readyAfter` rounds passed (the config works on
 * a plain pod), not when all are done: 500 rounds take 2 s with the built-in config and 5 s
 * with Istio's on a quiet core, and a single-replica webhook with `failurePolicy: Fail` refuses
 * every pod until it is ready. The rounds left go on while it serves, one call at a time
 * between real requests, so a real request waits for at most one warm-up call; by the time
 * real traffic has run a function often, the warm-up has too.
 *
 * It is also the first use of a config on a pod: a config that cannot inject a plain
 * Deployment's pod (its templates fail to render or merge: an error of the config's own, HTTP
 * 500 in the catalogue, not one about the pod) or whose patch does not apply to that pod is
 * broken for every pod. Such a warm-up stops at once and reports `failure`; the server then keeps
 * serving the config it had (a reload) or stays unready (at start), instead of serving it.
 */
import type { LoadedConfig } from '../config/types.js';
import { allErrorCodes, errorInfo, type ErrorCode } from '../errors.js';
import { applyPatch } from '../patch/apply.js';
import { DEFAULT_WARMUP_ROUNDS } from './server-defaults.js';
import type { AdmissionHandler } from './handler.js';

export interface WarmupOptions {
  /** Rounds of the three reviews (0: no warm-up). */
  rounds: number;
  /** Stop after this long whatever is left (a CPU-starved pod must still become ready). */
  maxMs: number;
  /** Yield to the event loop after this long. */
  sliceMs?: number;
  /**
   * Call `onReady` once this many rounds passed without a failure; the rest then run between
   * real requests, yielding after every call (absent: the caller waits for all of them).
   */
  readyAfter?: number;
  onReady?: () => void;
  /** Stops the warm-up (the server is shutting down). */
  signal?: AbortSignal;
}

/**
 * At start. Measured in-process with Istio's templates, 20 injections 200 ms apart after W rounds
 * (CPU ms, loaded 2-core machine): W=0 first 40, median 6.6; W=100 max 8.1, median 2.7; W=300
 * max 6.5, median 2.3; W=1000 max 3.5, median 2.2; W=3000 max 3.0, median 2.3. A round costs
 * 2-10 ms there (less on a quiet core); 500 rounds, at most 5 s. Ready after the first round.
 */
export const DEFAULT_WARMUP: Readonly<WarmupOptions> = Object.freeze({ rounds: DEFAULT_WARMUP_ROUNDS, maxMs: 5000, readyAfter: 1 });
/** For a reloaded config: the code is optimised already, this only meets the new templates. */
export const RELOAD_WARMUP: Readonly<WarmupOptions> = Object.freeze({ rounds: 50, maxMs: 2000 });

export interface WarmupResult {
  rounds: number;
  ms: number;
  /** Whether the config injected the representative pod (false: its policy skips it, only the skip path ran). */
  injected: boolean;
  /** Set when the warm-up stopped at `maxMs` before its rounds were done. */
  cutShort: boolean;
  /** Why the config is broken (see the header): set, the config must not serve. */
  failure?: string;
}

/**
 * Whether an injection failure with this catalogue code is the config's (a template that does
 * not render, an overlay that does not merge, a patch that cannot be built), not the pod's: the
 * pod-caused codes (an annotation, a conflict, a limit) are HTTP 400 and tell nothing about the
 * config, since the warm-up's pod is made up.
 */
export function configCaused(code: string): boolean {
  return (allErrorCodes() as string[]).includes(code) && errorInfo(code as ErrorCode).httpStatus >= 500;
}

type Obj = Record<string, unknown>;

/** Five letters, as the ServiceAccount admission plugin names the token volume. */
function suffix(i: number): string {
  let s = '';
  for (let n = i + 0x2f5a3; s.length < 5; n = Math.floor(n / 26)) s += String.fromCharCode(97 + (n % 26));
  return s;
}

/**
 * A Deployment's pod as the apiserver holds it at mutating admission (defaults filled in, the
 * token volume added): two containers with ports, probes, env and resources.
 */
export function warmupPod(i: number, injectKey: string, choice: string): Obj {
  const token = `kube-api-access-${suffix(i)}`;
  const container = (name: string, port: number): Obj => ({
    name,
    image: `registry.example/shop/${name}:1.${i % 4}`,
    args: ['--port', String(port)],
    ports: [{ name: 'http', containerPort: port, protocol: 'TCP' }],
    env: [
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
    ],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
    readinessProbe: { httpGet: { path: '/ready', port, scheme: 'HTTP' }, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
    volumeMounts: [{ name: token, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  });
  // A few workloads in turn: templates that read names or labels render more than one way.
  const app = `warmup-${i % 8}`;
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      generateName: `${app}-7d4b9c8f6-`,
      namespace: 'warmup',
      labels: { app, 'pod-template-hash': '7d4b9c8f6', version: 'v1', [injectKey]: choice },
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${app}-7d4b9c8f6`,
          uid: `00000000-0000-4000-8000-${String(i % 8).padStart(12, '0')}`,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      volumes: [
        {
          name: token,
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            ],
          },
        },
      ],
      containers: [container(app, 8080), container('log-shipper', 8081)],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      serviceAccount: 'default',
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
  };
}

/** An AdmissionReview v1 for a pod CREATE, compact JSON as the apiserver sends it. */
export function warmupReview(pod: Obj, i: number): Buffer {
  const gvk = { group: '', version: 'v1', kind: 'Pod' };
  const gvr = { group: '', version: 'v1', resource: 'pods' };
  const uid = `5a6e7f00-0000-4000-8000-${String(i).padStart(12, '0')}`;
  return Buffer.from(
    JSON.stringify({
      kind: 'AdmissionReview',
      apiVersion: 'admission.k8s.io/v1',
      request: {
        uid,
        kind: gvk,
        resource: gvr,
        requestKind: gvk,
        requestResource: gvr,
        namespace: 'warmup',
        operation: 'CREATE',
        userInfo: { username: 'system:serviceaccount:kube-system:replicaset-controller', groups: ['system:serviceaccounts', 'system:authenticated'] },
        object: pod,
        oldObject: null,
        dryRun: false,
        options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
      },
    }),
  );
}

/** The JSON patch of an answer (undefined when it has none). */
function patchOf(body: string): unknown[] | undefined {
  const patch = (JSON.parse(body) as { response?: { patch?: string } }).response?.patch;
  return patch === undefined ? undefined : (JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as unknown[]);
}

const immediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Run the three reviews `options.rounds` times through `handler` (built for `config`).
 * `failed()`: a config-caused failure the handler reported (its onInjectionFailed), which
 * stops the warm-up with that failure.
 */
export async function warmUp(
  handler: AdmissionHandler,
  config: LoadedConfig,
  options: WarmupOptions,
  now: () => number = () => performance.now(),
  failed: () => string | undefined = () => undefined,
): Promise<WarmupResult> {
  const start = now();
  const key = config.injectionKeys.inject;
  const optIn = config.injectionValues.inject?.[0] ?? 'true';
  const call = (body: Buffer) => handler({ body, path: '/inject', query: '', startedAt: now() });
  let injected = false;
  let rounds = 0;
  let serving = false;
  let sliceStart = start;
  const sliceMs = options.sliceMs ?? 5;
  // Serving: after every call, so a real request waits for one call at most.
  const pause = async (): Promise<void> => {
    if (!serving && now() - sliceStart < sliceMs) return;
    await immediate();
    sliceStart = now();
  };
  while (rounds < options.rounds) {
    if (now() - start > options.maxMs || options.signal?.aborted === true) return { rounds, ms: now() - start, injected, cutShort: true };
    const i = rounds;
    const pod = warmupPod(i, key, optIn);
    const patch = patchOf(call(warmupReview(pod, 3 * i)).body);
    const failure = failed();
    if (failure !== undefined) return { rounds, ms: now() - start, injected, cutShort: false, failure };
    if (patch !== undefined && patch.length > 0) {
      injected = true;
      let patchedPod: Obj;
      try {
        patchedPod = applyPatch(pod, patch) as Obj;
      } catch (err) {
        return {
          rounds,
          ms: now() - start,
          injected,
          cutShort: false,
          failure: `its patch does not apply to the pod it was made for: ${err instanceof Error ? err.message : String(err)}`,
        };
      }
      await pause();
      // The same pod with the patch applied: what a reinvocation sends (already current).
      call(warmupReview(patchedPod, 3 * i + 1));
    }
    await pause();
    call(warmupReview(warmupPod(i, key, 'false'), 3 * i + 2));
    rounds++;
    if (!serving && options.readyAfter !== undefined && rounds >= options.readyAfter) {
      serving = true;
      options.onReady?.();
    }
    await pause();
  }
  return { rounds, ms: now() - start, injected, cutShort: false };
}
