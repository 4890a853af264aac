/**
 * @module cli/serve-kube
 * `serve --kubeconfig/--context`: the endpoint of the caBundle reconciler and the TLS Secret
 * made from a kubeconfig instead of the pod's service account, for a webhook run outside the
 * cluster (URL mode on a laptop). The kubeconfig's own credentials (client certificate, token, exec plugin) are applied
 * per request by the official client, as kubectl applies them. Loaded only with those flags.
 */
import type { Agent, RequestOptions } from 'node:https';
import type { KubeEndpoint } from '../cluster/index.js';
import { loadKubeConfig } from '../heal/kube.js';
import { ClusterError } from '../errors.js';
import type { KubeCliOptions } from './kube-options.js';

/** The kubeconfig's endpoint, and its context's namespace (where `--tls-secret NAME` is, as kubectl's default). */
export function kubeconfigEndpoint(opts: KubeCliOptions): { endpoint: KubeEndpoint; namespace: string | undefined } {
  const kc = loadKubeConfig(opts);
  const server = new URL(kc.getCurrentCluster()!.server);
  const namespace = kc.getContextObject(kc.getCurrentContext())?.namespace || undefined;
  const endpoint: KubeEndpoint = {
    host: server.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(server.port || 443),
    basePath: server.pathname.replace(/\/+$/, ''),
    async connection() {
      const o: RequestOptions = {};
      try {
        await kc.applyToHTTPSOptions(o);
      } catch (err) {
        throw new ClusterError(
          'SI_CLUSTER_CONFIG',
          `cannot use the credentials of context "${kc.getCurrentContext()}": ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      }
      return { agent: o.agent as Agent, headers: { ...(o.headers as Record<string, string> | undefined) } };
    },
  };
  return { endpoint, namespace };
}
