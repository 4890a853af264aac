/**
 * @module inject/profile-hooks
 * The contract between the pipeline and a profile: a small object of named hooks the pipeline
 * calls at fixed points. The core knows these names, never a profile (src/istio is one; the
 * composition in src/profiles picks which ones a loaded config carries). A profile is bound to
 * one loaded config: whatever it computes from the config (Istio's mesh config) is computed once
 * at load and closed over, so hooks do no per-request work they could have done at load.
 *
 * Hooks, in pipeline order:
 * - `strip`: after the items listed by a status without an undo record (another injector's,
 *   e.g. Istio's) were removed, put back what that injector is known to have changed.
 * - `restore`: the same for this injector's own status (format 2): put back what the profile's
 *   own post-processing changed and can read back from the removed containers (Istio's probe
 *   rewrite, its metrics merge), so the undo record need not carry it. The undo record is
 *   computed after this hook ran on the injected pod, and checked, so whatever the hook does
 *   not give back exactly is recorded.
 * - `validate`: check the pod's annotations before templates are selected; throw an
 *   InjectionError to refuse the pod.
 * - `forPod`: once per pod, after validation: the per-pod hooks below (closed over what the
 *   profile read from the pod, e.g. its proxy config), so nothing is parsed twice.
 *   - `templateFields`: the template data's fields (extra template data), given the fields so far;
 *   - `holdFirst`, `initBeforeSidecar`, `leadingInitContainers`: where containers go (order stage);
 *   - `postProcess`: change the merged pod in place after the merge (the post-process stage),
 *     within the writer frame of inject/cow.ts: the merged pod shares what the merge did not
 *     touch with the pod as received, so anything deeper is replaced, never edited in place.
 *
 * Mutation: hooks may change in place only the pod they are given to change (`strip`,
 * `postProcess`); everything else they see is read-only.
 */
import type { JsonObject } from '../util/json.js';
import type { Container, Pod, StringMap } from './pod-types.js';
import type { InjectionContext } from './types.js';

/** One field of the template data (`.Name`): computed when a template first reads it. */
export interface TemplateField {
  readonly name: string;
  readonly get: () => unknown;
  /**
   * The value is the same for every pod under one loaded config (the values, the mesh config):
   * the render memo, which is kept per config, leaves it out of its key. Leave unset for
   * anything that depends on the pod or the request.
   */
  readonly perConfig?: boolean;
}

/** What a profile sees of a pod about to be rendered (read-only). */
export interface PodProfileInput {
  /** The pod, an earlier injection stripped. */
  readonly pod: Pod;
  readonly annotations: Readonly<StringMap>;
  /** The pod's namespace, or the request's when the pod has none. */
  readonly namespace: string;
  /** The workload the pod template belongs to, when the caller knows it. */
  readonly owner: InjectionContext['owner'];
  /** Key/value parameters from the webhook path. */
  readonly pathParams: Readonly<Record<string, string>>;
}

/** User containers that customised injected ones (as merged on top of them), per list. */
export interface Overrides {
  containers: Record<string, unknown>[];
  initContainers: Record<string, unknown>[];
}

/** A profile's hooks for one pod. */
export interface PodHooks {
  /** Extra template data: the fields templates see, in order, given the fields so far. */
  templateFields?(fields: readonly TemplateField[]): readonly TemplateField[];
  /** Order: put the injected containers before the app's containers. */
  readonly holdFirst?: boolean;
  /** Order: user init containers to run just before the first native sidecar, read from the merged pod's annotations. */
  initBeforeSidecar?(annotations: Readonly<Record<string, unknown>>): readonly string[];
  /** Order: injected init containers that go before the user's when no native sidecar is injected. */
  readonly leadingInitContainers?: readonly string[];
  /** Post-process the merged pod in place. `user` is the pod before injection (read-only). */
  postProcess?(merged: JsonObject, user: Pod, overrides: Overrides): void;
}

/** The containers a strip removed, by list (what the earlier status listed and the pod had). */
export interface RemovedItems {
  containers: Container[];
  initContainers: Container[];
}

/** A profile bound to one loaded config. */
export interface Profile {
  readonly name: string;
  /** Restore, in place, what another injector changed besides adding the items it listed. */
  strip?(pod: Pod, removed: RemovedItems): void;
  /**
   * Restore, in place, what this profile's post-processing changed on our own injection, read
   * back from the removed containers. Deterministic: it runs when the undo record is computed
   * and again when it is applied. It may set members of the pod's metadata, labels,
   * annotations, spec, container lists and containers (private copies when the record is
   * computed), never anything deeper in place.
   */
  restore?(pod: Pod, removed: RemovedItems): void;
  /** Throw an InjectionError for annotations the profile refuses. */
  validate?(annotations: Readonly<StringMap>): void;
  /** The per-pod hooks. */
  forPod?(input: PodProfileInput): PodHooks;
}
