/**
 * @module inject/status-annotation
 * The status annotation: what an injection added, so it can be found, re-injected and undone.
 * It starts exactly as Istio's (`sidecar.istio.io/status`), so tools that read Istio's keep
 * working:
 *
 *   {"initContainers":["istio-init","istio-proxy"],"volumes":[...],"revision":"default",
 *    "templates":["sidecar"],"templateHash":"3f2a9c0e11d4b7a8","v":2,"rm":"aB3x_Qz9-k","undo":[...]}
 *
 * Names come from the rendered templates; an empty list is left out (Istio writes `null`, Go's
 * nil slice; statuses written before issue 37 did too, and both read the same). Our fields
 * follow: `templates` (what rendered), `templateHash` (16 hex digits of sha256 over those
 * templates' text and the values: a different hash means the sidecar is stale), `v` (the undo
 * format: 2; absent in statuses written before issue 37), `rm` and `undo` (how to restore what
 * the injection changed besides adding the listed items; see types.ts and undo.ts), each
 * omitted when empty. A status without `templates` was written by Istio (or an old injector):
 * it is read the same way, without undo.
 */
import { createHash } from 'node:crypto';
import type { LoadedConfig } from '../config/types.js';
import { InjectionError } from '../errors.js';
import { isPlainObject } from '../util/json.js';
import type { InjectionStatus, UndoEntry } from './types.js';

const NAME_FIELDS = ['initContainers', 'containers', 'volumes', 'imagePullSecrets'] as const;
/** `rm`: 5-character base64url hashes, concatenated. */
const RM_FORMAT = /^(?:[A-Za-z0-9_-]{5})*$/;

/**
 * Serialise in Istio's field order, our fields after. An empty list is left out rather than
 * written `null` (issue 37: the apiserver decodes the annotation with every pod): Istio's readers
 * decode it into Go slices, which read an absent member and `null` alike.
 */
export function formatStatus(status: InjectionStatus): string {
  const out: Record<string, unknown> = {};
  for (const f of NAME_FIELDS) if (status[f] !== null && status[f].length > 0) out[f] = status[f];
  out.revision = status.revision;
  if (status.templates !== undefined) out.templates = status.templates;
  if (status.templateHash !== undefined) out.templateHash = status.templateHash;
  if (status.v !== undefined) out.v = status.v;
  if (status.rm !== undefined && status.rm !== '') out.rm = status.rm;
  if (status.undo !== undefined && status.undo.length > 0) out.undo = status.undo;
  return JSON.stringify(out);
}

/** A parsed status and whether it is ours (has `templates`) or foreign (Istio's). */
export interface ParsedStatus {
  status: InjectionStatus;
  ours: boolean;
}

function bad(key: string, why: string): InjectionError {
  return new InjectionError(
    'SI_INJECT_STATUS',
    `annotation ${key} ${why}; it records a previous injection. If the pod was copied from an injected one, remove the annotation ` +
      'and the injected containers; otherwise restore the value the injector wrote',
    { details: { annotation: key } },
  );
}

/** Read a status annotation value; a malformed one is an InjectionError SI_INJECT_STATUS. */
export function parseStatus(text: string, key: string): ParsedStatus {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw bad(key, 'is not valid JSON');
  }
  if (!isPlainObject(raw)) throw bad(key, 'is not a JSON object');
  if (hasProtoKey(raw)) throw bad(key, 'has a "__proto__" member');
  const names = (field: (typeof NAME_FIELDS)[number]): string[] | null => {
    const v = raw[field];
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v) || v.some((n) => typeof n !== 'string')) throw bad(key, `has "${field}" that is not a list of names`);
    return v.length === 0 ? null : (v as string[]);
  };
  const status: InjectionStatus = {
    initContainers: names('initContainers'),
    containers: names('containers'),
    volumes: names('volumes'),
    imagePullSecrets: names('imagePullSecrets'),
    revision: typeof raw.revision === 'string' ? raw.revision : '',
  };
  const ours = Array.isArray(raw.templates);
  if (ours) {
    if ((raw.templates as unknown[]).some((t) => typeof t !== 'string')) throw bad(key, 'has "templates" that is not a list of names');
    status.templates = raw.templates as string[];
    if (typeof raw.templateHash === 'string') status.templateHash = raw.templateHash;
    if (raw.v !== undefined) {
      if (raw.v !== 2) throw bad(key, `has format "v": ${JSON.stringify(raw.v)}, which this injector does not know (it writes 2); a newer injector wrote it`);
      status.v = 2;
      if (raw.rm !== undefined) {
        if (typeof raw.rm !== 'string' || !RM_FORMAT.test(raw.rm)) throw bad(key, 'has "rm" that is not a list of member hashes');
        status.rm = raw.rm;
      }
    }
    if (raw.undo !== undefined) status.undo = readUndo(raw.undo, key);
  }
  return { status, ours };
}

/**
 * Whether a `__proto__` key occurs anywhere. Never legitimate (Kubernetes field names, label and
 * annotation keys cannot be `__proto__`), and a pointer through it would address the prototype
 * in code less careful than ours. Iterative: the depth of a status is the pod's depth.
 */
function hasProtoKey(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (isPlainObject(v)) {
      if (Object.hasOwn(v, '__proto__')) return true;
      for (const k in v) stack.push(v[k]);
    }
  }
  return false;
}

/**
 * A pointer an undo entry may hold: empty or `/...`, without a `__proto__` token. `constructor`
 * and `prototype` are valid label and annotation keys and stay allowed: undo reads and writes
 * own members only (Object.hasOwn, setMember), so they are plain data there.
 */
function pointerOk(p: unknown): boolean {
  if (typeof p !== 'string' || (p !== '' && !p.startsWith('/'))) return false;
  return !p.split('/').includes('__proto__');
}

function readUndo(raw: unknown, key: string): UndoEntry[] {
  if (!Array.isArray(raw)) throw bad(key, 'has "undo" that is not a list');
  return raw.map((e, i) => {
    if (!isPlainObject(e) || !pointerOk(e.p) || (e.s !== undefined && !pointerOk(e.s))) throw bad(key, `has an invalid undo entry ${i}`);
    if ((e.n !== undefined && typeof e.n !== 'string') || (e.s !== undefined && typeof e.s !== 'string') || (e.i !== undefined && !Number.isInteger(e.i))) {
      throw bad(key, `has an invalid undo entry ${i}`);
    }
    if (e.o !== undefined && (!Array.isArray(e.o) || e.o.some((n) => typeof n !== 'string'))) throw bad(key, `has an invalid undo entry ${i}`);
    if ((e.e !== undefined && e.e !== 1) || (e.k !== undefined && e.k !== 1)) throw bad(key, `has an invalid undo entry ${i}`);
    return e as unknown as UndoEntry;
  });
}

/** Names listed in a status for one of the pod's lists. */
export function statusNames(status: InjectionStatus, list: string): readonly string[] {
  switch (list) {
    case 'containers':
      return status.containers ?? [];
    case 'initContainers':
      return status.initContainers ?? [];
    case 'volumes':
      return status.volumes ?? [];
    case 'imagePullSecrets':
      return status.imagePullSecrets ?? [];
    default:
      return [];
  }
}

const HASHES = new WeakMap<LoadedConfig, Map<string, string>>();

/**
 * 16 hex digits of sha256 over the selected templates (name and text, in order) and the values:
 * what decides the injected sidecar. Memoised per config and template list.
 */
export function templateHash(config: LoadedConfig, names: readonly string[]): string {
  let byNames = HASHES.get(config);
  if (byNames === undefined) {
    byNames = new Map();
    HASHES.set(config, byNames);
  }
  const key = names.join('\u0000');
  let h = byNames.get(key);
  if (h === undefined) {
    const hash = createHash('sha256');
    for (const n of names) hash.update(JSON.stringify([n, config.templates[n] ?? ''])).update('\n');
    hash.update(stableJson(config.values));
    h = hash.digest('hex').slice(0, 16);
    byNames.set(key, h);
  }
  return h;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
