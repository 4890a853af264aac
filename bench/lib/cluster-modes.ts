/**
 * @module bench/lib/cluster-modes
 * The modes of the pod-create benchmark, each a namespace of its own, all sent the same
 * Deployment-like pod:
 * - `none`: no webhook (the apiserver and etcd alone);
 * - `floor`: the Go floor webhook (decodes the review, answers allowed): what any webhook costs;
 * - `floor-ours-patch`, `floor-istio-patch`: the Go floor answering with our (Istio's) patch for
 *   that pod: the apiserver's own work on each patch, with no work on the server's side;
 *   `floor-ours-istio-status`: our patch with Istio's status annotation in place of ours, so the
 *   status's share of the difference is measured apart from the rest of the patch's shape;
 * - `ours-skip`: ours, an opted-out pod (it reaches the webhook, which lets it through);
 * - `ours-ifneeded`, `ours-never`: ours injecting, with each reinvocation policy;
 * - `istio`: Istio's handler (`Never`, its chart's default);
 * - variants: ours with other flags or another build, as `ours-never`.
 * Ours and Istio's serve Istio's own rendered injector config (default profile).
 */
import type { Obj } from '../../e2e/lib/kube.js';
import { podF1, podF2 } from '../fixtures.js';

const INJECT_KEY = 'sidecar.istio.io/inject';
const STATUS_PATH = '/metadata/annotations/sidecar.istio.io~1status';

/** The modes whose server is the Go floor answering a fixed patch (one per patch below). */
export const FLOOR_PATCH_MODES = ['floor-ours-patch', 'floor-istio-patch', 'floor-ours-istio-status-patch'] as const;

/** How the report names each fixed patch. */
export const PATCH_LABELS = { ours: 'ours', istio: 'Istio', 'ours-istio-status': "ours with Istio's status" } as const;

export interface PatchOp {
  op: string;
  path: string;
  value?: unknown;
}

/**
 * `ours` with the value of its status-annotation operation replaced by the one `istio` adds
 * (Istio adds it as its own member, as ours does): everything else of our patch's shape stays.
 */
export function withStatusOf(ours: readonly PatchOp[], istio: readonly PatchOp[]): PatchOp[] {
  const theirs = istio.find((o) => o.path === STATUS_PATH);
  if (theirs === undefined || !ours.some((o) => o.path === STATUS_PATH)) throw new Error(`both patches must add ${STATUS_PATH}`);
  return ours.map((o) => (o.path === STATUS_PATH ? { ...o, value: theirs.value } : o));
}
const SIDECAR = 'istio-proxy';

export type PodShape = 'F1' | 'F2';

/**
 * The pod a Deployment's ReplicaSet would create (bench/fixtures.ts's F1 or F2), as a client
 * sends it: no namespace, managed fields or owner (the garbage collector would delete a pod
 * whose owner does not exist), the namespace's default service account, and no token volume
 * (the apiserver's ServiceAccount admission adds it, with a random name, to every pod).
 * Opted out: no injection label, the annotation says "false" (Istio's and our policy read it;
 * the webhooks' object selectors look at labels only, so the webhook is still called).
 */
export function benchPodFor(shape: PodShape, optedOut = false): Obj {
  const pod = (shape === 'F2' ? podF2() : podF1()) as Obj;
  const meta = pod.metadata as Obj;
  delete meta.namespace;
  delete meta.managedFields;
  delete meta.ownerReferences;
  const spec = pod.spec as Obj;
  spec.serviceAccountName = 'default';
  spec.serviceAccount = 'default';
  const token = (v: Obj): boolean => String(v.name).startsWith('kube-api-access-');
  spec.volumes = (spec.volumes as Obj[]).filter((v) => !token(v));
  for (const c of spec.containers as Obj[]) c.volumeMounts = (c.volumeMounts as Obj[]).filter((m) => !token(m));
  if (optedOut) {
    delete meta.labels[INJECT_KEY];
    meta.annotations[INJECT_KEY] = 'false';
  }
  return pod;
}

function names(list: unknown): string[] {
  return Array.isArray(list) ? list.map((c: Obj) => String(c.name)) : [];
}

/** Whether a created pod carries Istio's sidecar (a container or a native-sidecar init container). */
function hasSidecar(pod: Obj): boolean {
  const spec = pod.spec as Obj | undefined;
  return [...names(spec?.containers), ...names(spec?.initContainers)].includes(SIDECAR);
}

export function expectSidecar(want: boolean): (pod: Obj) => string | undefined {
  return (pod) => (hasSidecar(pod) === want ? undefined : want ? `no ${SIDECAR} in the created pod` : `${SIDECAR} in a pod that should have none`);
}

/** `--variant NAME[@DIR][=FLAGS]`: ours with other flags (space-separated) and/or another checkout's built CLI. */
export interface Variant {
  name: string;
  /** Another checkout (its dist/bin/sidecar-injector.mjs), else this one. */
  dir?: string;
  flags: string[];
}

export function parseVariant(text: string): Variant {
  const m = /^([a-z0-9-]+)(?:@([^=]+))?(?:=(.*))?$/.exec(text);
  if (m === null) throw new Error(`--variant ${JSON.stringify(text)}: expected NAME[@DIR][=FLAGS] (NAME: lowercase letters, digits, -)`);
  const flags = (m[3] ?? '').split(' ').filter((f) => f.length > 0);
  if (m[2] === undefined && flags.length === 0) throw new Error(`--variant ${m[1]}: give another checkout (@DIR) or flags (=FLAGS)`);
  return { name: `ours-${m[1]}`, ...(m[2] !== undefined ? { dir: m[2] } : {}), flags };
}

export function describeVariant(v: Variant): string {
  return [v.dir !== undefined ? `the build in ${v.dir}` : 'this build', v.flags.length > 0 ? `with \`${v.flags.join(' ')}\`` : ''].filter((x) => x).join(' ');
}
