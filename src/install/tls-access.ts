/**
 * @module install/tls-access
 * What a server that reads its certificate from a Secret through the API needs (self-provisioned
 * by default, or the user's own `--existing-secret`): the Secret itself, created empty when the
 * server provisions it, and a Role allowing exactly that Secret and Events on its own pods.
 *
 * The empty Secret is written here because RBAC cannot limit `create` to one name: the server
 * gets get and update on this name only. It has no `data` in the manifest, so neither
 * `kubectl apply` nor `helm upgrade` (three-way merges of what they last applied) ever touches
 * the certificates the server wrote; its type is Opaque because `kubernetes.io/tls` requires
 * tls.crt and tls.key at creation.
 */
import type { Secret } from 'kubernetes-types/core/v1.js';
import type { Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { tlsSecretRules } from '../kube/rbac-rules.js';
import { metadata, type InstallContext } from './install-context.js';
import { provisionedSecretName, servedSecretName } from './options.js';

function tlsAccessName(name: string): string {
  return `${name}-tls`;
}

/** Get (and, provisioning, update) the one Secret; Events on the server's pods (create cannot be limited by name). */
export function tlsAccessObjects(ctx: InstallContext): [Role, RoleBinding] | [] {
  const o = ctx.options;
  const secret = servedSecretName(o);
  if (secret === undefined) return [];
  const name = tlsAccessName(o.name);
  return [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: metadata(ctx, name), rules: tlsSecretRules(secret, o.certMode === 'provision') },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: metadata(ctx, name),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name: o.name, namespace: o.namespace }],
    },
  ];
}

/** The empty Secret the server provisions. */
export function provisionedSecret(ctx: InstallContext): Secret | undefined {
  if (ctx.options.certMode !== 'provision' || ctx.options.webhookUrl !== undefined) return undefined;
  return { apiVersion: 'v1', kind: 'Secret', metadata: metadata(ctx, provisionedSecretName(ctx.options.name)), type: 'Opaque' };
}
