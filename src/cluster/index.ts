/**
 * @module cluster
 * Public surface of the Kubernetes side: in-cluster credentials, the minimal API client, the
 * caBundle reconciler and the RBAC it needs.
 */
export { loadInClusterConfig, readToken, SERVICE_ACCOUNT_DIR, type InClusterConfig, type InClusterOptions } from './in-cluster.js';
export {
  KubeClient,
  KubeApiError,
  isConflict,
  inClusterEndpoint,
  type KubeEndpoint,
  type KubeApi,
  type KubeClientOptions,
  type PatchType,
  type RequestOptions,
} from './client.js';
export {
  CaBundleReconciler,
  type CaBundleReconcilerOptions,
  type ReconcilerEvent,
  type ReconcileResult,
  type ReconcileTrigger,
  type ReconcilerStats,
} from './reconciler.js';
export {
  webhookConfigPath,
  parseWebhookConfiguration,
  selectWebhooks,
  caBundlePatch,
  MWC_API_PATH,
  type LiveWebhook,
  type LiveWebhookConfiguration,
  type WebhookSelector,
} from './webhook-config.js';
export type { JsonPatchOperation } from '../patch/types.js';
export { CA_BUNDLE_RBAC, caBundleRbacRules, type PolicyRule } from './rbac.js';
