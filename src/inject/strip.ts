/**
 * @module inject/strip
 * Undo an earlier injection before injecting again, so `inject(inject(x)) == inject(x)` and a
 * reinvoked webhook gives the same pod. With our status annotation the pod is restored exactly:
 * the listed items are removed by name and the undo entries put back what they changed.
 * A status written by Istio (no `templates`, no undo) is handled as Istio does: the listed
 * items are removed, and the user's own sidecar customisations saved in Istio's
 * `proxy.istio.io/overrides` annotation are put back so the next injection sees them; the app
 * probes Istio rewrote get back their originals from the removed proxy's ISTIO_KUBE_APP_PROBERS.
 */
import type { LoadedConfig } from '../config/types.js';
import { InjectionError } from '../errors.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import type { InjectionStatus } from './types.js';
import { parseStatus, type ParsedStatus } from './status.js';
import { verifyStatus, type StatusKeyring } from './status-mac.js';
import { restoreAppProbes } from './istio-probes.js';
import { applyUndo, removeInjected } from './undo.js';

/** Istio's record of user containers that customised injected ones (JSON {containers, initContainers}). */
export const ISTIO_OVERRIDES_ANNOTATION = 'proxy.istio.io/overrides';

export interface Stripped {
  /** The status that was found and trusted, if any. */
  previous: ParsedStatus | undefined;
  /**
   * A status was present but not signed by this injector: it was not acted on (and was dropped).
   * What it lists, when it could be read (the caller may replace those items only if its own
   * injection injects them too: see foreign-status.ts).
   */
  foreign?: InjectionStatus;
}

/** Only statuses signed by one of these keys for this namespace are acted on (the webhook). */
export interface StatusTrust {
  ring: StatusKeyring;
  namespace: string;
}

/** The status annotation's value on a validated pod, if present. */
export function statusAnnotation(pod: JsonObject, key: string): string | undefined {
  const meta = pod.metadata;
  if (!isPlainObject(meta) || !isPlainObject(meta.annotations)) return undefined;
  const v = Object.hasOwn(meta.annotations, key) ? meta.annotations[key] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/**
 * Strip (in place) the injection recorded on a validated working copy. With `trust` (the
 * webhook), a status without a valid signature is foreign: nothing it lists is removed or
 * restored, it is only dropped (the injection writes its own), so the pod is injected exactly
 * as if it had never carried it, which any pod author may ask for anyway. Without `trust` (the
 * CLI, on its user's own files) every status is read.
 */
export function stripPod(pod: JsonObject, config: Pick<LoadedConfig, 'injectionKeys'>, warnings: string[], trust?: StatusTrust): Stripped {
  const key = config.injectionKeys.status;
  const text = statusAnnotation(pod, key);
  if (text === undefined) return { previous: undefined };
  if (trust !== undefined && !verifyStatus(text, trust.namespace, trust.ring)) {
    delete ((pod.metadata as JsonObject).annotations as JsonObject)[key];
    warnings.push(
      `annotation ${key} was not written by this injector (no valid signature for namespace ${JSON.stringify(trust.namespace)}): it was ignored ` +
        'and replaced; nothing was restored from it, and of what it lists only the containers and volumes this injector injects itself were replaced',
    );
    let listed: InjectionStatus | undefined;
    try {
      listed = parseStatus(text, key).status;
    } catch {
      listed = undefined;
    }
    return { previous: undefined, foreign: listed ?? { initContainers: null, containers: null, volumes: null, imagePullSecrets: null, revision: '' } };
  }
  const previous = parseStatus(text, key);
  // Istio rewrote the app's probes and kept the originals on its proxy: read them before it goes.
  const probers = previous.ours ? undefined : removedProxyProbers(pod, previous);
  removeInjected(pod, previous.status, key);
  if (previous.ours) {
    applyUndo(pod, previous.status.undo ?? [], warnings);
  } else {
    if (probers !== undefined) restoreAppProbes(pod, probers);
    reinsertIstioOverrides(pod);
  }
  return { previous };
}

function removedProxyProbers(pod: JsonObject, previous: ParsedStatus): string | undefined {
  const spec = pod.spec as Record<string, unknown>;
  for (const list of ['containers', 'initContainers'] as const) {
    if (!(previous.status[list] ?? []).includes('istio-proxy')) continue;
    const items = Array.isArray(spec[list]) ? (spec[list] as unknown[]) : [];
    const proxy = items.find((c) => isPlainObject(c) && c.name === 'istio-proxy') as Record<string, unknown> | undefined;
    const env = proxy !== undefined && Array.isArray(proxy.env) ? proxy.env : [];
    const e = env.find((x) => isPlainObject(x) && x.name === 'ISTIO_KUBE_APP_PROBERS') as Record<string, unknown> | undefined;
    if (e !== undefined && typeof e.value === 'string') return e.value;
  }
  return undefined;
}

/** Istio's reinsertOverrides: append saved user containers the pod no longer has. */
function reinsertIstioOverrides(pod: JsonObject): void {
  const meta = pod.metadata as JsonObject;
  const annotations = meta.annotations as Record<string, unknown>;
  const text = annotations[ISTIO_OVERRIDES_ANNOTATION];
  if (typeof text !== 'string') return;
  let saved: unknown;
  try {
    saved = JSON.parse(text);
  } catch {
    throw new InjectionError('SI_INJECT_STATUS', `annotation ${ISTIO_OVERRIDES_ANNOTATION} is not valid JSON; remove it (it only records sidecar customisations for re-injection)`);
  }
  if (!isPlainObject(saved)) return;
  const spec = pod.spec as JsonObject;
  for (const list of ['containers', 'initContainers'] as const) {
    const items = saved[list];
    if (!Array.isArray(items)) continue;
    const current = Array.isArray(spec[list]) ? (spec[list] as JsonObject[]) : [];
    const names = new Set(current.map((c) => c.name));
    for (const c of items) {
      if (isPlainObject(c) && typeof c.name === 'string' && c.name !== '' && !names.has(c.name)) {
        current.push(c as JsonObject);
        names.add(c.name);
      }
    }
    if (current.length > 0) spec[list] = current;
  }
}
