/**
 * @module inject/inject
 * The injection pipeline, one step per module, pure and synchronous:
 *
 *   validate (pod-input) -> decide -> strip an earlier injection (strip) -> validate Istio's
 *   annotations (istio-validate) -> select templates (select) -> template data (data) ->
 *   render each template (render) -> strategic merge + user overrides (merge) -> Istio's
 *   post-processing when enabled (istio-postprocess) -> injectedAnnotations -> order (reorder)
 *   -> unique names, no port clash -> undo record + status annotation (undo, status) -> RFC 6902 patch
 *   against the pod exactly as received.
 *
 * The input is never mutated; every failure is an InjectorError with a stable code, thrown
 * before anything is returned (no half-built result).
 */
import type { LoadedConfig } from '../config/types.js';
import { InjectorError } from '../errors.js';
import { createPatch } from '../patch/index.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { TemplateData, templatesMayMutate, revisionOf } from './data.js';
import { decide } from './decide.js';
import { deployMetaOf } from './deploy-meta.js';
import { applyIstioPostProcessing, istioPostProcessingEnabled } from './istio-postprocess.js';
import { validateIstioAnnotations } from './istio-validate.js';
import { assertHasAppContainer, assertNoPortConflicts, assertUniqueNames, mergeOverlays } from './merge.js';
import { inboundTrafficPolicyMode, meshSettings, podProxyConfig, PROXY_CONFIG_ANNOTATION } from './mesh-config.js';
import { readPodInput } from './pod-input.js';
import { setMember } from './proto.js';
import { renderOverlay } from './render.js';
import { INIT_BEFORE_PROXY_ANNOTATION, reorderPod } from './reorder.js';
import { selectTemplates } from './select.js';
import { formatStatus, templateHash } from './status.js';
import { signStatus } from './status-mac.js';
import { stripPod, type StatusTrust } from './strip.js';
import { injectsAll, removeItems, sharedItems } from './foreign-status.js';
import { checkAnnotationLimit, checkPatchLimit, checkSpecLimits, type PodLimits } from './limits.js';
import type { Decision, InjectedResult, InjectionContext, InjectionResult, InjectionStatus, SkippedResult } from './types.js';
import { computeUndo, withoutInjected } from './undo.js';

type Obj = Record<string, unknown>;

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
  const input = readPodInput(pod);
  const decision = decide(input.pod, ctx, config);
  if (!decision.inject) return { kind: 'skipped', decision, warnings: [] };

  const warnings: string[] = [];
  const trust = ctx.statusKeys !== undefined ? { ring: ctx.statusKeys, namespace: ctx.namespace } : undefined;
  const { previous, foreign } = stripPod(input.pod, config, warnings, trust);
  if (previous !== undefined && !previous.ours) {
    warnings.push(`re-injecting a pod injected by another injector (${config.injectionKeys.status} without an undo record): its listed containers and volumes were replaced`);
  }
  const first = injectWorkingCopy(pod, input.pod, input.hasManagedFields, decision, ctx, config, warnings, trust);
  if (foreign === undefined) return first;
  // An unsigned status: the items it lists that this injection injects too are replaced.
  const items = sharedItems(foreign, first.status);
  if (items === undefined) return first;
  const again = readPodInput(pod).pod;
  removeItems(again, items);
  delete ((again.metadata as Obj).annotations as Obj)[config.injectionKeys.status];
  const second = injectWorkingCopy(pod, again, input.hasManagedFields, decision, ctx, config, warnings, trust);
  return injectsAll(second.status, items) ? second : first;
}

/**
 * Inject into `work` (a validated working copy of `pod`, an earlier injection already stripped).
 * The patch is computed against `pod` as received.
 */
function injectWorkingCopy(
  pod: unknown,
  work: JsonObject,
  hasManagedFields: boolean,
  decision: Decision,
  ctx: InjectionContext,
  config: LoadedConfig,
  warnings: readonly string[],
  trust: StatusTrust | undefined,
): InjectedResult {
  // The pod as it was before any injection: what undo restores. Nothing below mutates it (the
  // template data is a read-only view, strategic merge copies), so no copy is needed.
  const user = work;

  const meta = (isPlainObject(work.metadata) ? work.metadata : {}) as Obj;
  const annotations = (isPlainObject(meta.annotations) ? meta.annotations : {}) as Record<string, string>;
  validateIstioAnnotations(annotations);

  const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : ctx.namespace;
  const selection = selectTemplates(annotations, config);
  const mesh = meshSettings(config);
  const proxy = podProxyConfig(mesh, Object.hasOwn(annotations, PROXY_CONFIG_ANNOTATION) ? annotations[PROXY_CONFIG_ANNOTATION] : undefined);
  const data = new TemplateData({
    pod: work,
    namespace,
    meta: deployMetaOf(work, namespace, ctx.owner),
    proxyConfig: proxy.object,
    proxyConfigJson: proxy.json,
    meshConfig: mesh.meshObject,
    inboundTrafficPolicyMode: inboundTrafficPolicyMode(mesh.mesh),
    config,
    cloneValues: templatesMayMutate(config),
  });

  const overlays = selection.names.map((name) => ({ name, overlay: renderOverlay(name, config.compiledTemplates.get(name)!, data) }));
  const { pod: merged, injected, overrides, sidecars } = mergeOverlays(user, overlays);

  if (istioPostProcessingEnabled(config)) {
    applyIstioPostProcessing(merged, user, {
      config,
      mesh,
      proxy: proxy.json,
      pathParams: ctx.pathParams ?? {},
      overrides,
    });
  }

  const mergedMeta = ensureMap(merged, 'metadata');
  const mergedAnnotations = ensureMap(mergedMeta, 'annotations');
  for (const [k, v] of Object.entries(config.injectedAnnotations)) setMember(mergedAnnotations, k, v);

  const holdFirst = holdApplicationUntilProxyStarts(proxy.json, config);
  reorderPod(merged, sidecars, userOrder(user), { holdFirst, initBeforeProxy: initBeforeProxy(mergedAnnotations) });
  assertUniqueNames(merged, selection.names);
  assertHasAppContainer(merged, selection.names);
  assertNoPortConflicts(merged, sidecars);

  const status: InjectionStatus = {
    initContainers: nullIfEmpty(injected.initContainers),
    containers: nullIfEmpty(injected.containers),
    volumes: nullIfEmpty(injected.volumes),
    imagePullSecrets: nullIfEmpty(injected.imagePullSecrets),
    revision: revisionOf(config) || 'default',
    templates: selection.names,
    templateHash: templateHash(config, selection.names),
  };
  // Undo: what turns the injected pod, minus the listed items, back into the user's pod.
  const undo = computeUndo(user, withoutInjected(merged, status, config.injectionKeys.status));
  if (undo.length > 0) status.undo = undo;
  const statusText = formatStatus(status);
  setMember(mergedAnnotations, config.injectionKeys.status, trust !== undefined ? signStatus(statusText, trust.namespace, trust.ring) : statusText);

  const final = withManagedFields(merged, pod as Obj, hasManagedFields);
  let patch;
  try {
    patch = createPatch(pod, final);
  } catch (err) {
    if (err instanceof InjectorError) throw err;
    throw new InjectorError('SI_PATCH', `the JSON patch could not be built: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (ctx.limits !== undefined) checkPatchLimit(patch, ctx.limits);
  return { kind: 'injected', decision, pod: final, patch, status, warnings: [...decision.warnings, ...warnings] };
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
    const p = pod as Obj;
    const spec = isPlainObject(p.spec) ? p.spec : {};
    const decision = decide(readPodInput({ metadata: p.metadata, spec: { hostNetwork: spec.hostNetwork, containers: [] } }).pod, ctx, config);
    if (!decision.inject) return { kind: 'skipped', decision, warnings: [] };
    throw err;
  }
}

function ensureMap(obj: Obj, key: string): Obj {
  const v = Object.hasOwn(obj, key) ? obj[key] : undefined;
  if (isPlainObject(v)) return v;
  const m: Obj = {};
  setMember(obj, key, m);
  return m;
}

function nullIfEmpty(names: string[]): string[] | null {
  return names.length === 0 ? null : names;
}

function userOrder(user: JsonObject): { containers: string[]; initContainers: string[] } {
  const spec = user.spec as Obj;
  const namesIn = (list: unknown) => (Array.isArray(list) ? list.map((c) => (c as Obj).name).filter((n): n is string => typeof n === 'string') : []);
  return { containers: namesIn(spec.containers), initContainers: namesIn(spec.initContainers) };
}

function initBeforeProxy(annotations: Obj): string[] {
  const v = annotations[INIT_BEFORE_PROXY_ANNOTATION];
  if (typeof v !== 'string' || v === '') return [];
  return [...new Set(v.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
}

/**
 * Istio's rule for putting the proxy first: holdApplicationUntilProxyStarts in the pod's proxy
 * config (mesh default + `proxy.istio.io/config` annotation) or in values.global.proxy.
 */
export function holdApplicationUntilProxyStarts(proxy: Readonly<Record<string, unknown>>, config: Pick<LoadedConfig, 'values'>): boolean {
  if (proxy.holdApplicationUntilProxyStarts === true) return true;
  const g = config.values.global;
  const p = isPlainObject(g) ? g.proxy : undefined;
  return isPlainObject(p) && p.holdApplicationUntilProxyStarts === true;
}

/** The result pod with the input's managedFields put back (same reference: the patch skips it). */
function withManagedFields(pod: JsonObject, original: Obj, has: boolean): JsonObject {
  if (!has) return pod;
  const meta = pod.metadata as Obj;
  const originalMeta = original.metadata as Obj;
  setMember(meta, 'managedFields', originalMeta.managedFields);
  return pod;
}
