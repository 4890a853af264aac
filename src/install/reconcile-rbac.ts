/**
 * @module install/reconcile-rbac
 * The RBAC of `serve --reconcile` (opt-in: `manifests --reconcile`, Helm `reconcile.enabled`),
 * exactly what the reconciler calls and no more:
 * - a ClusterRole to read what classification needs (pods, namespaces, ReplicaSets, Jobs: get,
 *   list, watch; the one MutatingWebhookConfiguration: get), to record Events (create), and, only
 *   with `--reconcile-restart`, to get and patch Deployments, StatefulSets and DaemonSets;
 * - a Role in the injector's namespace for its one Lease: create (which cannot be limited by
 *   name), get and update on that name only.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { metadata, type InstallContext } from './install-context.js';

export function reconcileName(name: string): string {
  return `${name}-reconcile`;
}

function reconcileClusterRules(webhookConfigName: string, restart: boolean): PolicyRule[] {
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

function reconcileLeaseRules(leaseName: string): PolicyRule[] {
  return [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'], resourceNames: [leaseName] },
  ];
}

export function reconcileRbacObjects(ctx: InstallContext): [ClusterRole, ClusterRoleBinding, Role, RoleBinding] {
  const o = ctx.options;
  const name = reconcileName(o.name);
  const subjects = [{ kind: 'ServiceAccount', name: o.name, namespace: o.namespace }];
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: metadata(ctx, name, false),
      rules: reconcileClusterRules(o.name, o.reconcileRestart),
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: metadata(ctx, name, false),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects,
    },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: metadata(ctx, name), rules: reconcileLeaseRules(name) },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: metadata(ctx, name),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects,
    },
  ];
}
