/**
 * @module heal/classify
 * The state of one running pod's sidecar (current, stale, missing, skipped, foreign), decided
 * by the same code the webhook runs: whether the apiserver would call the webhook
 * (`evaluateScopes`, the webhook configuration's selectors and match conditions), the core's
 * `decide`, `selectTemplates` and `templateHash` (the hash the status annotation carries). So
 * `status`, `restart` and `serve --reconcile` cannot disagree with admission.
 *
 * A pod is judged as it was before injection: an injected pod is first uninjected through its
 * status annotation (injection may add labels that selectors read). A pod is judged as the
 * webhook saw it at CREATE: the apiserver names a `generateName` pod only after admission, so
 * the name is dropped for the re-rendering that explains a stale sidecar.
 *
 * Pure and synchronous; never throws on a pod (a pod the core refuses is reported, not raised).
 */
import type { LoadedConfig } from '../config/types.js';
import { InjectorError } from '../errors.js';
import { decide } from '../inject/decide.js';
import { injectPod } from '../inject/pipeline.js';
import { selectTemplates } from '../inject/select.js';
import { revisionOf } from '../inject/data.js';
import { parseStatus, templateHash, type ParsedStatus } from '../inject/status-annotation.js';
import type { Decision } from '../inject/types.js';
import { uninjectPod } from '../inject/uninject.js';
import { compileSelector, selectorMatches } from '../config/selector.js';
import { evaluateScopes, NAMESPACE_NAME_LABEL, type WebhookScope } from '../install/webhook-rules.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { sidecarChanges, injectedItemsPresent } from './sidecar-drift.js';
import type { Classification } from './types.js';

type Obj = Record<string, unknown>;

export interface ClassifyContext {
  config: LoadedConfig;
  /** The webhook configuration's entries: read from the cluster, or as `manifests` writes them. */
  scopes: readonly WebhookScope[];
  /** Labels of the pod's namespace (they decide which webhook entry, if any, is called). */
  namespaceLabels: Readonly<Record<string, string>>;
}

/** Would the webhook inject this (uninjected) pod now? Reach first, then the core's decision. */
interface Verdict {
  inject: boolean;
  reason: string;
  message: string;
  decision?: Decision;
}

export function classifyPod(pod: unknown, ctx: ClassifyContext): Classification {
  if (!isPlainObject(pod) || !isPlainObject(pod.metadata)) {
    return { state: 'skipped', reason: 'not-a-pod', message: 'the object is not a pod' };
  }
  const key = ctx.config.injectionKeys.status;
  const annotations = isPlainObject(pod.metadata.annotations) ? pod.metadata.annotations : {};
  const statusText = Object.hasOwn(annotations, key) ? annotations[key] : undefined;
  if (typeof statusText === 'string') return classifyInjected(pod, statusText, ctx);
  return classifyUninjected(pod, ctx);
}

function classifyInjected(pod: Obj, statusText: string, ctx: ClassifyContext): Classification {
  const key = ctx.config.injectionKeys.status;
  let parsed: ParsedStatus;
  try {
    parsed = parseStatus(statusText, key);
  } catch (err) {
    return { state: 'foreign', reason: 'unreadable-status', message: err instanceof Error ? err.message : String(err) };
  }
  // Istio writes "default" for its default revision, and so do we; older statuses have none.
  const c = judgeInjected(pod, parsed, ctx);
  return parsed.status.revision === '' ? c : { ...c, revision: parsed.status.revision };
}

function judgeInjected(pod: Obj, parsed: ParsedStatus, ctx: ClassifyContext): Classification {
  const key = ctx.config.injectionKeys.status;
  if (!parsed.ours) {
    return {
      state: 'foreign',
      reason: 'other-injector',
      message: `annotation ${key} has no "templates": written by another injector (Istio's format), not by this one`,
    };
  }
  const missingItems = injectedItemsPresent(pod, parsed.status);
  if (missingItems.length > 0) {
    return {
      state: 'foreign',
      reason: 'edited',
      message: `annotation ${key} lists ${missingItems.join(', ')}, which the pod does not have: the pod was changed after injection`,
    };
  }
  let original: JsonObject;
  try {
    const u = uninjectPod(pod, ctx.config);
    if (u.kind !== 'uninjected') return { state: 'foreign', reason: 'unreadable-status', message: u.reason };
    original = u.pod;
  } catch (err) {
    return { state: 'foreign', reason: 'unreadable-status', message: err instanceof Error ? err.message : String(err) };
  }
  const podHash = parsed.status.templateHash;
  const verdict = wouldInject(original, ctx);
  const ours = revisionOf(ctx.config) || 'default';
  const podRevision = parsed.status.revision || 'default';
  if (podRevision !== ours) return otherRevision(podRevision, ours, verdict, podHash);
  if (!verdict.inject) {
    // The namespace moved to another revision (`rollout`): a restart moves the pod there, it does not lose its sidecar.
    const moved = verdict.reason === 'namespace-not-selected' ? ctx.namespaceLabels[ctx.config.injectionKeys.revisionLabel] : undefined;
    if (moved !== undefined && moved !== ours) {
      const detail = `revision ${ours} -> ${moved}: the namespace is labelled ${ctx.config.injectionKeys.revisionLabel}=${moved}`;
      return {
        state: 'stale',
        reason: verdict.reason,
        message: `injected by revision ${ours}, but the namespace now selects revision ${moved}: a restart moves the pod there`,
        changes: [{ what: 'revision', from: ours, to: moved, detail }],
        hash: { pod: podHash },
      };
    }
    return {
      state: 'stale',
      reason: verdict.reason,
      message: `injected, but the rules now skip it: ${verdict.message}`,
      changes: [{ what: 'decision', detail: `a restart removes the sidecar: ${verdict.message}` }],
      hash: { pod: podHash },
    };
  }
  let now: string;
  try {
    now = templateHash(ctx.config, selectTemplates(annotationsOf(original), ctx.config).names);
  } catch (err) {
    return staleWithError(verdict.reason, err, podHash);
  }
  if (podHash === now)
    return { state: 'current', reason: verdict.reason, message: `injected with the current templates and values (${now})`, hash: { pod: now, now } };

  // Stale: re-render as the webhook would now, and say what differs.
  let result;
  try {
    result = injectPod(asAdmitted(original), { namespace: namespaceOf(pod), mode: 'webhook' }, ctx.config);
  } catch (err) {
    return staleWithError(verdict.reason, err, podHash, now);
  }
  if (result.kind !== 'injected') {
    // decide said yes above on the same pod; only a bug gets here. Say so rather than guess.
    return { state: 'stale', reason: result.decision.reason, message: result.decision.message, hash: { pod: podHash, now } };
  }
  const changes = sidecarChanges(pod, parsed.status, result.pod, result.status);
  return {
    state: 'stale',
    reason: verdict.reason,
    message: `injected with other templates or values (${podHash ?? 'no hash'} -> ${now}): ${changes.map((c) => c.detail).join('; ')}`,
    changes,
    hash: { pod: podHash, now },
  };
}

function classifyUninjected(pod: Obj, ctx: ClassifyContext): Classification {
  const verdict = wouldInject(pod, ctx);
  if (!verdict.inject) return { state: 'skipped', reason: verdict.reason, message: verdict.message };
  let result;
  try {
    result = injectPod(asAdmitted(pod), { namespace: namespaceOf(pod), mode: 'webhook' }, ctx.config);
  } catch (err) {
    const e = err instanceof InjectorError ? `${err.code}: ${err.message}` : String(err);
    return {
      state: 'missing',
      reason: verdict.reason,
      message: `no sidecar, and injecting it now fails (the webhook would refuse the pod): ${e}`,
      changes: [{ what: 'error', detail: e }],
    };
  }
  if (result.kind === 'injected') {
    // Containers the injection would add are already there, with no status: added by hand.
    const spec = isPlainObject(pod.spec) ? pod.spec : {};
    for (const list of ['containers', 'initContainers'] as const) {
      const have = new Set(namesIn(spec[list]));
      const dup = (result.status[list] ?? []).find((n) => have.has(n));
      if (dup !== undefined) {
        return {
          state: 'foreign',
          reason: 'injected-by-hand',
          message: `${list}/${dup} is there without a status annotation: added by hand or by another tool`,
        };
      }
    }
    return {
      state: 'missing',
      reason: verdict.reason,
      message: `no sidecar, but ${verdict.message}; the pod was created while the webhook was not called (down with failurePolicy Ignore, or the namespace was labelled later)`,
    };
  }
  return { state: 'skipped', reason: result.decision.reason, message: result.decision.message };
}

/**
 * A pod another revision injected (its status names it): ours to judge only when our webhook
 * would take it now (then a restart moves it to us: stale); otherwise that revision's business.
 */
function otherRevision(podRevision: string, ours: string, verdict: Verdict, podHash: string | undefined): Classification {
  if (!verdict.inject) {
    return {
      state: 'foreign',
      reason: 'other-revision',
      message: `injected by revision ${podRevision}, which serves it (this is revision ${ours}'s view): judge it with status --revision ${podRevision}`,
    };
  }
  return {
    state: 'stale',
    reason: verdict.reason,
    message: `injected by revision ${podRevision}, but revision ${ours} takes the pod now: a restart moves it`,
    changes: [{ what: 'revision', from: podRevision, to: ours, detail: `revision ${podRevision} -> ${ours}` }],
    hash: { pod: podHash },
  };
}

/** The webhook layer (is the injector called at all?) then the core's decision. */
function wouldInject(pod: Obj, ctx: ClassifyContext): Verdict {
  const namespace = namespaceOf(pod);
  const labels = labelsOf(pod);
  const reach = evaluateScopes([...ctx.scopes], { name: namespace, labels: { ...ctx.namespaceLabels } }, labels, pod);
  if (!reach.reached) {
    const nsLabels = new Map(Object.entries(ctx.namespaceLabels));
    if (!nsLabels.has(NAMESPACE_NAME_LABEL)) nsLabels.set(NAMESPACE_NAME_LABEL, namespace);
    const nsSelected = ctx.scopes.some((s) => {
      const c = compileSelector(s.namespaceSelector);
      return c.state === 'empty' || c.state === 'nothing' || selectorMatches(c, nsLabels);
    });
    return nsSelected
      ? { inject: false, reason: 'object-not-selected', message: 'the webhook configuration does not select this pod (its labels or a match condition)' }
      : { inject: false, reason: 'namespace-not-selected', message: `the webhook configuration does not select namespace ${namespace} (its labels)` };
  }
  const decision = decide(pod, { namespace, mode: 'webhook' }, ctx.config);
  return { inject: decision.inject, reason: decision.reason, message: decision.message, decision };
}

function staleWithError(reason: string, err: unknown, pod?: string, now?: string): Classification {
  const e = err instanceof InjectorError ? `${err.code}: ${err.message}` : String(err);
  return {
    state: 'stale',
    reason,
    message: `injected, but injecting it now fails (a restarted pod would be refused): ${e}`,
    changes: [{ what: 'error', detail: e }],
    hash: now === undefined ? { pod } : { pod, now },
  };
}

/**
 * The pod as the webhook received it at CREATE: no name yet when it has a generateName (the
 * apiserver names it after admission), no status, no server-set metadata.
 */
export function asAdmitted(pod: Obj): JsonObject {
  const meta = { ...(pod.metadata as Obj) };
  if (typeof meta.generateName === 'string' && meta.generateName !== '') delete meta.name;
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'generation', 'deletionTimestamp', 'deletionGracePeriodSeconds'])
    delete meta[k];
  const out: Obj = { ...pod, metadata: meta };
  delete out.status;
  return out as JsonObject;
}

function namespaceOf(pod: Obj): string {
  const meta = isPlainObject(pod.metadata) ? pod.metadata : {};
  return typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : 'default';
}

function labelsOf(pod: Obj): Record<string, string> {
  const meta = isPlainObject(pod.metadata) ? pod.metadata : {};
  const out: Record<string, string> = {};
  if (isPlainObject(meta.labels)) for (const [k, v] of Object.entries(meta.labels)) if (typeof v === 'string') out[k] = v;
  return out;
}

function annotationsOf(pod: Obj): Obj {
  const meta = isPlainObject(pod.metadata) ? pod.metadata : {};
  return isPlainObject(meta.annotations) ? meta.annotations : {};
}

function namesIn(list: unknown): string[] {
  return Array.isArray(list) ? list.map((c) => (isPlainObject(c) ? c.name : undefined)).filter((n): n is string => typeof n === 'string') : [];
}
