/**
 * @module inject/types
 * The contract of the pure injection core. The webhook, the CLI (`inject`, `explain`,
 * `uninject`), the KRM function and the tests all go through these shapes, so they can never
 * disagree about what happens to a pod.
 */
import type { JsonPatchOperation } from '../patch/types.js';
import type { JsonObject } from '../util/json.js';
import type { PodLimits } from './limits.js';
import type { StatusKeyring } from './status-mac.js';

/** The patch engines define it (patch/types.ts); re-exported for the core's consumers. */
export type { JsonPatchOperation } from '../patch/types.js';

/**
 * Machine-readable reasons for a decision. Stable strings: they appear in metrics labels,
 * logs, admission warnings and `explain` output.
 */
export type DecisionReason =
  | 'host-network'
  | 'ignored-namespace'
  | 'mirror-pod'
  | 'explicit-enabled'
  | 'explicit-disabled'
  | 'never-inject-selector'
  | 'always-inject-selector'
  | 'policy-enabled'
  | 'policy-disabled'
  | 'policy-invalid'
  | 'already-injected'
  | 'not-a-pod'
  | 'namespace-not-selected'
  | 'object-not-selected';

/** One step of the reasoning, in order, for `explain` and debug logs. */
export interface DecisionStep {
  /** What was checked, e.g. `label sidecar.istio.io/inject`. */
  check: string;
  /** What was found, e.g. `"true"` or `absent`. */
  found: string;
  /** What it means for the decision, e.g. `explicit yes`. */
  effect: string;
}

export interface Decision {
  inject: boolean;
  reason: DecisionReason;
  /** One line a human can act on, e.g. `pod has hostNetwork: true; sidecars are never injected into host-network pods`. */
  message: string;
  steps: DecisionStep[];
  /** Hints about likely mistakes (value "yes" instead of "true", ...). Short: they become admission warnings. */
  warnings: string[];
}

/** Where the pod came from and what surrounds it. */
export interface InjectionContext {
  /** The request's namespace: used when the pod has none (generateName pods). */
  namespace: string;
  /** `webhook`: the apiserver asked; `manual`: `inject -f` (Istio forces policy enabled there). */
  mode: 'webhook' | 'manual';
  /** Key/value parameters from the webhook path (`/inject/cluster/c1/net/n1`), Istio-style. */
  pathParams?: Record<string, string>;
  /**
   * The webhook's status keys: the status annotation it writes is signed with the first, and an
   * earlier status is acted on (stripped, undone) only when signed by one of them for
   * `namespace`. Absent (the CLI): nothing is signed and every status is read.
   */
  statusKeys?: StatusKeyring;
  /** Per-request limits (the webhook's); over one, SI_INJECT_LIMIT. Absent (the CLI): none. */
  limits?: Readonly<PodLimits>;
  /** For pods built from a workload template: the workload's kind/name (Istio's DeploymentMeta). */
  owner?: { kind: string; name: string; apiVersion?: string };
  /**
   * A rendered container image holding `<nil>` or `<no value>` (text/template's print of a
   * missing value) is SI_INJECT_IMAGE (`refuse`, the default). `allow`: for `config check`
   * only, which validates the injected pod itself and reports every problem of it at once.
   */
  unresolvedImages?: 'refuse' | 'allow';
}

/** What the status annotation records: what was injected, and by which template+values. */
export interface InjectionStatus {
  initContainers: string[] | null;
  containers: string[] | null;
  volumes: string[] | null;
  imagePullSecrets: string[] | null;
  revision: string;
  /** sha256 (hex, first 16 chars) of the templates and values that produced the sidecar. */
  templateHash?: string;
  templates?: string[];
  /**
   * How to restore what the injection changed besides adding the listed items (labels and
   * annotations it added or overwrote, user containers it customised or moved, ...), so strip
   * and uninject give back the pod exactly as it was. Absent when there is nothing to restore.
   * Format: see {@link UndoEntry}.
   */
  undo?: UndoEntry[];
  /**
   * Format 2 (issue 37, written as `"v":2`): stripping first removes the listed items, lets the
   * profiles' `restore` hooks give back what their post-processing recorded on the removed
   * containers, deletes the label and annotation members named in `rm`, removes the pod's
   * labels, annotations, init containers, volumes and imagePullSecrets where they are left
   * empty, and then applies `undo`. Absent: format 1 (only `undo`, every change in it).
   */
  v?: 2;
  /**
   * Format 2: the label and annotation members the injection added, each as 5 base64url
   * characters of the sha256 of its JSON Pointer, concatenated (undo.ts `memberHash`).
   */
  rm?: string;
}

/**
 * One restore step, applied after the injected items are removed by name. `p` is a JSON
 * Pointer (RFC 6901) to an object member or to a list whose items are keyed by `name`.
 * - `{p}`: delete the member `p` (the injection added it);
 * - `{p, v}`: set the member `p` to `v` (its value before injection), creating parents;
 * - `{p, n, v, i}`: put back the whole item named `n` of the list `p` at index `i`;
 * - `{p, n, s}` / `{p, n, s, v}`: inside the item named `n`, delete / set the member at pointer `s`;
 * - `{p, o}`: reorder the list `p` so the items named in `o` come in that order;
 * - `{p, e: 1}`: delete the member `p` if it is an empty map or list. The injection created it;
 *   whatever is left in it after the steps before was added by someone else since (the
 *   ServiceAccount admission plugin's token volume, another webhook's annotation) and stays.
 * - `{p, k: 1}` (format 2): the pod had the member `p`; strip does not remove it when it is
 *   left empty (inject/strip-record.ts). Nothing to do when the entries are applied.
 */
export interface UndoEntry {
  p: string;
  n?: string;
  s?: string;
  v?: unknown;
  i?: number;
  o?: string[];
  e?: 1;
  k?: 1;
}

export interface SkippedResult {
  kind: 'skipped';
  decision: Decision;
  warnings: string[];
}

export interface InjectedResult {
  kind: 'injected';
  decision: Decision;
  /**
   * The final pod: a new object, and the input is never mutated. It shares the subtrees the
   * injection did not change with the input (inject/cow.ts): clone it before changing it.
   */
  pod: JsonObject;
  /** Operations that turn the pod exactly as received into `pod`. */
  patch: JsonPatchOperation[];
  status: InjectionStatus;
  warnings: string[];
}

export type InjectionResult = SkippedResult | InjectedResult;

/** `uninjectPod`'s answer: the pod as it was before injection, or why there is nothing to undo. */
export type UninjectResult =
  | {
      kind: 'uninjected';
      /** The pod without the injection (a new object; the input is never mutated). */
      pod: JsonObject;
      /** Operations that turn the pod as received into `pod`. */
      patch: JsonPatchOperation[];
      /** The status annotation that was read: what was removed. */
      removed: InjectionStatus;
      warnings: string[];
    }
  | { kind: 'not-injected'; reason: string };
