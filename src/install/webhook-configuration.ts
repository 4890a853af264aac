/**
 * @module install/webhook-configuration
 * The MutatingWebhookConfiguration: one entry per scope from `webhook-rules.ts` (the single
 * definition of which pods reach us), each calling the Service's `/inject` on pod CREATE only.
 * `sideEffects: None` keeps dry-run requests working; `matchPolicy: Equivalent` also catches
 * pods sent through another API version; a short timeout keeps a slow webhook from stalling the
 * control plane. In URL mode the apiserver calls `<url>/inject` instead of the Service.
 * A revisioned install has its revision's entries; each revision tag is one more configuration
 * calling the same server.
 */
import type { MutatingWebhook, MutatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
import { metadata, REVISION_OBJECT_LABEL, TAG_OBJECT_LABEL, type InstallContext } from './install-context.js';
import { tagConfigurationName } from './options.js';
import { tagScopes, webhookScopes, type WebhookScope, type WebhookScopeOptions } from './webhook-rules.js';

const WEBHOOK_PATH = '/inject';

export function mutatingWebhookConfiguration(ctx: InstallContext): MutatingWebhookConfiguration {
  const o = ctx.options;
  return configuration(ctx, o.name, webhookScopes(ctx.keys, { ...scopeOptions(ctx), revision: o.revision }));
}

/**
 * One configuration per revision tag, calling this install's server: applying another
 * revision's manifests with the same `--tag` moves the tag (same name, new service).
 */
export function tagWebhookConfigurations(ctx: InstallContext): MutatingWebhookConfiguration[] {
  const o = ctx.options;
  return o.tags.map((tag) => {
    const mwc = configuration(ctx, tagConfigurationName(o.baseName, tag), tagScopes(ctx.keys, tag, scopeOptions(ctx)));
    mwc.metadata!.labels = { ...mwc.metadata!.labels, [REVISION_OBJECT_LABEL]: o.revision || 'default', [TAG_OBJECT_LABEL]: tag };
    return mwc;
  });
}

function scopeOptions(ctx: InstallContext): WebhookScopeOptions {
  const o = ctx.options;
  return {
    injectorNamespace: o.namespace,
    excludedNamespaces: ctx.excludedNamespaces,
    enableNamespacesByDefault: o.enableNamespacesByDefault,
    matchConditions: o.matchConditions,
  };
}

function configuration(ctx: InstallContext, name: string, scopes: WebhookScope[]): MutatingWebhookConfiguration {
  const o = ctx.options;
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
  const meta = metadata(ctx, name, false) as MutatingWebhookConfiguration['metadata'] & object;
  if (o.certMode === 'cert-manager') meta.annotations = { 'cert-manager.io/inject-ca-from': `${o.namespace}/${o.name}` };
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: meta, webhooks };
}
