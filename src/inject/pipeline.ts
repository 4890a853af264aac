/**
 * @module inject/pipeline
 * The injection pipeline, pure and synchronous. `injectPod` is the list of its stages
 * (stages.ts; each takes the pipeline's state and returns the next):
 *
 *   checkLimits -> readPod -> decide -> strip -> select -> render -> merge -> postProcess -> order
 *   -> annotate -> mountToken -> patch -> replaceForeign
 *
 * check the per-request limits (a pod over one that would be skipped is skipped), read the pod
 * (check and copy it), decide (Istio's rules), strip an earlier injection, select the templates
 * (after the profiles validated the annotations), render them (template data from the core and
 * the profiles), merge the overlays into the pod, let the profiles post-process it (Istio's),
 * order the containers (and refuse a pod that could not run), annotate it with the status (what
 * was injected, how to undo it), in webhook mode mount the service-account token into the
 * injected containers as the apiserver would right after, and patch: RFC 6902 against the pod
 * exactly as received; when strip dropped an unsigned status, replace the items it lists that
 * this injection injects too. Two stages end the list early with a result of their own: decide
 * (`skipped`) and strip (`alreadyCurrent`: the pod carries this config's signed status).
 * Profiles (inject/profile-hooks.ts, bound to the config at load) plug into select, render,
 * postProcess, order and strip; this module knows none of them.
 *
 * The input is never mutated; every failure is an InjectorError with a stable code, thrown
 * before anything is returned (no half-built result).
 */
import type { LoadedConfig } from '../config/types.js';
import { InjectorError } from '../errors.js';
import type { JsonObject } from '../util/json.js';
import { templateData } from './data.js';
import { injectsAll, removeItems, sharedItems } from './foreign-status.js';
import { readPodInput } from './pod-input.js';
import { renderOverlay } from './render-overlay.js';
import {
  alreadyCurrent,
  annotate,
  checkLimits,
  decideStage,
  merge,
  mountToken,
  order,
  patch,
  postProcess,
  readPod,
  render,
  select,
  skipped,
  strip,
  type Stripped,
} from './stages.js';
import type { InjectedResult, InjectionContext, InjectionResult } from './types.js';

/**
 * Inject the sidecar into `pod` (a Pod, or a workload's pod template `{metadata, spec}` with
 * `ctx.owner` naming the workload). Returns the decision, and when injected the new pod, the
 * patch from the pod as received, the status and warnings. Throws InjectorError.
 */
export function injectPod(pod: unknown, ctx: InjectionContext, config: LoadedConfig): InjectionResult {
  const overLimit = checkLimits(pod, ctx, config);
  if (overLimit !== undefined) return overLimit;
  const decided = decideStage(readPod(pod, ctx, config));
  if (!decided.decision.inject) return skipped(decided);
  const stripped = strip(decided);
  if (stripped.current !== undefined) return alreadyCurrent({ ...stripped, current: stripped.current });
  return replaceForeign(stripped, injectStripped(stripped));
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
 * The last stage when strip dropped an unsigned status instead of acting on it (`foreign`): the
 * items it lists that this injection injects too are replaced (foreign-status.ts), by injecting
 * again into a copy of the pod without them. Which items those are is known only once the first
 * injection is done, and the second must render from the pod without them (templates read the
 * pod's containers), so the stages after strip run again. Without a foreign status: `first`.
 */
function replaceForeign(stripped: Stripped, first: InjectedResult): InjectedResult {
  const foreign = stripped.foreign;
  if (foreign === undefined) return first;
  const items = sharedItems(foreign, first.status);
  if (items === undefined) return first;
  const again = readPodInput(stripped.received).pod;
  removeItems(again, items);
  const annotations = again.metadata?.annotations;
  if (annotations !== null && annotations !== undefined) delete annotations[stripped.config.injectionKeys.status];
  const second = injectStripped({ ...stripped, work: again });
  return injectsAll(second.status, items) ? second : first;
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
  const selected = select(strip(readPod(pod, ctx, config)));
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
