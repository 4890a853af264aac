/**
 * @module inject/strip
 * Undo an earlier injection before injecting again, so `inject(inject(x)) == inject(x)` and a
 * reinvoked webhook gives the same pod. With our status annotation the pod is restored exactly:
 * the listed items are removed by name, and the record (strip-record.ts; format 1: the undo
 * entries alone) puts back what the injection changed.
 * A status written by another injector (no `templates`, no undo: Istio's) is handled by
 * removing the listed items; then each profile's `strip` hook puts back what it knows that
 * injector changed besides (src/istio: Istio's probe rewrite and saved overrides).
 */
import type { LoadedConfig } from '../config/types.js';
import type { Pod } from './pod-types.js';
import type { InjectionStatus } from './types.js';
import { parseStatus, type ParsedStatus } from './status-annotation.js';
import { verifyStatus, type StatusKeyring } from './status-mac.js';
import { applyStripRecord } from './strip-record.js';
import { applyUndo, removeInjected } from './undo.js';

export interface StripOutcome {
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
export function statusAnnotation(pod: Pod, key: string): string | undefined {
  const annotations = pod.metadata?.annotations;
  return annotations !== null && annotations !== undefined && Object.hasOwn(annotations, key) ? annotations[key] : undefined;
}

/**
 * Strip (in place) the injection recorded on a validated working copy. With `trust` (the
 * webhook), a status without a valid signature is foreign: nothing it lists is removed or
 * restored, it is only dropped (the injection writes its own), so the pod is injected exactly
 * as if it had never carried it, which any pod author may ask for anyway. Without `trust` (the
 * CLI, on its user's own files) every status is read.
 */
export function stripPod(pod: Pod, config: Pick<LoadedConfig, 'injectionKeys' | 'profiles'>, warnings: string[], trust?: StatusTrust): StripOutcome {
  const key = config.injectionKeys.status;
  const annotations = pod.metadata?.annotations;
  if (annotations === null || annotations === undefined || !Object.hasOwn(annotations, key)) return { previous: undefined };
  const text = annotations[key];
  if (trust !== undefined && !verifyStatus(text, trust.namespace, trust.ring)) {
    delete annotations[key];
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
  const removed = removeInjected(pod, previous.status, key);
  if (previous.ours) {
    if (previous.status.v === 2) applyStripRecord(pod, removed, previous.status.rm ?? '', previous.status.undo ?? [], config.profiles);
    applyUndo(pod, previous.status.undo ?? [], warnings);
  } else for (const profile of config.profiles) profile.strip?.(pod, removed);
  return { previous };
}
