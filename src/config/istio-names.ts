/**
 * @module config/istio-names
 * Istio's fixed names, in one place: the keys used when the config does not rename them, the
 * namespaces Istio never injects (pkg/kube/inject/initializer.go), and the mirror-pod marker.
 */
import type { InjectionKeys, TemplateOptions } from './types.js';

export const ISTIO_INJECTION_KEYS: Readonly<InjectionKeys> = Object.freeze({
  inject: 'sidecar.istio.io/inject',
  status: 'sidecar.istio.io/status',
  templates: 'inject.istio.io/templates',
  namespaceLabel: 'istio-injection',
  revisionLabel: 'istio.io/rev',
});

/** Istio's IgnoredNamespaces: always ignored, whatever the config adds. */
export const ISTIO_IGNORED_NAMESPACES: readonly string[] = Object.freeze(['kube-system', 'kube-public', 'kube-node-lease', 'local-path-storage']);

export const DEFAULT_TEMPLATE_OPTIONS: Readonly<TemplateOptions> = Object.freeze({ allowEnv: false, missingKey: 'default' as const });

/** The kubelet sets this annotation on the API copy of a static pod; such pods cannot be mutated. */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

export const POLICY_ENABLED = 'enabled';
export const POLICY_DISABLED = 'disabled';
