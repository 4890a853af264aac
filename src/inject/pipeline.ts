/**
 * @module inject/pipeline
 * The injection pipeline, pure and synchronous. `injectPod` is the list of its stages
 * (stages.ts; each takes the pipeline's state and returns the next):
 *
 *   readPod -> decide -> strip -> select -> render -> merge -> postProcess -> order -> annotate -> mountToken -> patch
 *
 * read the pod (check and copy it), decide (Istio's rules), strip an earlier injection, select
 * the templates (after the profiles validated the annotations), render them (template data from
 * the core and the profiles), merge the overlays into the pod, let the profiles post-process it
 * (Istio's), order the containers (and refuse a pod that could not run), annotate it with the
 * status (what was injected, how to undo it), in webhook mode mount the service-account token
 * into the injected containers as the apiserver would right after, and patch: RFC 6902 against
 * the pod exactly as received. Profiles (inject/profile-hooks.ts, bound to the config at load) plug into select, render,
 * postProcess, order and strip; this module knows none of them.
 *
 * The input is never mutated; every failure is an InjectorError with a stable code, thrown
 * before anything is returned (no half-built result).
 */
import type { LoadedConfig } from '../config/types.js';
import { InjectorError } from '../errors.js';
import { cloneJson, isPlainObject, type JsonObject } from '../util/json.js';
import { templateData } from './data.js';
import { decide } from './decide.js';
import { injectsAll, removeItems, sharedItems } from './foreign-status.js';
import { checkAnnotationLimit, checkSpecLimits, type PodLimits } from './limits.js';
import { readPodInput } from './pod-input.js';
import { asJson } from './pod-types.js';
import { renderOverlay } from './render-overlay.js';
import { annotate, decideStage, merge, mountToken, order, patch, postProcess, readPod, render, select, strip, type Stripped } from './stages.js';
import { stripPod } from './strip.js';
import type { InjectedResult, InjectionContext, InjectionResult, InjectionStatus, SkippedResult } from './types.js';

/**
 * Inject the sidecar into `pod` (a Pod, or a workload's pod template `{metadata, spec}` with
 * `ctx.owner` naming the workload). Returns the decision, and when injected the new pod, the
 * patch from the pod as received, the status and warnings. Throws InjectorError.
 */
export function injectPod(pod: unknown, ctx: InjectionContext, config: LoadedConfig): InjectionResult {
  if (ctx.limits !== undefined) {
    const skipped = overLimits(pod, ctx, config, ctx.limits);
    if (skipped !== undefined) return skipped;
  }
  const read = readPod(pod, ctx, config);
  const decided = decideStage(read);
  if (!decided.decision.inject) return { kind: 'skipped', decision: decided.decision, warnings: [] };
  const stripped = strip(decided);
  if (stripped.current !== undefined) {
    return {
      kind: 'injected',
      decision: decided.decision,
      pod: cloneJson(asJson(stripped.received)),
      patch: [],
      status: stripped.current,
      warnings: [...decided.decision.warnings],
    };
  }
  const injected = injectStripped(stripped);
  return stripped.foreign === undefined ? injected : replaceForeign(pod, stripped, stripped.foreign, injected);
}

/** The stages after strip: select -> render -> merge -> postProcess -> order -> annotate -> mountToken -> patch. */
function injectStripped(stripped: Stripped): InjectedResult {
  const selected = select(stripped);
  const rendered = render(selected);
  const merged = merge(rendered);
  const processed = postProcess(merged);
  const ordered = order(processed);
  const annotated = annotate(ordered);
  return patch(mountToken(annotated));
}

/**
 * An unsigned status was dropped, not acted on: the items it lists that this injection injects
 * too are replaced (foreign-status.ts), by injecting again into a copy without them.
 */
function replaceForeign(pod: unknown, stripped: Stripped, foreign: InjectionStatus, first: InjectedResult): InjectedResult {
  const items = sharedItems(foreign, first.status);
  if (items === undefined) return first;
  const again = readPodInput(pod).pod;
  removeItems(again, items);
  const annotations = again.metadata?.annotations;
  if (annotations !== null && annotations !== undefined) delete annotations[stripped.config.injectionKeys.status];
  const second = injectStripped({ ...stripped, work: again });
  return injectsAll(second.status, items) ? second : first;
}

/**
 * The per-request limits, checked before any work that grows with the pod. A pod over a list
 * limit is still decided on from its metadata alone (cheap), so a pod that would be skipped is
 * skipped, not refused; one that would be injected gets SI_INJECT_LIMIT.
 */
function overLimits(pod: unknown, ctx: InjectionContext, config: LoadedConfig, limits: Readonly<PodLimits>): SkippedResult | undefined {
  checkAnnotationLimit(pod, limits);
  try {
    checkSpecLimits(pod, limits);
    return undefined;
  } catch (err) {
    // checkSpecLimits throws only for a map with a spec map.
    const p = pod as Record<string, unknown>;
    const spec = isPlainObject(p.spec) ? p.spec : {};
    const decision = decide(readPodInput({ metadata: p.metadata, spec: { hostNetwork: spec.hostNetwork, containers: [] } }).pod, ctx, config);
    if (!decision.inject) return { kind: 'skipped', decision, warnings: [] };
    throw err;
  }
}

/**
 * Render templates for a pod exactly as injection does (same stripping, annotation checks, data
 * and engine) and return each overlay before the merge: `template render --config`. `names`
 * defaults to the templates injection would select. Throws InjectorError.
 */
export function renderPodTemplates(
  pod: unknown,
  ctx: InjectionContext,
  config: LoadedConfig,
  names?: readonly string[],
  missingKey: LoadedConfig['templateOptions']['missingKey'] = config.templateOptions.missingKey,
): { name: string; overlay: JsonObject }[] {
  const read = readPod(pod, ctx, config);
  stripPod(read.work, config, []);
  const selected = select(read);
  const data = templateData(config, selected.hooks);
  return (names ?? selected.names).map((name) => {
    const compiled = config.compiledTemplates.get(name);
    if (compiled === undefined) {
      throw new InjectorError(
        'SI_INJECT_TEMPLATE_MISSING',
        `no template named "${name}" in the config; it has: ${[...config.compiledTemplates.keys()].join(', ') || 'none'}`,
      );
    }
    return { name, overlay: renderOverlay(name, compiled, data, { missingKey }) };
  });
}
