/**
 * @module manifest-io/workload-kinds
 * Where the pod template lives in each workload kind, and how to put a new one back. This is
 * the list `istioctl kube-inject` handles (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet,
 * ReplicationController, Job, CronJob, OpenShift DeploymentConfig, and `v1 List` of them).
 * Kinds are matched with their API group, so a custom resource that happens to be called
 * `Deployment` is left alone. Anything else yields no template and passes through untouched.
 */
import { InputError, type SourceLocation } from '../errors.js';
import { isPlainObject, type JsonObject, type JsonValue } from '../util/json.js';
import { setOwn } from '../util/own.js';
import { formatPath } from '../yaml/index.js';
import { describeValue } from '../util/describe.js';

export type JsonPath = ReadonlyArray<string | number>;

export interface WorkloadKind {
  readonly kind: string;
  /** API groups of this kind ('' is the core group, `apiVersion: v1`). */
  readonly groups: readonly string[];
  /** From the object to its pod template; empty for a Pod, whose own metadata and spec are the template. */
  readonly templatePath: readonly string[];
}

const SPEC_TEMPLATE = ['spec', 'template'] as const;

export const WORKLOAD_KINDS: readonly WorkloadKind[] = [
  { kind: 'Pod', groups: [''], templatePath: [] },
  { kind: 'Deployment', groups: ['apps', 'extensions'], templatePath: SPEC_TEMPLATE },
  { kind: 'StatefulSet', groups: ['apps'], templatePath: SPEC_TEMPLATE },
  { kind: 'DaemonSet', groups: ['apps', 'extensions'], templatePath: SPEC_TEMPLATE },
  { kind: 'ReplicaSet', groups: ['apps', 'extensions'], templatePath: SPEC_TEMPLATE },
  { kind: 'ReplicationController', groups: [''], templatePath: SPEC_TEMPLATE },
  { kind: 'Job', groups: ['batch'], templatePath: SPEC_TEMPLATE },
  { kind: 'CronJob', groups: ['batch'], templatePath: ['spec', 'jobTemplate', 'spec', 'template'] },
  // OpenShift 3 served DeploymentConfig in the core group too (`apiVersion: v1`).
  { kind: 'DeploymentConfig', groups: ['apps.openshift.io', ''], templatePath: SPEC_TEMPLATE },
];

/** The workload kind of an object, or undefined if it is not one (or is a List). */
export function workloadKind(obj: unknown): WorkloadKind | undefined {
  if (!isPlainObject(obj) || typeof obj.kind !== 'string' || typeof obj.apiVersion !== 'string') return undefined;
  const group = apiGroup(obj.apiVersion);
  return WORKLOAD_KINDS.find((w) => w.kind === obj.kind && w.groups.includes(group));
}

/** `apps/v1` -> `apps`; `v1` -> `` (core). */
export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

/** `kind: List` in the core group: kubectl (and istioctl) look inside its `items`. */
export function isList(obj: unknown): boolean {
  return isPlainObject(obj) && obj.kind === 'List' && obj.apiVersion === 'v1';
}

/** The workload that owns a pod template. */
export interface WorkloadRef {
  readonly apiVersion: string;
  readonly kind: string;
  /** `metadata.name`, else `metadata.generateName`, else ''. */
  readonly name: string;
  readonly namespace: string | undefined;
  /** The workload's own metadata (labels and annotations of a Deployment, not of its pods). */
  readonly metadata: JsonObject | undefined;
  /** From the document root to the workload (non-empty inside a List). */
  readonly path: JsonPath;
}

/** One pod template found in a document. */
export interface PodTemplateRef {
  /** From the document root to the template (`['spec', 'template']`, `['items', 0, 'spec', 'template']`); for a Pod, the Pod's own path. */
  readonly path: JsonPath;
  readonly owner: WorkloadRef;
  /** The template: `{metadata?, spec}` (for a Pod, its own metadata and spec). */
  readonly template: JsonObject;
  readonly metadata: JsonObject | undefined;
  readonly spec: JsonObject;
}

/**
 * Every pod template in a parsed document, in document order (List items recursively). Objects
 * that are not workloads yield none. A workload whose template is missing or malformed is an
 * InputError (SI_INPUT_OBJECT) naming the kind, the name and `where`.
 */
export function podTemplates(value: JsonValue, where: SourceLocation = {}): PodTemplateRef[] {
  const found: PodTemplateRef[] = [];
  collect(value, [], where, found);
  return found;
}

function collect(value: JsonValue, path: JsonPath, where: SourceLocation, found: PodTemplateRef[]): void {
  if (isList(value)) {
    const items = (value as JsonObject).items;
    if (items === undefined || items === null) return;
    if (!Array.isArray(items)) throw shapeError(where, `${describeAt(path)}List: items must be a list, found ${describeValue(items)}`);
    items.forEach((item, i) => {
      if (!isPlainObject(item)) throw shapeError(where, `${describeAt([...path, 'items', i])}a List item must be an object, found ${describeValue(item)}`);
      collect(item, [...path, 'items', i], where, found);
    });
    return;
  }
  const kind = workloadKind(value);
  if (kind === undefined) return;
  const obj = value as JsonObject; // workloadKind only matches plain objects
  const owner = ownerOf(obj, kind, path, where);
  const what = `${kind.kind} "${owner.namespace ? `${owner.namespace}/` : ''}${owner.name}"`;
  if (kind.templatePath.length === 0) {
    const metadata = optionalObject(obj.metadata, where, `${what}: metadata`);
    const spec = requiredObject(obj.spec, where, `${what}: spec`);
    const template: JsonObject = metadata === undefined ? { spec } : { metadata, spec };
    found.push({ path, owner, template, metadata, spec });
    return;
  }
  let node: JsonValue = obj;
  const walked: string[] = [];
  for (const seg of kind.templatePath) {
    const next: JsonValue | undefined = isPlainObject(node) ? node[seg] : undefined;
    walked.push(seg);
    node = requiredObject(next, where, `${what}: ${walked.join('.')}`, seg === 'template' ? ' (the pod template)' : '');
  }
  const template = node as JsonObject;
  const metadata = optionalObject(template.metadata, where, `${what}: ${walked.join('.')}.metadata`);
  const spec = requiredObject(template.spec, where, `${what}: ${walked.join('.')}.spec`, ' (the pod spec)');
  found.push({ path: [...path, ...kind.templatePath], owner, template, metadata, spec });
}

function ownerOf(obj: JsonObject, kind: WorkloadKind, path: JsonPath, where: SourceLocation): WorkloadRef {
  const metadata = optionalObject(obj.metadata, where, `${describeAt(path)}${kind.kind}: metadata`);
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  return {
    apiVersion: obj.apiVersion as string,
    kind: kind.kind,
    name: str(metadata?.name) ?? str(metadata?.generateName) ?? '',
    namespace: str(metadata?.namespace),
    metadata,
    path,
  };
}

function requiredObject(v: JsonValue | undefined, where: SourceLocation, what: string, hint = ''): JsonObject {
  if (isPlainObject(v)) return v as JsonObject;
  throw shapeError(where, `${what} must be an object${hint}, found ${describeValue(v)}`);
}

function optionalObject(v: JsonValue | undefined, where: SourceLocation, what: string): JsonObject | undefined {
  if (v === undefined || v === null) return undefined;
  if (isPlainObject(v)) return v as JsonObject;
  throw shapeError(where, `${what} must be an object, found ${describeValue(v)}`);
}

function describeAt(path: JsonPath): string {
  return path.length === 0 ? '' : `at ${formatPath(path)}: `;
}

function shapeError(where: SourceLocation, message: string): InputError {
  return new InputError('SI_INPUT_OBJECT', message, { location: where });
}

/**
 * A new document value with the pod template at `ref.path` replaced (for a Pod: its metadata and
 * spec). Only the objects along the path are copied; key order is kept; `value` is not modified.
 */
export function withPodTemplate(value: JsonValue, path: JsonPath, template: JsonObject): JsonValue {
  const target = getIn(value, path);
  if (!isPlainObject(target)) throw new TypeError(`no object at ${formatPath(path) || 'the document root'}`);
  const kind = workloadKind(target);
  if (kind !== undefined && kind.templatePath.length === 0) {
    // A Pod: the template's metadata and spec become the Pod's own.
    return setIn(value, path, withKeys(target as JsonObject, { metadata: template.metadata, spec: template.spec }));
  }
  return setIn(value, path, template);
}

/** `obj` with the given keys set (undefined removes); existing keys stay in place, a new `metadata` goes after `kind`. */
function withKeys(obj: JsonObject, updates: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  const missing = Object.keys(updates).filter((k) => !Object.hasOwn(obj, k) && updates[k] !== undefined);
  for (const [k, v] of Object.entries(obj)) {
    if (Object.hasOwn(updates, k)) {
      const nv = updates[k];
      if (nv !== undefined) setOwn(out, k, nv);
    } else setOwn(out, k, v);
    if (k === 'kind' && missing.includes('metadata')) {
      setOwn(out, 'metadata', updates.metadata as JsonValue);
      missing.splice(missing.indexOf('metadata'), 1);
    }
  }
  for (const k of missing) setOwn(out, k, updates[k] as JsonValue);
  return out;
}

function getIn(value: JsonValue, path: JsonPath): JsonValue | undefined {
  let node: JsonValue | undefined = value;
  for (const seg of path) {
    if (Array.isArray(node) && typeof seg === 'number') node = node[seg];
    else if (isPlainObject(node) && typeof seg === 'string') node = Object.hasOwn(node, seg) ? (node as JsonObject)[seg] : undefined;
    else return undefined;
  }
  return node;
}

function setIn(value: JsonValue, path: JsonPath, replacement: JsonValue): JsonValue {
  if (path.length === 0) return replacement;
  const [seg, ...rest] = path;
  if (Array.isArray(value) && typeof seg === 'number') {
    const copy = value.slice();
    copy[seg] = setIn(value[seg], rest, replacement);
    return copy;
  }
  if (isPlainObject(value) && typeof seg === 'string') {
    const copy: JsonObject = {};
    for (const [k, v] of Object.entries(value as JsonObject)) setOwn(copy, k, k === seg ? setIn(v, rest, replacement) : v);
    return copy;
  }
  throw new TypeError(`cannot follow ${formatPath(path)}`);
}
