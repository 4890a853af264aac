/**
 * @module install/base-objects
 * The objects around the server: its Namespace (labelled so injection and privileged pods stay
 * out of it), ServiceAccount, the least-privilege RBAC of the caBundle reconciler, the config
 * ConfigMap, and the serving-certificate Secret (or cert-manager's Issuer and Certificate).
 */
import type { Namespace, Secret, ServiceAccount, ConfigMap } from 'kubernetes-types/core/v1.js';
import type { ClusterRole, ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import { caBundleRules } from '../kube/rbac-rules.js';
import { commonLabels, metadata, type InstallContext } from './install-context.js';
import { servedSecretName, tlsSecretName } from './options.js';

export function namespaceObject(ctx: InstallContext): Namespace {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: ctx.options.namespace,
      labels: {
        ...commonLabels(ctx),
        // Belt and braces: the webhook also excludes this namespace by name.
        [ctx.keys.namespaceLabel]: 'disabled',
        // The injector's pods meet the restricted Pod Security Standard; enforce it here.
        'pod-security.kubernetes.io/enforce': 'restricted',
      },
    },
  };
}

export function serviceAccount(ctx: InstallContext): ServiceAccount {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: metadata(ctx, ctx.options.name),
    // The token is needed only by the caBundle reconciler, the TLS Secret reader and self-healing.
    automountServiceAccountToken: needsToken(ctx),
  };
}

/** Whether the server talks to the API: caBundle reconciler, a TLS Secret read through the API, self-healing. */
export function needsToken(ctx: InstallContext): boolean {
  return ctx.options.caBundleReconcile || ctx.options.reconcile || servedSecretName(ctx.options) !== undefined;
}

/** Only get/patch on our own MutatingWebhookConfiguration (cluster-scoped, so a ClusterRole). */
export function clusterRole(ctx: InstallContext): ClusterRole {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: metadata(ctx, ctx.options.name, false),
    rules: caBundleRules(ctx.options.name),
  };
}

export function clusterRoleBinding(ctx: InstallContext): ClusterRoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: metadata(ctx, ctx.options.name, false),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ctx.options.name },
    subjects: [{ kind: 'ServiceAccount', name: ctx.options.name, namespace: ctx.options.namespace }],
  };
}

export function configMap(ctx: InstallContext): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(ctx, ctx.options.name),
    data: { config: ctx.configMap.config, values: ctx.configMap.values },
  };
}

/** The generated serving certificate, with ca.crt for the reconciler. */
export function tlsSecret(ctx: InstallContext): Secret | undefined {
  const { certPem, keyPem, caPem } = ctx.certs;
  if (certPem === undefined || keyPem === undefined || caPem === undefined) return undefined;
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: metadata(ctx, tlsSecretName(ctx.options.name)),
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': b64(certPem), 'tls.key': b64(keyPem), 'ca.crt': b64(caPem) },
  };
}

/** A cert-manager object: not in kubernetes-types, so typed loosely. */
export interface CertManagerObject {
  apiVersion: 'cert-manager.io/v1';
  kind: 'Issuer' | 'Certificate';
  metadata: { name: string; namespace?: string; labels: Record<string, string> };
  spec: Record<string, unknown>;
}

/**
 * A self-signed Issuer and the serving Certificate (kubebuilder's webhook pattern): the Secret's
 * ca.crt is the self-signed certificate itself, which cainjector copies into the caBundle.
 */
export function certManagerObjects(ctx: InstallContext): CertManagerObject[] {
  const issuer = `${ctx.options.name}-selfsigned`;
  return [
    { apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: metadata(ctx, issuer), spec: { selfSigned: {} } },
    {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: metadata(ctx, ctx.options.name),
      spec: {
        secretName: tlsSecretName(ctx.options.name),
        dnsNames: [...ctx.certs.dnsNames],
        issuerRef: { kind: 'Issuer', name: issuer },
        privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
      },
    },
  ];
}
