/**
 * @module inject/stages
 * The stages of the injection pipeline (inject.ts lists them in order). Every stage has one
 * contract: it takes the pipeline's state and returns the next state, that is the same state
 * with what the stage produced added (`advance`), typed as the next stage's input.
 *
 * The one rule about mutation: a stage changes in place what the pipeline owns, and nothing
 * else. The pipeline owns the state object (one per injection: stages add to it, never copy it,
 * so the stage structure costs plain function calls), the working copy `work` until the strip
 * stage is done (after it, `work` is the user's pod as it was before any injection: what undo
 * restores, read by every later stage and changed by none), the merged pod `merged` from the
 * merge stage on, and the `warnings` list. The received pod, the config, the rendered overlays
 * (cached, shared between requests) and whatever a profile hands over are never changed.
 */
import type { LoadedConfig } from '../config/types.js';
import { InjectorError } from '../errors.js';
import { applyPatch, createPatch } from '../patch/index.js';
import { cloneJson, deepEqual, isPlainObject, type JsonObject } from '../util/json.js';
import { setOwn } from '../util/own.js';
import { isCurrentInjection } from './current.js';
import { revisionOf, templateData } from './data.js';
import { decide } from './decide.js';
import { checkAnnotationLimit, checkPatchLimit, specOverLimit } from './limits.js';
import { assertHasAppContainer, assertNoPortConflicts, assertUniqueNames, mergeOverlays, type MergeResult } from './merge.js';
import { DEBUG_CHECKS, freezeReceived, hasAnnotation, ownWriterFrame } from './cow.js';
import { readPodInput } from './pod-input.js';
import { annotationsOf, asJson, itemNames, type Pod, type StringMap } from './pod-types.js';
import type { PodHooks, PodProfileInput } from './profile-hooks.js';
import { renderMemoized } from './render-memo.js';
import { reorderPod } from './reorder.js';
import { assertImagesResolved } from './unresolved-image.js';
import { selectTemplates } from './select.js';
import { formatStatus, templateHash, type ParsedStatus } from './status-annotation.js';
import { signStatus } from './status-mac.js';
import { computeStripRecord } from './strip-record.js';
import { stripPod, type StatusTrust } from './strip.js';
import type { Decision, InjectedResult, InjectionContext, InjectionStatus, SkippedResult } from './types.js';

/** After readPod: the pod, checked and typed, and its working copy. */
export interface Read {
  readonly ctx: InjectionContext;
  readonly config: LoadedConfig;
  /** The pod as received: the patch is computed against it. Never changed. */
  readonly received: Pod;
  /** The working copy (without managedFields). */
  readonly work: Pod;
  readonly hasManagedFields: boolean;
  readonly warnings: string[];
}

export interface Decided extends Read {
  readonly decision: Decision;
}

export interface Stripped extends Decided, StripResult {}

/** What the strip stage adds (renderPodTemplates runs it on a pod that was only read). */
export interface StripResult {
  /** Only statuses signed for this namespace are acted on (the webhook); undefined: all (the CLI). */
  readonly trust: StatusTrust | undefined;
  /** The earlier injection that was stripped from `work`, if any. */
  readonly previous: ParsedStatus | undefined;
  /** An unsigned status that was dropped, not acted on: what it lists (see foreign-status.ts). */
  readonly foreign: InjectionStatus | undefined;
  /** The pod carries this injector's signed status, current for this config (nothing to do): that status. */
  readonly current: InjectionStatus | undefined;
}

export interface Selected extends Stripped, Selection {}

/** What the select stage adds (renderPodTemplates runs it on a pod that was only read and stripped). */
export interface Selection {
  /** The pod's annotations (of `work`). */
  readonly annotations: Readonly<StringMap>;
  /** Template names, aliases expanded, in merge order. */
  readonly names: string[];
  /** The profiles' hooks for this pod, in the config's profile order. */
  readonly hooks: readonly PodHooks[];
}

export interface Rendered extends Selected {
  readonly overlays: readonly { name: string; overlay: JsonObject }[];
}

export interface Merged extends Rendered, Omit<MergeResult, 'pod'> {
  /** The pod with the overlays merged in: owned by the state from here on. */
  readonly merged: JsonObject;
  /** The merged pod's annotations map (created when missing). */
  readonly mergedAnnotations: Record<string, unknown>;
}

export interface Annotated extends Merged {
  readonly status: InjectionStatus;
}

/** Add a stage's results to the state (the pipeline's own object) and return it as the next state. */
function advance<S extends object, T extends object>(s: S, results: T): S & T {
  return Object.assign(s, results);
}

/**
 * The per-request limits, checked before any work that grows with the pod (so before readPod's
 * copy). A pod over a list limit is still decided on (decide reads only metadata and
 * spec.hostNetwork, without copying), so a pod that would be skipped is skipped, not refused;
 * one that would be injected gets SI_INJECT_LIMIT. Undefined: within the limits.
 */
export function checkLimits(pod: unknown, ctx: InjectionContext, config: LoadedConfig): SkippedResult | undefined {
  const limits = ctx.limits;
  if (limits === undefined) return undefined;
  checkAnnotationLimit(pod, limits);
  const over = specOverLimit(pod, limits);
  if (over === undefined) return undefined;
  const decision = decide(pod, ctx, config);
  if (!decision.inject) return { kind: 'skipped', decision, warnings: [] };
  throw over;
}

/**
 * Read the pod: check its shape (InjectionError otherwise) and make the working copy, which shares
 * the received pod's subtrees unless strip will edit it (an earlier injection's status: cow.ts).
 */
export function readPod(pod: unknown, ctx: InjectionContext, config: LoadedConfig): Read {
  if (DEBUG_CHECKS) freezeReceived(pod);
  const input = readPodInput(pod, !hasAnnotation(pod, config.injectionKeys.status));
  return { ctx, config, received: input.received, work: input.pod, hasManagedFields: input.hasManagedFields, warnings: [] };
}

/** Decide whether the pod gets the sidecar (decide.ts: Istio's rules). */
export function decideStage(s: Read): Decided {
  return advance(s, { decision: decide(s.work, s.ctx, s.config) });
}

/** Strip an earlier injection from `work` (strip.ts), and tell whether it is current already. */
export function strip<S extends Read>(s: S): S & StripResult {
  const { ctx, config, warnings } = s;
  const trust = ctx.statusKeys !== undefined ? { ring: ctx.statusKeys, namespace: ctx.namespace } : undefined;
  const { previous, foreign } = stripPod(s.work, config, warnings, trust);
  // Only a status we signed (the webhook) is taken as proof that the pod is ours and current.
  const current =
    trust !== undefined && previous?.ours === true && isCurrentInjection(s.received, s.work, previous.status, config) ? previous.status : undefined;
  if (previous !== undefined && !previous.ours) {
    warnings.push(
      `re-injecting a pod injected by another injector (${config.injectionKeys.status} without an undo record): its listed containers and volumes were replaced`,
    );
  }
  return advance(s, { trust, previous, foreign, current });
}

/** The result for a pod the decision skips. */
export function skipped(s: Decided): SkippedResult {
  return { kind: 'skipped', decision: s.decision, warnings: [] };
}

/**
 * The result for a pod that already carries this injector's signed, current status: injected,
 * with nothing to change (an empty patch), its status the one it carries.
 */
export function alreadyCurrent(s: Stripped & { readonly current: InjectionStatus }): InjectedResult {
  return { kind: 'injected', decision: s.decision, pod: cloneJson(asJson(s.received)), patch: [], status: s.current, warnings: [...s.decision.warnings] };
}

/** Validate the annotations (profiles' `validate`), select the templates, and bind the profiles to this pod. */
export function select<S extends Read>(s: S): S & Selection {
  const { ctx, config, work } = s;
  const annotations = annotationsOf(work);
  for (const profile of config.profiles) profile.validate?.(annotations);
  const ns = work.metadata?.namespace;
  const namespace = typeof ns === 'string' && ns !== '' ? ns : ctx.namespace;
  const names = selectTemplates(annotations, config).names;
  const input: PodProfileInput = { pod: work, annotations, namespace, owner: ctx.owner, pathParams: ctx.pathParams ?? {} };
  const hooks: PodHooks[] = [];
  for (const profile of config.profiles) if (profile.forPod !== undefined) hooks.push(profile.forPod(input));
  return advance(s, { annotations, names, hooks });
}

/**
 * Render each selected template with the template data (the core's fields + profiles' `templateFields`);
 * an image holding a missing value's print is refused here, for every config (unresolved-image.ts).
 */
export function render(s: Selected): Rendered {
  const data = templateData(s.config, s.hooks);
  const options = renderOptions(s.config);
  // select checked every name against the compiled templates.
  const overlays = s.names.map((name) => ({ name, overlay: renderMemoized(s.config, name, s.config.compiledTemplates.get(name)!, data, options, s.work) }));
  if (s.ctx.unresolvedImages !== 'allow') for (const o of overlays) assertImagesResolved(o.name, o.overlay);
  return advance(s, { overlays });
}

/** Strategic-merge the overlays into the user's pod, then the user's own sidecar customisations (merge.ts). */
export function merge(s: Rendered): Merged {
  const { pod, injected, sidecars, overrides } = mergeOverlays(s.work, s.overlays);
  // The merge shared what it did not touch; later stages write only into the frame owned here.
  ownWriterFrame(pod, new Set([...injected.containers, ...injected.initContainers]));
  const mergedAnnotations = ensureMap(ensureMap(pod, 'metadata'), 'annotations');
  return advance(s, { injected, sidecars, overrides, merged: pod, mergedAnnotations });
}

/** The profiles' post-processing, then the config's injectedAnnotations (last: they are what the config says). */
export function postProcess(s: Merged): Merged {
  for (const h of s.hooks) h.postProcess?.(s.merged, s.work, s.overrides);
  // Post-processing may have replaced the annotations map; the config's go into the one the pod has.
  const mergedAnnotations = ensureMap(ensureMap(s.merged, 'metadata'), 'annotations');
  for (const [k, v] of Object.entries(s.config.injectedAnnotations)) setOwn(mergedAnnotations, k, v);
  return advance(s, { mergedAnnotations });
}

/** Put injected containers where they belong (reorder.ts), then refuse a pod that could not run. */
export function order(s: Merged): Merged {
  const { merged, sidecars, names } = s;
  let holdFirst = false;
  // A set, never a scan per name: an annotation may list 40,000 names.
  const initBeforeProxy = new Set<string>();
  const leadingInit: string[] = [];
  for (const h of s.hooks) {
    holdFirst ||= h.holdFirst === true;
    for (const n of h.initBeforeSidecar?.(s.mergedAnnotations) ?? []) initBeforeProxy.add(n);
    if (h.leadingInitContainers !== undefined) leadingInit.push(...h.leadingInitContainers);
  }
  const userOrder = { containers: itemNames(s.work, 'containers'), initContainers: itemNames(s.work, 'initContainers') };
  reorderPod(merged, sidecars, userOrder, { holdFirst, initBeforeProxy: [...initBeforeProxy], leadingInit });
  assertUniqueNames(merged, names);
  assertHasAppContainer(merged, names);
  assertNoPortConflicts(merged, sidecars);
  return s;
}

/** Record the injection: the status (what was injected, the undo record), signed for the webhook. */
export function annotate(s: Merged): Annotated {
  const { injected, config, names } = s;
  const status: InjectionStatus = {
    initContainers: nullIfEmpty(injected.initContainers),
    containers: nullIfEmpty(injected.containers),
    volumes: nullIfEmpty(injected.volumes),
    imagePullSecrets: nullIfEmpty(injected.imagePullSecrets),
    revision: revisionOf(config) || 'default',
    templates: names,
    templateHash: templateHash(config, names),
    v: 2,
  };
  // What turns the injected pod, minus the listed items, back into the user's pod (strip-record.ts).
  const record = computeStripRecord(s.work, s.merged, status, config.injectionKeys.status, config.profiles);
  if (record.rm !== '') status.rm = record.rm;
  if (record.undo.length > 0) status.undo = record.undo;
  const text = formatStatus(status);
  setOwn(s.mergedAnnotations, config.injectionKeys.status, s.trust !== undefined ? signStatus(text, s.trust.namespace, s.trust.ring) : text);
  return advance(s, { status });
}

/** Where the ServiceAccount admission plugin mounts the API token into every container. */
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * Webhook mode: mount the service-account token into the injected containers as the apiserver's
 * ServiceAccount admission does into every container (plugin/pkg/admission/serviceaccount,
 * mountServiceAccountToken: the first volume named kube-api-access-*, `{name, readOnly: true,
 * mountPath}` appended, unless the container mounts something at TOKEN_MOUNT_PATH already). The
 * apiserver runs that plugin again after any webhook changed the pod, and it would add exactly
 * these mounts; that change is what made the apiserver call a `reinvocationPolicy: IfNeeded`
 * webhook a second time for every pod. Adding them here leaves the stored pod the same and
 * saves that call.
 *
 * Only where the plugin evidently mounted that volume already: automounting is not off in the
 * pod, the volume is a projected service-account token (the plugin's shape since 1.22), and a
 * container of the pod as received mounts it read-only at TOKEN_MOUNT_PATH. A service account
 * with automounting off leaves no such volume (the plugin adds it only with a mount), so its
 * pods are left alone too. Anything else is left to the plugin (at worst, one more call).
 */
export function mountToken(s: Annotated): Annotated {
  if (s.ctx.mode !== 'webhook') return s;
  const spec = s.merged.spec;
  if (!isPlainObject(spec) || spec.automountServiceAccountToken === false || !Array.isArray(spec.volumes)) return s;
  const token = spec.volumes.find((v): v is JsonObject => isPlainObject(v) && typeof v.name === 'string' && v.name.startsWith('kube-api-access-'));
  if (token === undefined || !isProjectedToken(token) || !pluginMounted(s.received, token.name as string)) return s;
  for (const [field, names] of [
    ['initContainers', s.status.initContainers],
    ['containers', s.status.containers],
  ] as const) {
    const list = spec[field];
    if (names === null || !Array.isArray(list)) continue;
    let copy: unknown[] | undefined;
    list.forEach((c, i) => {
      if (!isPlainObject(c) || !names.includes(c.name as string)) return;
      const mounts = Array.isArray(c.volumeMounts) ? c.volumeMounts : [];
      if (mounts.some((m) => isPlainObject(m) && m.mountPath === TOKEN_MOUNT_PATH)) return;
      // New objects: the container may be shared with a cached overlay.
      copy ??= [...list];
      copy[i] = { ...c, volumeMounts: [...mounts, { name: token.name, readOnly: true, mountPath: TOKEN_MOUNT_PATH }] };
    });
    if (copy !== undefined) setOwn(spec, field, copy);
  }
  return s;
}

function isProjectedToken(volume: JsonObject): boolean {
  const sources = isPlainObject(volume.projected) ? volume.projected.sources : undefined;
  return Array.isArray(sources) && sources.some((p) => isPlainObject(p) && isPlainObject(p.serviceAccountToken));
}

/** Whether a container of the pod as received mounts `volume` as the plugin does. */
function pluginMounted(received: Pod, volume: string): boolean {
  const spec = received.spec;
  if (!isPlainObject(spec)) return false;
  return [spec.initContainers, spec.containers].some(
    (list) =>
      Array.isArray(list) &&
      list.some(
        (c) =>
          isPlainObject(c) &&
          Array.isArray(c.volumeMounts) &&
          c.volumeMounts.some((m) => isPlainObject(m) && m.name === volume && m.mountPath === TOKEN_MOUNT_PATH && m.readOnly === true),
      ),
  );
}

/** The result: managedFields put back (the same reference), and the RFC 6902 patch from the pod as received. */
export function patch(s: Annotated): InjectedResult {
  const { received, merged, ctx } = s;
  // managedFields were set aside unread (pod-input.ts); metadata is the map the merge stage ensured.
  if (s.hasManagedFields) setOwn(ensureMap(merged, 'metadata'), 'managedFields', received.metadata?.managedFields);
  let ops;
  try {
    ops = createPatch(received, merged);
  } catch (err) {
    if (err instanceof InjectorError) throw err;
    throw new InjectorError('SI_PATCH', `the JSON patch could not be built: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (ctx.limits !== undefined) checkPatchLimit(ops, ctx.limits);
  if (DEBUG_CHECKS && !deepEqual(applyPatch(received, ops), merged)) {
    throw new InjectorError('SI_INTERNAL', 'debug check: the patch does not turn the pod as received into the injected pod');
  }
  return { kind: 'injected', decision: s.decision, pod: merged, patch: ops, status: s.status, warnings: [...s.decision.warnings, ...s.warnings] };
}

/** The config's execute options; undefined for the defaults (Istio's behaviour). */
function renderOptions(config: LoadedConfig): { missingKey: 'zero' | 'error' } | undefined {
  const m = config.templateOptions.missingKey;
  return m === 'default' ? undefined : { missingKey: m };
}

function ensureMap(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = Object.hasOwn(obj, key) ? obj[key] : undefined;
  if (isPlainObject(v)) return v;
  const m: Record<string, unknown> = {};
  setOwn(obj, key, m);
  return m;
}

function nullIfEmpty(names: string[]): string[] | null {
  return names.length === 0 ? null : names;
}
