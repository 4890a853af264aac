/**
 * @module heal/sidecar-drift
 * What changed between the sidecar a running pod carries and the one the config would inject
 * now: the template list, injected items that appear or disappear, images, other container
 * fields. The running pod went through the apiserver, which fills in defaults
 * (`terminationMessagePath`, `ports[].protocol`, ...) and rewrites others, so a rendered field
 * counts as unchanged when the live one contains it (subset match), a rendered zero value the
 * apiserver drops (`initialDelaySeconds: 0`) matches its absence, quantities compare by value
 * (`2000m` is stored as `2`), the service account token mount the apiserver adds to every
 * container is not the sidecar's, and live-only fields the apiserver defaults are not reported.
 * So a tag-only change reports the image and nothing else.
 */
import type { InjectionStatus } from '../inject/types.js';
import { isPlainObject } from '../util/json.js';
import type { Change } from './types.js';
import { quantityValue } from '../check/validate-pod.js';

type Obj = Record<string, unknown>;

const LISTS = ['initContainers', 'containers', 'volumes'] as const;
const CONTAINER_LISTS = new Set<string>(['initContainers', 'containers']);

/** Container fields the apiserver sets when the template leaves them out. */
const DEFAULTED_FIELDS = new Set(['terminationMessagePath', 'terminationMessagePolicy', 'imagePullPolicy', 'resources']);

/** Items the status lists that the pod lacks (`containers/x`): a status that no longer describes the pod. */
export function injectedItemsPresent(pod: Obj, status: InjectionStatus): string[] {
  const spec = isPlainObject(pod.spec) ? pod.spec : {};
  const out: string[] = [];
  for (const list of LISTS) {
    const have = new Set(itemNames(spec[list]));
    for (const n of status[list] ?? []) if (!have.has(n)) out.push(`${list}/${n}`);
  }
  return out;
}

/** Differences from the live pod's injection (`live`, `was`) to a fresh one (`next`, `now`). */
export function sidecarChanges(live: Obj, was: InjectionStatus, next: Obj, now: InjectionStatus): Change[] {
  const changes: Change[] = [];
  const before = (was.templates ?? []).join(',');
  const after = (now.templates ?? []).join(',');
  if (before !== after) changes.push({ what: 'templates', from: before, to: after, detail: `templates ${before || '(none)'} -> ${after || '(none)'}` });

  const liveSpec = isPlainObject(live.spec) ? live.spec : {};
  const nextSpec = isPlainObject(next.spec) ? next.spec : {};
  for (const list of LISTS) {
    const old = was[list] ?? [];
    const cur = now[list] ?? [];
    for (const n of old) if (!cur.includes(n)) changes.push({ what: 'container', item: `${list}/${n}`, detail: `${list}/${n} removed` });
    for (const n of cur) if (!old.includes(n)) changes.push({ what: 'container', item: `${list}/${n}`, detail: `${list}/${n} added` });
    if (!CONTAINER_LISTS.has(list)) continue;
    for (const n of cur) {
      if (!old.includes(n)) continue;
      const a = findItem(liveSpec[list], n);
      const b = findItem(nextSpec[list], n);
      if (a === undefined || b === undefined) continue;
      changes.push(...containerChanges(`${list}/${n}`, a, b));
    }
  }
  if (changes.length === 0) {
    changes.push({ what: 'template-or-values', detail: "the templates or values changed, but this pod's sidecar would come out the same" });
  }
  return changes;
}

function containerChanges(item: string, live: Obj, next: Obj): Change[] {
  const out: Change[] = [];
  if (live.image !== next.image) {
    out.push({
      what: 'image',
      item,
      from: String(live.image ?? ''),
      to: String(next.image ?? ''),
      detail: `${item} image ${String(live.image ?? '(none)')} -> ${String(next.image ?? '(none)')}`,
    });
  }
  const fields: string[] = [];
  for (const k of Object.keys(next)) {
    if (k === 'name' || k === 'image') continue;
    const have = k === 'volumeMounts' ? withoutServiceAccountMount(live[k], next[k]) : live[k];
    if (!(k === 'resources' ? sameResources(have, next[k]) : contains(have, next[k]))) fields.push(k);
  }
  for (const k of Object.keys(live)) {
    if (k === 'name' || k === 'image' || Object.hasOwn(next, k) || DEFAULTED_FIELDS.has(k)) continue;
    if (k === 'volumeMounts' && isEmpty(withoutServiceAccountMount(live[k], undefined))) continue;
    fields.push(k);
  }
  if (fields.length > 0) out.push({ what: 'spec', item, fields: fields.sort(), detail: `${item} ${fields.sort().join(', ')} changed` });
  return out;
}

/**
 * `have` holds every field of `want` (lists item by item, same length): defaults may be extra,
 * and a zero value in `want` matches its absence (the apiserver omits zero values).
 */
function contains(have: unknown, want: unknown): boolean {
  if (have === undefined && isZero(want)) return true;
  if (Array.isArray(want)) return Array.isArray(have) && have.length === want.length && want.every((w, i) => contains(have[i], w));
  if (isPlainObject(want)) return isPlainObject(have) && Object.keys(want).every((k) => contains(have[k], want[k]));
  return have === want;
}

function isZero(v: unknown): boolean {
  return v === 0 || v === false || v === '' || v === null || isEmpty(v);
}

function isEmpty(v: unknown): boolean {
  return (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

/** `requests`/`limits` compared by quantity value: the apiserver stores `2000m` as `2`, `1` as `"1"`. */
function sameResources(have: unknown, want: unknown): boolean {
  if (!isPlainObject(want)) return contains(have, want);
  const h = isPlainObject(have) ? have : {};
  return Object.keys(want).every((kind) => {
    const w = want[kind];
    const hk = h[kind];
    if (!isPlainObject(w)) return contains(hk, w);
    if (!isPlainObject(hk)) return isEmpty(w);
    const names = new Set([...Object.keys(w), ...Object.keys(hk)]);
    return [...names].every((n) => {
      const a = quantityValue(String(hk[n] ?? ''));
      const b = quantityValue(String(w[n] ?? ''));
      return a !== undefined && b !== undefined ? Math.abs(a - b) <= Math.abs(b) * 1e-12 : hk[n] === w[n];
    });
  });
}

/** The ServiceAccount admission plugin mounts the token into every container; a template that did not ask for it did not put it there. */
const SERVICE_ACCOUNT_MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';
function withoutServiceAccountMount(have: unknown, want: unknown): unknown {
  if (!Array.isArray(have)) return have;
  const wanted = Array.isArray(want) && want.some((m) => isPlainObject(m) && m.mountPath === SERVICE_ACCOUNT_MOUNT);
  return wanted ? have : have.filter((m) => !(isPlainObject(m) && m.mountPath === SERVICE_ACCOUNT_MOUNT));
}

function itemNames(list: unknown): string[] {
  return Array.isArray(list) ? list.map((x) => (isPlainObject(x) ? x.name : undefined)).filter((n): n is string => typeof n === 'string') : [];
}

function findItem(list: unknown, name: string): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  const found = list.find((x) => isPlainObject(x) && x.name === name);
  return isPlainObject(found) ? found : undefined;
}
