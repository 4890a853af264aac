/**
 * @module cluster/rbac
 * The exact permissions the caBundle reconciler uses, for the manifests generator. It only
 * GETs and PATCHes one named MutatingWebhookConfiguration (it polls rather than watches, so no
 * list/watch), and that object is cluster-scoped: a ClusterRole bound with a
 * ClusterRoleBinding to the injector's service account, restricted by `resourceNames`.
 */

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** The rule without the object name; pair it with `resourceNames: [<webhook config name>]`. */
export const CA_BUNDLE_RBAC = {
  apiGroups: ['admissionregistration.k8s.io'],
  resources: ['mutatingwebhookconfigurations'],
  verbs: ['get', 'patch'],
} as const;

/** ClusterRole rules that allow exactly what `CaBundleReconciler` does for `webhookConfigName`. */
export function caBundleRbacRules(webhookConfigName: string): PolicyRule[] {
  return [
    {
      apiGroups: [...CA_BUNDLE_RBAC.apiGroups],
      resources: [...CA_BUNDLE_RBAC.resources],
      verbs: [...CA_BUNDLE_RBAC.verbs],
      resourceNames: [webhookConfigName],
    },
  ];
}
