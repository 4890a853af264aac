/**
 * @module inject/limits
 * A bound on every per-request quantity the injection's work grows with. Node serves every
 * admission on one thread, so one pod with 40,000 containers that takes a second stalls every
 * other admission and the liveness probe with it. The apiserver caps a request at 3 MiB, so the
 * defaults are far above real pods and far below what such a body can hold; each is
 * configurable (`serve --limit NAME=N`). A pod over a limit is refused with SI_INJECT_LIMIT,
 * which the webhook answers per `--on-error` (deny, or admit unmodified with a warning).
 *
 * Counted on the raw pod, before it is validated or copied: only lengths and, for env entries
 * and annotation bytes, one pass over the containers and annotations.
 */
import { InjectionError } from '../errors.js';
import { isPlainObject } from '../util/json.js';
import { patchJson } from '../patch/index.js';
import type { JsonPatchOperation } from '../patch/types.js';

export interface PodLimits {
  /** `spec.containers` items. */
  containers: number;
  /** `spec.initContainers` items. */
  initContainers: number;
  /** `spec.volumes` items. */
  volumes: number;
  /** `env` items over all containers and init containers. */
  envEntries: number;
  /** Bytes of annotation keys and values (UTF-8), as Kubernetes counts its 256 KiB limit. */
  annotationBytes: number;
  /** Bytes of the JSON patch the webhook would answer with. */
  patchBytes: number;
}

export const DEFAULT_POD_LIMITS: Readonly<PodLimits> = Object.freeze({
  containers: 1000,
  initContainers: 1000,
  volumes: 2000,
  envEntries: 20_000,
  // Kubernetes refuses more than 256 KiB of annotations anyway (after mutation).
  annotationBytes: 256 * 1024,
  // The apiserver's whole request limit.
  patchBytes: 3 * 1024 * 1024,
});

export const LIMIT_NAMES = Object.keys(DEFAULT_POD_LIMITS) as (keyof PodLimits)[];

function over(what: string, n: number, limit: number, name: keyof PodLimits): InjectionError {
  return new InjectionError(
    'SI_INJECT_LIMIT',
    `the pod has ${n} ${what}, over the injector's limit of ${limit} (serve --limit ${name}=N); it was not processed`,
    { details: { limit: name, value: n, max: limit } },
  );
}

/** Throws SI_INJECT_LIMIT when the annotations alone are over their limit. */
export function checkAnnotationLimit(pod: unknown, limits: Readonly<PodLimits>): void {
  const meta = isPlainObject(pod) ? pod.metadata : undefined;
  const annotations = isPlainObject(meta) ? meta.annotations : undefined;
  if (!isPlainObject(annotations)) return;
  let bytes = 0;
  for (const k in annotations) {
    if (!Object.hasOwn(annotations, k)) continue;
    const v = annotations[k];
    bytes += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
    if (bytes > limits.annotationBytes) throw over('bytes of annotations (at least)', bytes, limits.annotationBytes, 'annotationBytes');
  }
}

/** SI_INJECT_LIMIT when a list of the pod spec, or the env entries, are over their limit; else undefined. */
export function specOverLimit(pod: unknown, limits: Readonly<PodLimits>): InjectionError | undefined {
  const spec = isPlainObject(pod) ? pod.spec : undefined;
  if (!isPlainObject(spec)) return undefined;
  const length = (v: unknown) => (Array.isArray(v) ? v.length : 0);
  const containers = length(spec.containers);
  const initContainers = length(spec.initContainers);
  if (containers > limits.containers) return over('containers', containers, limits.containers, 'containers');
  if (initContainers > limits.initContainers) return over('init containers', initContainers, limits.initContainers, 'initContainers');
  const volumes = length(spec.volumes);
  if (volumes > limits.volumes) return over('volumes', volumes, limits.volumes, 'volumes');
  let env = 0;
  for (const list of [spec.containers, spec.initContainers]) {
    if (!Array.isArray(list)) continue;
    for (const c of list) env += isPlainObject(c) ? length(c.env) : 0;
  }
  if (env > limits.envEntries) return over('env entries', env, limits.envEntries, 'envEntries');
  return undefined;
}

/** Throws SI_INJECT_LIMIT when the patch (as JSON) is over its limit. */
export function checkPatchLimit(patch: readonly JsonPatchOperation[], limits: Readonly<PodLimits>): void {
  const bytes = Buffer.byteLength(patchJson(patch));
  if (bytes > limits.patchBytes) throw over('bytes of JSON patch', bytes, limits.patchBytes, 'patchBytes');
}

/** Parse `NAME=N` (a --limit flag) into `into`; returns an error message or undefined. */
export function parseLimit(text: string, into: PodLimits): string | undefined {
  const m = /^([A-Za-z]+)=(\d{1,12})$/.exec(text.trim());
  if (m === null) return `--limit expects NAME=N, got ${JSON.stringify(text)}`;
  const name = m[1] as keyof PodLimits;
  if (!LIMIT_NAMES.includes(name)) return `--limit: unknown limit ${JSON.stringify(m[1])}; known: ${LIMIT_NAMES.join(', ')}`;
  const n = Number(m[2]);
  if (n < 1) return `--limit ${name} must be at least 1`;
  into[name] = n;
  return undefined;
}
