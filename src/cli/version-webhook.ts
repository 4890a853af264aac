/**
 * @module cli/version-webhook
 * The installed webhook, read from the cluster: the injector's MutatingWebhookConfiguration
 * (heal/webhook-find) names its Service; the Deployment of the same name (as `manifests` and the
 * Helm chart write it) carries the version label, the image and the config it serves. In URL
 * mode the server runs outside the cluster and none of that can be read from it: said so.
 * Used by `version` (the webhook's build) and `restart --stale` (the config it serves).
 */
import type { ClusterApi } from '../kube/cluster-api.js';
import { findWebhookConfiguration } from '../heal/webhook-find.js';
import { isPlainObject } from '../util/json.js';

/** The injector build serving the webhook, as `version` reports it. */
export interface WebhookBuild {
  configuration: string;
  /** `service NS/NAME` or the URL (URL mode: the server runs outside the cluster). */
  endpoint: string;
  deployment?: string;
  version?: string;
  image?: string;
  note?: string;
}

type Obj = Record<string, unknown>;

export interface InstalledWebhook {
  build: WebhookBuild;
  /** The Deployment behind the Service, when there is one. */
  deployment?: Obj;
}

export async function installedWebhook(api: ClusterApi, name: string | undefined, notes: string[]): Promise<InstalledWebhook | undefined> {
  const found = await findWebhookConfiguration(api, name, notes);
  if (found === undefined) return undefined;
  const first = Array.isArray(found.object.webhooks) ? found.object.webhooks.find(isPlainObject) : undefined;
  const client = isPlainObject(first) && isPlainObject(first.clientConfig) ? first.clientConfig : {};
  if (typeof client.url === 'string') {
    return {
      build: {
        configuration: found.name,
        endpoint: client.url,
        note: 'URL mode: the server runs outside the cluster; ask it with sidecar-injector version there',
      },
    };
  }
  const service = isPlainObject(client.service) ? client.service : {};
  const ns = typeof service.namespace === 'string' ? service.namespace : '';
  const svc = typeof service.name === 'string' ? service.name : '';
  const build: WebhookBuild = { configuration: found.name, endpoint: `service ${ns}/${svc}` };
  const deployment = await api.find(`/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/deployments/${encodeURIComponent(svc)}`);
  if (!isPlainObject(deployment)) return { build: { ...build, note: `no Deployment ${ns}/${svc} behind the Service` } };
  const labels = isPlainObject(deployment.metadata) && isPlainObject(deployment.metadata.labels) ? deployment.metadata.labels : {};
  const container = serverContainer(deployment);
  return {
    deployment,
    build: {
      ...build,
      deployment: `${ns}/${svc}`,
      ...(typeof labels['app.kubernetes.io/version'] === 'string' ? { version: labels['app.kubernetes.io/version'] } : {}),
      ...(container !== undefined && typeof container.image === 'string' ? { image: container.image } : {}),
    },
  };
}

export async function webhookBuild(api: ClusterApi, name: string | undefined, notes: string[]): Promise<WebhookBuild | undefined> {
  return (await installedWebhook(api, name, notes))?.build;
}

/** The pod template's spec and its first container (the server). */
export function podSpec(deployment: Obj): Obj {
  return isPlainObject(deployment.spec) && isPlainObject(deployment.spec.template) && isPlainObject(deployment.spec.template.spec)
    ? deployment.spec.template.spec
    : {};
}

export function serverContainer(deployment: Obj): Obj | undefined {
  const spec = podSpec(deployment);
  const c = Array.isArray(spec.containers) ? spec.containers.find(isPlainObject) : undefined;
  return isPlainObject(c) ? c : undefined;
}
