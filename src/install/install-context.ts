/**
 * @module install/install-context
 * Everything the object builders need, resolved once: options, the config's injection keys and
 * ignored namespaces, the certificate material and the ConfigMap text. Builders are pure
 * functions of this, so the same context always yields the same objects (the Helm agreement
 * test relies on it). Also the shared labels.
 */
import type { InjectionKeys } from '../config/types.js';
import type { InstallOptions } from './options.js';
import type { InstallCertificates } from './tls.js';

export interface InstallContext {
  options: InstallOptions;
  keys: InjectionKeys;
  /** Extra namespaces the webhook skips: the config's ignoredNamespaces plus --exclude-namespace. */
  excludedNamespaces: string[];
  certs: InstallCertificates;
  configMap: { config: string; values: string };
  version: string;
  /** `app.kubernetes.io/managed-by`; Helm sets its own. */
  managedBy: string;
}

export const APP_NAME = 'sidecar-injector';
/** The label that names the app on every object the install writes (the webhook configuration is found by it). */
export const NAME_LABEL = 'app.kubernetes.io/name';
export const MANAGED_BY = 'sidecar-injector-manifests';
/**
 * On every object of a revisioned install, and on a tag's webhook configuration (the revision it
 * points at, `default` for the install without one): how `rollout` finds which revision serves
 * a namespace. Our own keys, not Istio's `istio.io/rev`/`istio.io/tag`, so istioctl never takes
 * our webhooks for its own.
 */
export const REVISION_OBJECT_LABEL = 'sidecar-injector.io/revision';
export const TAG_OBJECT_LABEL = 'sidecar-injector.io/tag';

/** The labels that pick the injector's pods (Deployment selector, Service, PDB, anti-affinity). */
export function selectorLabels(ctx: InstallContext): Record<string, string> {
  return { [NAME_LABEL]: APP_NAME, 'app.kubernetes.io/instance': ctx.options.name };
}

/** Labels on every object. */
export function commonLabels(ctx: InstallContext): Record<string, string> {
  return {
    ...selectorLabels(ctx),
    'app.kubernetes.io/component': 'webhook',
    'app.kubernetes.io/version': ctx.version,
    'app.kubernetes.io/managed-by': ctx.managedBy,
    ...(ctx.options.revision !== '' ? { [REVISION_OBJECT_LABEL]: ctx.options.revision } : {}),
  };
}

export function metadata(ctx: InstallContext, name: string, namespaced = true): { name: string; namespace?: string; labels: Record<string, string> } {
  return namespaced ? { name, namespace: ctx.options.namespace, labels: commonLabels(ctx) } : { name, labels: commonLabels(ctx) };
}
