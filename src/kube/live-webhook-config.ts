/**
 * @module kube/live-webhook-config
 * The injector's MutatingWebhookConfiguration as the product reads it: its API path, the label
 * every install puts on it (manifests and the chart: `app.kubernetes.io/name=sidecar-injector`,
 * how a Helm release's configuration is found), and the one parser of what the API returns
 * (validated, since it is input). The caBundle reconciler, `status`/`restart` and `rollout` read
 * it through these.
 */
import { ClusterError } from '../errors.js';
import { APP_NAME, NAME_LABEL } from '../install/install-context.js';
import { getOwn, isPlainObject } from '../util/json.js';

export const MWC_PATH = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';

/** The label selector of every injector's webhook configuration (any name, any revision). */
export const INJECTOR_SELECTOR = `${NAME_LABEL}=${APP_NAME}`;

const DNS1123_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Refuses a name the API would refuse (a configured name: an error of the config, not of the cluster). */
export function assertWebhookConfigName(name: string): void {
  if (!DNS1123_SUBDOMAIN.test(name)) {
    throw new ClusterError('SI_CLUSTER_CONFIG', `"${name}" is not a valid MutatingWebhookConfiguration name (a lower-case DNS subdomain)`);
  }
}

/** API path of one MutatingWebhookConfiguration. */
export function webhookConfigPath(name: string): string {
  return `${MWC_PATH}/${encodeURIComponent(name)}`;
}

export interface LiveWebhook {
  /** Position in `webhooks`, used in the patch path. */
  index: number;
  name: string;
  caBundle: string | undefined;
  service: { name: string; namespace: string } | undefined;
  url: string | undefined;
  /** The webhook as the API returned it (its selectors, rules, match conditions). */
  raw: Record<string, unknown>;
}

export interface LiveWebhookConfiguration {
  name: string;
  resourceVersion: string;
  /** metadata.labels (string values only). */
  labels: Record<string, string>;
  webhooks: LiveWebhook[];
}

export function parseWebhookConfiguration(value: unknown, expectedName: string): LiveWebhookConfiguration {
  const bad = (what: string) => new ClusterError('SI_CLUSTER_REQUEST', `the API returned a malformed MutatingWebhookConfiguration "${expectedName}": ${what}`);
  if (!isPlainObject(value)) throw bad('not an object');
  const metadata = getOwn(value, 'metadata');
  if (!isPlainObject(metadata)) throw bad('no metadata');
  const resourceVersion = getOwn(metadata, 'resourceVersion');
  if (typeof resourceVersion !== 'string' || resourceVersion === '') throw bad('no metadata.resourceVersion');
  const rawWebhooks = getOwn(value, 'webhooks') ?? [];
  if (!Array.isArray(rawWebhooks)) throw bad('webhooks is not a list');
  const webhooks = rawWebhooks.map((raw, index): LiveWebhook => {
    if (!isPlainObject(raw) || typeof getOwn(raw, 'name') !== 'string') throw bad(`webhooks[${index}] has no name`);
    const clientConfig = getOwn(raw, 'clientConfig');
    const cc = isPlainObject(clientConfig) ? clientConfig : {};
    const caBundle = getOwn(cc, 'caBundle');
    const service = getOwn(cc, 'service');
    const url = getOwn(cc, 'url');
    return {
      index,
      name: getOwn(raw, 'name') as string,
      caBundle: typeof caBundle === 'string' ? caBundle : undefined,
      service:
        isPlainObject(service) && typeof getOwn(service, 'name') === 'string' && typeof getOwn(service, 'namespace') === 'string'
          ? { name: getOwn(service, 'name') as string, namespace: getOwn(service, 'namespace') as string }
          : undefined,
      url: typeof url === 'string' ? url : undefined,
      raw,
    };
  });
  const rawLabels = getOwn(metadata, 'labels');
  const labels: Record<string, string> = {};
  if (isPlainObject(rawLabels)) for (const [k, v] of Object.entries(rawLabels)) if (typeof v === 'string') labels[k] = v;
  return { name: expectedName, resourceVersion, labels, webhooks };
}
