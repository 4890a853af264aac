/**
 * @module cluster/tls-secret
 * The TLS Secret as the API returns it (validated: it is input), and the objects written back.
 * A write replaces only the keys provisioning owns and carries the resourceVersion read, so the
 * apiserver refuses it with 409 when another replica wrote first. Labels, other annotations and
 * other keys (someone's own additions) are kept as they are.
 */
import { ClusterError } from '../errors.js';
import { getOwn, isPlainObject } from '../util/json.js';

/** Marks a Secret whose certificates the injector wrote and may renew; the value says when and what. */
export const PROVISIONED_ANNOTATION = 'sidecar-injector.io/tls-provisioned';

const DNS1123_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export interface SecretRef {
  namespace: string;
  name: string;
}

/** `NAME` or `NAMESPACE/NAME` (the namespace defaults to `defaultNamespace`); refuses what the API would. */
export function parseSecretRef(text: string, defaultNamespace: string | undefined): SecretRef {
  const parts = text.trim().split('/');
  const [namespace, name] = parts.length === 2 ? parts : [defaultNamespace, parts[0]];
  if (parts.length > 2 || name === undefined || !DNS1123_SUBDOMAIN.test(name)) {
    throw new ClusterError('SI_CLUSTER_CONFIG', `"${text}" is not a Secret name (NAME or NAMESPACE/NAME, lower-case DNS names)`);
  }
  if (namespace === undefined)
    throw new ClusterError('SI_CLUSTER_CONFIG', `the namespace of Secret "${name}" is unknown: write NAMESPACE/${name}, or run in a pod`);
  if (!DNS1123_LABEL.test(namespace)) throw new ClusterError('SI_CLUSTER_CONFIG', `"${namespace}" is not a namespace name`);
  return { namespace, name };
}

export function secretsPath(namespace: string): string {
  return `/api/v1/namespaces/${namespace}/secrets`;
}

export function secretPath(ref: SecretRef): string {
  return `${secretsPath(ref.namespace)}/${ref.name}`;
}

export interface LiveSecret {
  resourceVersion: string;
  /** `data`, each value decoded as UTF-8 (certificates and keys are PEM text). */
  data: Record<string, string>;
  /** The provisioned annotation is present. */
  managed: boolean;
  /** The object as read, for the write-back. */
  object: Record<string, unknown>;
}

export function parseSecret(value: unknown, ref: SecretRef): LiveSecret {
  const bad = (what: string) => new ClusterError('SI_CLUSTER_REQUEST', `the API returned a malformed Secret ${ref.namespace}/${ref.name}: ${what}`);
  if (!isPlainObject(value)) throw bad('not an object');
  const metadata = getOwn(value, 'metadata');
  if (!isPlainObject(metadata)) throw bad('no metadata');
  const resourceVersion = getOwn(metadata, 'resourceVersion');
  if (typeof resourceVersion !== 'string' || resourceVersion === '') throw bad('no metadata.resourceVersion');
  const rawData = getOwn(value, 'data') ?? {};
  if (!isPlainObject(rawData)) throw bad('data is not a map');
  const data: Record<string, string> = {};
  for (const [key, encoded] of Object.entries(rawData)) {
    if (typeof encoded !== 'string') throw bad(`data["${key}"] is not a string`);
    data[key] = Buffer.from(encoded, 'base64').toString('utf8');
  }
  const annotations = getOwn(metadata, 'annotations');
  const managed = isPlainObject(annotations) && typeof getOwn(annotations, PROVISIONED_ANNOTATION) === 'string';
  return { resourceVersion, data, managed, object: value };
}

/**
 * The Secret to PUT: `live` with the `owned` keys set to `data` (an owned key absent from
 * `data` is removed) and the provisioned annotation set to `note`.
 */
export function provisionedUpdate(live: LiveSecret, data: Readonly<Record<string, string>>, owned: readonly string[], note: string): Record<string, unknown> {
  const object = structuredClone(live.object);
  const metadata = object.metadata as Record<string, unknown>;
  metadata.resourceVersion = live.resourceVersion;
  metadata.annotations = { ...(isPlainObject(metadata.annotations) ? metadata.annotations : {}), [PROVISIONED_ANNOTATION]: note };
  const encoded: Record<string, unknown> = isPlainObject(object.data) ? { ...object.data } : {};
  for (const key of owned) delete encoded[key];
  for (const [key, text] of Object.entries(data)) encoded[key] = Buffer.from(text, 'utf8').toString('base64');
  object.data = encoded;
  return object;
}

/** The Secret to POST when it does not exist at all (works only where RBAC allows create). */
export function provisionedSecret(ref: SecretRef, data: Readonly<Record<string, string>>, note: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: ref.name, namespace: ref.namespace, annotations: { [PROVISIONED_ANNOTATION]: note } },
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')])),
  };
}
