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
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { leaderLeaseRules, podReconcilerRules } from '../kube/rbac-rules.js';
import { metadata, type InstallContext } from './install-context.js';

export function reconcileName(name: string): string {
  return `${name}-reconcile`;
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
      rules: podReconcilerRules(o.name, o.reconcileRestart),
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: metadata(ctx, name, false),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects,
    },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: metadata(ctx, name), rules: leaderLeaseRules(name) },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: metadata(ctx, name),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects,
    },
  ];
}
