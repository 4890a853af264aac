/**
 * @module install
 * Public surface of the install tooling: which pods reach the webhook (shared with `explain`),
 * and the generator of the install manifests (`manifests` command, kept in agreement with the
 * Helm chart under deploy/helm by a test).
 */
export {
  webhookScopes,
  evaluateScopes,
  excludedNamespaceList,
  defaultMatchConditions,
  NAMESPACE_NAME_LABEL,
  DEFAULT_WEBHOOK_DOMAIN,
  type WebhookScope,
  type WebhookScopeOptions,
  type MatchCondition,
  type ScopeEvaluation,
  type ScopeStep,
} from './webhook-rules.js';
export { generateInstall, buildInstallObjects, installYaml, type InstallRequest, type GeneratedInstall, type KubeObject } from './generate.js';
export {
  resolveInstallOptions,
  defaultInstallOptions,
  defaultImage,
  packageVersion,
  tlsSecretName,
  DEFAULT_NAME,
  DEFAULT_TIMEOUT_SECONDS,
  DEFAULT_WEBHOOK_PORT,
  DEFAULT_MONITORING_PORT,
  TLS_MOUNT,
  CONFIG_MOUNT,
  type InstallOptions,
  type CertMode,
  type FailurePolicy,
  type ReinvocationPolicy,
} from './options.js';
export { installCertificates, type InstallCertificates, type CertificateSources } from './tls.js';
export { configMapData, splitSingleFile, BUILTIN_CONFIG_FILES, type ConfigMapData } from './config-data.js';
export { serveArgs } from './workload.js';
export type { InstallContext } from './context.js';
