/**
 * @module inject/reorder
 * Where injected containers go. Strategic merge puts new list items before the pod's own, so
 * the order is set afterwards, as Istio's reorderPod does, generalised from `istio-proxy` to
 * every injected container:
 *
 * - containers: the user's first, in their order, then the injected ones in template order
 *   (so `kubectl exec`/`logs` default to the app); injected ones first instead when the proxy
 *   must start before the app (`holdFirst`: Istio's holdApplicationUntilProxyStarts).
 * - initContainers with a native sidecar among the injected ones (an init container with
 *   `restartPolicy: Always`): the injected ones first, in template order (traffic setup, then
 *   the sidecar), then the user's, so user init containers already have the proxy. User init
 *   containers a profile names (`initBeforeProxy`: Istio's
 *   `sidecar.istio.io/init-containers-before-proxy` annotation) go just before the first native
 *   sidecar.
 * - initContainers otherwise: the user's first, then the injected ones, so traffic redirection
 *   is set up last and does not cut off user init containers; except the injected ones a
 *   profile leads with (`leadingInit`: Istio's CNI check `istio-validation`), which go first to
 *   hold everything until the network is ready.
 *
 * User items keep the order they had before injection; anything else (not injected, not the
 * user's) keeps its place after the user's items.
 */
import { isPlainObject, type JsonObject } from '../util/json.js';

type Obj = Record<string, unknown>;

export interface ReorderOptions {
  holdFirst: boolean;
  /** User init containers to place before the native sidecar, in order. */
  initBeforeProxy: readonly string[];
  /** Injected init containers that go first when no native sidecar is injected. */
  leadingInit: readonly string[];
}

/** Reorder `pod` in place. `userOrder` holds the pod's own names per list, before injection. */
export function reorderPod(
  pod: JsonObject,
  injected: { containers: readonly string[]; initContainers: readonly string[] },
  userOrder: { containers: string[]; initContainers: string[] },
  options: ReorderOptions,
): void {
  const spec = pod.spec as Obj;
  if (Array.isArray(spec.containers)) {
    const { mine, ours, other } = split(spec.containers as Obj[], injected.containers, userOrder.containers);
    spec.containers = options.holdFirst ? [...ours, ...mine, ...other] : [...mine, ...other, ...ours];
  }
  if (Array.isArray(spec.initContainers)) {
    const { mine, ours, other } = split(spec.initContainers as Obj[], injected.initContainers, userOrder.initContainers);
    const nativeAt = ours.findIndex((c) => c.restartPolicy === 'Always');
    let out: Obj[];
    if (nativeAt >= 0) {
      // Maps and sets, never a scan per name: the annotation and the pod may list 40,000 names.
      const mineByName = new Map(mine.map((c) => [c.name, c]));
      const injectedNames = new Set(injected.initContainers);
      const early = new Set<Obj>();
      for (const n of options.initBeforeProxy) {
        const c = mineByName.get(n);
        if (c !== undefined && !injectedNames.has(n)) early.add(c);
      }
      const rest = mine.filter((c) => !early.has(c));
      out = [...ours.slice(0, nativeAt), ...early, ...ours.slice(nativeAt), ...rest, ...other];
    } else {
      const leading = (c: Obj) => options.leadingInit.includes(c.name as string);
      out = [...ours.filter(leading), ...mine, ...other, ...ours.filter((c) => !leading(c))];
    }
    spec.initContainers = out;
  }
}

/** Split a list into the user's items (in `userOrder`), the injected (in `injectedOrder`) and others (kept in place). */
function split(list: Obj[], injectedOrder: readonly string[], userOrder: readonly string[]): { mine: Obj[]; ours: Obj[]; other: Obj[] } {
  const byName = new Map<string, Obj>();
  const other: Obj[] = [];
  const injectedSet = new Set(injectedOrder);
  const userSet = new Set(userOrder);
  for (const item of list) {
    const n = isPlainObject(item) && typeof item.name === 'string' ? item.name : undefined;
    if (n !== undefined && (injectedSet.has(n) || userSet.has(n)) && !byName.has(n)) byName.set(n, item);
    else other.push(item);
  }
  const ours = injectedOrder.map((n) => byName.get(n)).filter((c): c is Obj => c !== undefined);
  const mine = userOrder
    .filter((n) => !injectedSet.has(n))
    .map((n) => byName.get(n))
    .filter((c): c is Obj => c !== undefined);
  return { mine, ours, other };
}
