/**
 * @module heal/types
 * The shapes of self-healing: what state a running pod's sidecar is in, why, and which workload
 * owns it. `status`, `restart` and `serve --reconcile` all speak these, and their JSON output is
 * these shapes, so field names are stable.
 */

/**
 * - `current`: injected by us, with the template hash the config would inject now;
 * - `stale`: injected by us, but the config would now inject something else (or nothing);
 * - `missing`: the webhook would be called and the rules say inject, but the pod has no sidecar;
 * - `skipped`: the rules (or the webhook configuration's scope) say skip;
 * - `foreign`: a sidecar status written by another injector (or another revision that still
 *   serves the pod), an unreadable one, or injected containers present without any status
 *   (added by hand).
 */
export type PodState = 'current' | 'stale' | 'missing' | 'skipped' | 'foreign';

export const POD_STATES: readonly PodState[] = ['current', 'stale', 'missing', 'skipped', 'foreign'];

/** One difference between the injected sidecar and what the config would inject now. */
export interface Change {
  /**
   * - `image`: an injected container's image;
   * - `templates`: the list of templates that render for the pod;
   * - `container`: an injected container, init container or volume appears or disappears;
   * - `spec`: another field of an injected container (listed in `fields`);
   * - `template-or-values`: the hash differs but this pod's sidecar would come out the same
   *   (the status annotation keeps one hash over templates and values together);
   * - `decision`: the rules now skip the pod, so a restart removes the sidecar;
   * - `error`: injecting the pod now would fail (the webhook would refuse it);
   * - `revision`: another revision injected it, or its namespace moved to another revision.
   */
  what: 'image' | 'templates' | 'container' | 'spec' | 'template-or-values' | 'decision' | 'error' | 'revision';
  /** The injected item it concerns (`initContainers/proxy-init`, `containers/sidecar-proxy`). */
  item?: string;
  from?: string;
  to?: string;
  fields?: string[];
  /** One line a human reads. */
  detail: string;
}

export interface Classification {
  state: PodState;
  /**
   * Machine-readable: for skipped, the decision reason (`explicit-disabled`,
   * `namespace-not-selected`, ...); for foreign, `other-injector`, `other-revision`,
   * `unreadable-status` or `injected-by-hand`; for the others, the decision reason that wants the sidecar.
   */
  reason: string;
  /** One sentence: why this state. */
  message: string;
  /** For stale pods: what changed. */
  changes?: Change[];
  /** The status annotation's template hash, and the one the config gives now. */
  hash?: { pod?: string; now?: string };
  /** The revision that injected the pod (the status annotation's `revision`), when it names one. */
  revision?: string;
}

/** A pod's owning workload, resolved through ReplicaSets (Deployment) and Jobs (CronJob). */
export interface WorkloadRef {
  kind: string;
  name: string;
  namespace: string;
  apiVersion?: string;
  /** For Events (`kubectl describe` matches them by uid). */
  uid?: string;
}

/** Workload kinds `restart` can roll through the restartedAt annotation. */
const RESTARTABLE_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet'] as const;

export function isRestartable(kind: string): boolean {
  return (RESTARTABLE_KINDS as readonly string[]).includes(kind);
}
