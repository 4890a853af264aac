/**
 * @module cluster
 * Public surface of the Kubernetes side: in-cluster credentials, the minimal API client, the
 * caBundle reconciler and the RBAC it needs.
 */
export { loadInClusterConfig } from './in-cluster.js';
export {
  KubeClient,
  type KubeEndpoint,
} from './client.js';
export { CaBundleReconciler } from './ca-bundle-reconciler.js';
