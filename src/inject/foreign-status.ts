/**
 * @module inject/foreign-status
 * A status the webhook did not sign (written by `inject -f`, by Istio, copied from another pod,
 * or forged) is never used to restore anything. Of the items it lists, only those this very
 * injection injects as well (same list, same name) are replaced: their names are this
 * injector's own, so the merge would take them over anyway, and a pod injected by hand ends up
 * exactly like a pod injected by the webhook alone. A forged list can therefore not remove
 * anything else (another webhook's `log-shipper`, a user container).
 */
import type { Pod } from './pod-types.js';
import { statusNames } from './status-annotation.js';
import type { InjectionStatus } from './types.js';

const LISTS = ['containers', 'initContainers', 'volumes', 'imagePullSecrets'] as const;
type Lists = Partial<Record<(typeof LISTS)[number], Set<string>>>;

/** The items `foreign` lists that `injected` lists too, per list; undefined when there are none. */
export function sharedItems(foreign: InjectionStatus, injected: InjectionStatus): Lists | undefined {
  const out: Lists = {};
  let any = false;
  for (const list of LISTS) {
    const ours = new Set(statusNames(injected, list));
    const both = statusNames(foreign, list).filter((n) => ours.has(n));
    if (both.length > 0) {
      out[list] = new Set(both);
      any = true;
    }
  }
  return any ? out : undefined;
}

/** Remove (in place) the named items from a validated working copy. */
export function removeItems(pod: Pod, items: Lists): void {
  const spec = pod.spec;
  const keep = <T extends { name?: string | null }>(list: T[], drop: Set<string> | undefined): T[] =>
    drop === undefined ? list : list.filter((it) => !(typeof it.name === 'string' && drop.has(it.name)));
  spec.containers = keep(spec.containers, items.containers);
  if (spec.initContainers) spec.initContainers = keep(spec.initContainers, items.initContainers);
  if (spec.volumes) spec.volumes = keep(spec.volumes, items.volumes);
  if (spec.imagePullSecrets) spec.imagePullSecrets = keep(spec.imagePullSecrets, items.imagePullSecrets);
}

/** Whether `injected` lists every item of `items` (so replacing them lost nothing). */
export function injectsAll(injected: InjectionStatus, items: Lists): boolean {
  return LISTS.every((list) => {
    const want = items[list];
    if (want === undefined) return true;
    const have = new Set(statusNames(injected, list));
    return [...want].every((n) => have.has(n));
  });
}
