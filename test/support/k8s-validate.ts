/**
 * @module test/support/k8s-validate
 * Offline validation of generated objects against the Kubernetes OpenAPI schemas, through
 * kubernetes-models' precompiled validators (≈ Kubernetes 1.33). They catch wrong types, bad
 * enums, malformed quantities and missing required fields, but not unknown fields or
 * cross-field rules (ecosystem.md §A3), so tests add their own semantic checks.
 */
import { MutatingWebhookConfiguration } from 'kubernetes-models/admissionregistration.k8s.io/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';

/** A model class: constructed from plain data, `validate()` throws on a schema violation. */
type ModelClass = new (data: never) => { validate(): void };

const MODELS: Record<string, ModelClass> = {
  'v1/Namespace': Namespace as unknown as ModelClass,
  'v1/ServiceAccount': ServiceAccount as unknown as ModelClass,
  'v1/ConfigMap': ConfigMap as unknown as ModelClass,
  'v1/Secret': Secret as unknown as ModelClass,
  'v1/Service': Service as unknown as ModelClass,
  'apps/v1/Deployment': Deployment as unknown as ModelClass,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget as unknown as ModelClass,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole as unknown as ModelClass,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding as unknown as ModelClass,
  'rbac.authorization.k8s.io/v1/Role': Role as unknown as ModelClass,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding as unknown as ModelClass,
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': MutatingWebhookConfiguration as unknown as ModelClass,
};

/**
 * Validate one object; returns 'validated', 'no-schema' (a kind we have no model for, e.g.
 * cert-manager's), or throws with the schema error and the object's kind/name.
 */
export function validateObject(obj: { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown } }): 'validated' | 'no-schema' {
  const Model = MODELS[`${String(obj.apiVersion)}/${String(obj.kind)}`];
  if (Model === undefined) return 'no-schema';
  try {
    new Model(structuredClone(obj) as never).validate();
  } catch (err) {
    throw new Error(`${String(obj.kind)} ${String(obj.metadata?.name)}: ${(err as Error).message}`, { cause: err });
  }
  return 'validated';
}
