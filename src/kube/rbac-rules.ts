/**
 * @module kube/rbac-rules
 * Every permission the injector asks the Kubernetes API for, in one place: the rules that
 * `manifests` writes (and the Helm chart mirrors: src/install/helm-chart.test.ts renders the chart
 * with the real helm and holds it equal to `manifests`), and the hints the server prints when the
 * API refuses one of them (403), so the hint names exactly what the install grants.
 */

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/**
 * The caBundle reconciler: it GETs and PATCHes one named MutatingWebhookConfiguration (it polls
 * rather than watches, so no list or watch). The object is cluster-scoped: a ClusterRole bound to
 * the injector's service account, restricted by `resourceNames`.
 */
export function caBundleRules(webhookConfigName: string): PolicyRule[] {
  return [
    { apiGroups: ['admissionregistration.k8s.io'], resources: ['mutatingwebhookconfigurations'], verbs: ['get', 'patch'], resourceNames: [webhookConfigName] },
  ];
}

/**
 * `serve --reconcile` (cluster-wide): watch pods, namespaces, ReplicaSets and Jobs, read its own
 * webhook configuration, record Events; with `--reconcile-restart` also restart workloads.
 */
export function podReconcilerRules(webhookConfigName: string, restart: boolean): PolicyRule[] {
  const read = ['get', 'list', 'watch'];
  const rules: PolicyRule[] = [
    { apiGroups: [''], resources: ['pods', 'namespaces'], verbs: read },
    { apiGroups: ['apps'], resources: ['replicasets'], verbs: read },
    { apiGroups: ['batch'], resources: ['jobs'], verbs: read },
    { apiGroups: ['admissionregistration.k8s.io'], resources: ['mutatingwebhookconfigurations'], verbs: ['get'], resourceNames: [webhookConfigName] },
    { apiGroups: [''], resources: ['events'], verbs: ['create'] },
  ];
  if (restart) rules.push({ apiGroups: ['apps'], resources: ['deployments', 'statefulsets', 'daemonsets'], verbs: ['get', 'patch'] });
  return rules;
}

/** The reconciler's leader election, in the injector's namespace: create the Lease, then keep its own. */
export function leaderLeaseRules(leaseName: string): PolicyRule[] {
  return [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'], resourceNames: [leaseName] },
  ];
}

/** `serve --tls-secret`: this one Secret (get; update to provision it), and Events on its own pods. */
export function tlsSecretRules(secret: string, provision: boolean): PolicyRule[] {
  return [
    { apiGroups: [''], resources: ['secrets'], verbs: provision ? ['get', 'update'] : ['get'], resourceNames: [secret] },
    { apiGroups: [''], resources: ['events'], verbs: ['create'] },
  ];
}

/** "get and patch on mutatingwebhookconfigurations/NAME": the first rule of `rules` as a grant to ask for. */
export function grantText(rules: readonly PolicyRule[]): string {
  const rule = rules[0];
  const verbs = rule.verbs.length <= 1 ? rule.verbs.join('') : `${rule.verbs.slice(0, -1).join(', ')} and ${rule.verbs[rule.verbs.length - 1]}`;
  const names = rule.resourceNames?.length ? `/${rule.resourceNames.join(',')}` : '';
  return `${verbs} on ${rule.resources.join(', ')}${names}`;
}
