/**
 * @module patch/smp-schema
 * The strategic-merge metadata of the Pod subtree: which lists merge by which key, and which
 * lists of scalars merge as sets. Kubernetes reads this from Go struct tags
 * (`patchStrategy:"merge" patchMergeKey:"name"`); we keep it as a small table.
 *
 * Anything not in the table is treated like Kubernetes treats a field without a patch
 * strategy: maps merge key by key, lists are replaced as a whole. So new Kubernetes fields
 * survive a merge even before this table learns about them.
 *
 * Sources (facts checked, nothing copied):
 * - OpenAPI `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key` as published in the
 *   JSON schemas generated from the Kubernetes OpenAPI spec (yannh/kubernetes-json-schema,
 *   `master/podspec-v1.json`, `master/container-v1.json`, `master/objectmeta-meta-v1.json`,
 *   `master/podstatus-v1.json`).
 * - The struct tags in kubernetes `staging/src/k8s.io/api/core/v1/types.go`
 *   (`HostAliases ... patchStrategy:"merge" patchMergeKey:"ip"`, `PodIPs ... patchMergeKey:"ip"`).
 * - Explicitly atomic there (no patch strategy, `x-kubernetes-list-type: atomic`):
 *   `tolerations`, `readinessGates`, `envFrom`, `args`, `command`, `resizePolicy`,
 *   `restartPolicyRules`; and `managedFields` has no strategy.
 * - `retainKeys` (on `volumes`, `resourceClaims`) only changes how Kubernetes *creates* patches;
 *   applying a patch honours `$retainKeys` wherever it appears, so we record it for documentation.
 */

/** Metadata of one field of an object. */
export type SmpField =
  /** A struct-like object whose own fields have metadata. */
  | { readonly type: 'object'; readonly schema: SmpSchema }
  /** A list of objects merged by `mergeKey` (`patchStrategy: merge`). */
  | { readonly type: 'list'; readonly mergeKey: string; readonly element?: SmpSchema; readonly retainKeys?: boolean }
  /** A list of scalars with `patchStrategy: merge`: merged as a set. */
  | { readonly type: 'set' };

/** Metadata of an object type: its fields that need more than the default treatment. */
export interface SmpSchema {
  readonly name: string;
  readonly fields: Readonly<Record<string, SmpField>>;
}

/** The schema of anything we know nothing about: maps merge, lists are atomic. */
export const OPAQUE_SCHEMA: SmpSchema = Object.freeze({ name: 'unknown', fields: Object.freeze({}) });

/** corev1.Container and corev1.EphemeralContainer (EphemeralContainerCommon has the same tags). */
const CONTAINER_SCHEMA: SmpSchema = {
  name: 'Container',
  fields: {
    env: { type: 'list', mergeKey: 'name' },
    ports: { type: 'list', mergeKey: 'containerPort' },
    volumeMounts: { type: 'list', mergeKey: 'mountPath' },
    volumeDevices: { type: 'list', mergeKey: 'devicePath' },
  },
};

/** metav1.ObjectMeta. */
const OBJECT_META_SCHEMA: SmpSchema = {
  name: 'ObjectMeta',
  fields: {
    finalizers: { type: 'set' },
    ownerReferences: { type: 'list', mergeKey: 'uid' },
  },
};

/** corev1.PodSpec. */
const POD_SPEC_SCHEMA: SmpSchema = {
  name: 'PodSpec',
  fields: {
    containers: { type: 'list', mergeKey: 'name', element: CONTAINER_SCHEMA },
    initContainers: { type: 'list', mergeKey: 'name', element: CONTAINER_SCHEMA },
    ephemeralContainers: { type: 'list', mergeKey: 'name', element: CONTAINER_SCHEMA },
    volumes: { type: 'list', mergeKey: 'name', retainKeys: true },
    imagePullSecrets: { type: 'list', mergeKey: 'name' },
    hostAliases: { type: 'list', mergeKey: 'ip' },
    topologySpreadConstraints: { type: 'list', mergeKey: 'topologyKey' },
    schedulingGates: { type: 'list', mergeKey: 'name' },
    resourceClaims: { type: 'list', mergeKey: 'name', retainKeys: true },
  },
};

/** corev1.PodStatus (a webhook never patches status; kept so a whole Pod merges like Kubernetes). */
const POD_STATUS_SCHEMA: SmpSchema = {
  name: 'PodStatus',
  fields: {
    conditions: { type: 'list', mergeKey: 'type' },
    podIPs: { type: 'list', mergeKey: 'ip' },
    hostIPs: { type: 'list', mergeKey: 'ip' },
  },
};

/** corev1.Pod; also right for a PodTemplateSpec (`metadata` + `spec`). */
export const POD_SCHEMA: SmpSchema = {
  name: 'Pod',
  fields: {
    metadata: { type: 'object', schema: OBJECT_META_SCHEMA },
    spec: { type: 'object', schema: POD_SPEC_SCHEMA },
    status: { type: 'object', schema: POD_STATUS_SCHEMA },
  },
};

/** The field's metadata, or undefined for a field with the default treatment. Own keys only. */
export function fieldOf(schema: SmpSchema, key: string): SmpField | undefined {
  return Object.hasOwn(schema.fields, key) ? schema.fields[key] : undefined;
}
