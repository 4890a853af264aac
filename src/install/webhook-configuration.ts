/**
 * @module install/webhook-configuration
 * The MutatingWebhookConfiguration: one entry per scope from `webhook-rules.ts` (the single
 * definition of which pods reach us), each calling the Service's `/inject` on pod CREATE only.
 * `sideEffects: None` keeps dry-run requests working; `matchPolicy: Equivalent` also catches
 * pods sent through another API version; a short timeout keeps a slow webhook from stalling the
 * control plane. In URL mode the apiserver calls `<url>/inject` instead of the Service.
 */
import type { MutatingWebhook, MutatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
import { metadata, type InstallContext } from './context.js';
import { webhookScopes } from './webhook-rules.js';

export const WEBHOOK_PATH = '/inject';

export function mutatingWebhookConfiguration(ctx: InstallContext): MutatingWebhookConfiguration {
  const o = ctx.options;
  const scopes = webhookScopes(ctx.keys, {
    injectorNamespace: o.namespace,
    excludedNamespaces: ctx.excludedNamespaces,
    enableNamespacesByDefault: o.enableNamespacesByDefault,
    matchConditions: o.matchConditions,
  });
  const webhooks: MutatingWebhook[] = scopes.map((scope) => ({
    name: scope.name,
    clientConfig: {
      ...(o.webhookUrl !== undefined
        ? { url: `${o.webhookUrl}${WEBHOOK_PATH}` }
        : { service: { name: o.name, namespace: o.namespace, path: WEBHOOK_PATH, port: 443 } }),
      ...(ctx.certs.caBundle !== undefined ? { caBundle: ctx.certs.caBundle } : {}),
    },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: 'Namespaced' }],
    failurePolicy: o.failurePolicy,
    matchPolicy: 'Equivalent',
    sideEffects: 'None',
    timeoutSeconds: o.timeoutSeconds,
    admissionReviewVersions: ['v1', 'v1beta1'],
    reinvocationPolicy: o.reinvocationPolicy,
    namespaceSelector: scope.namespaceSelector,
    objectSelector: scope.objectSelector,
    ...(scope.matchConditions !== undefined ? { matchConditions: scope.matchConditions } : {}),
  }));
  const meta = metadata(ctx, o.name, false) as MutatingWebhookConfiguration['metadata'] & object;
  if (o.certMode === 'cert-manager') meta.annotations = { 'cert-manager.io/inject-ca-from': `${o.namespace}/${o.name}` };
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: meta, webhooks };
}
