/**
 * @module inject/current
 * A pod that already carries this injector's signed status, for the templates and values in
 * force now, with every item it lists still present, is left exactly as it is.
 *
 * Why: with `reinvocationPolicy: IfNeeded` the apiserver re-runs its own mutating plugins after
 * a webhook changed the pod, then calls the webhook again because the pod changed after it.
 * The ServiceAccount plugin, for one, has by then mounted its token into our sidecar. Stripping
 * and re-rendering would drop that mount (found on a real kube-apiserver: every webhook-injected
 * sidecar lost its token, which a secrets agent or any API client sidecar needs). An injection
 * that is current has nothing to redo; what others added since stays.
 */
import type { LoadedConfig } from '../config/types.js';
import { annotationsOf, itemNames, type Pod } from './pod-types.js';
import { selectTemplates } from './select.js';
import { statusNames, templateHash } from './status-annotation.js';
import type { InjectionStatus } from './types.js';

const LISTS = ['containers', 'initContainers', 'volumes', 'imagePullSecrets'] as const;

/**
 * `received`: the pod as it arrived (with the injection); `stripped`: the same pod with the
 * earlier injection taken out (its annotations are what selection reads).
 */
export function isCurrentInjection(received: Pod, stripped: Pod, status: InjectionStatus, config: LoadedConfig): boolean {
  const templates = status.templates;
  if (templates === undefined || status.templateHash === undefined) return false;
  if (templateHash(config, templates) !== status.templateHash) return false;
  const now = selectTemplates(annotationsOf(stripped), config).names;
  if (now.length !== templates.length || now.some((n, i) => n !== templates[i])) return false;
  return LISTS.every((list) => {
    const present = new Set(itemNames(received, list));
    return statusNames(status, list).every((n) => present.has(n));
  });
}
