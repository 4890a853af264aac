/**
 * @module cluster/webhook-config
 * Reading a MutatingWebhookConfiguration as the API returns it (validated, since it is input),
 * choosing which of its webhooks are ours, and building the JSON patch that sets their
 * caBundle. The patch touches only `clientConfig.caBundle` of those entries, so fields other
 * tools manage (selectors, rules, other webhooks) are never overwritten.
 */
import { ClusterError } from '../errors.js';
import { getOwn, isPlainObject } from '../util/json.js';
import type { JsonPatchOperation } from '../patch/types.js';

const MWC_API_PATH = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';

const DNS1123_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** API path of one MutatingWebhookConfiguration; refuses names the API would refuse. */
export function webhookConfigPath(name: string): string {
  if (!DNS1123_SUBDOMAIN.test(name)) {
    throw new ClusterError('SI_CLUSTER_CONFIG', `"${name}" is not a valid MutatingWebhookConfiguration name (a lower-case DNS subdomain)`);
  }
  return `${MWC_API_PATH}/${name}`;
}

export interface LiveWebhook {
  /** Position in `webhooks`, used in the patch path. */
  index: number;
  name: string;
  caBundle: string | undefined;
  service: { name: string; namespace: string } | undefined;
  url: string | undefined;
}

export interface LiveWebhookConfiguration {
  name: string;
  resourceVersion: string;
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
    };
  });
  return { name: expectedName, resourceVersion, webhooks };
}

export interface WebhookSelector {
  /** Exactly these webhooks (by `name`). Takes precedence over `service`. */
  webhookNames?: readonly string[];
  /** Every webhook whose `clientConfig.service` is this Service. */
  service?: { name: string; namespace: string };
}

/**
 * Our webhooks in `config`. With neither `webhookNames` nor `service`, every webhook in the
 * configuration: it is named after us, so all of it is ours.
 */
export function selectWebhooks(config: LiveWebhookConfiguration, selector: WebhookSelector): { selected: LiveWebhook[]; missing: string[] } {
  if (selector.webhookNames && selector.webhookNames.length > 0) {
    const wanted = new Set(selector.webhookNames);
    const selected = config.webhooks.filter((w) => wanted.has(w.name));
    const found = new Set(selected.map((w) => w.name));
    return { selected, missing: [...wanted].filter((n) => !found.has(n)) };
  }
  if (selector.service) {
    const { name, namespace } = selector.service;
    return { selected: config.webhooks.filter((w) => w.service?.name === name && w.service.namespace === namespace), missing: [] };
  }
  return { selected: [...config.webhooks], missing: [] };
}

/**
 * The patch for new caBundles. Carrying `metadata.resourceVersion` makes the apiserver refuse
 * it with 409 Conflict if the object changed since we read it; the `test` on each webhook's
 * name makes sure the index still points at the same entry (a reorder fails with 422).
 */
export function caBundlePatch(resourceVersion: string, changes: ReadonlyArray<{ index: number; name: string; caBundle: string }>): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [{ op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion }];
  for (const change of changes) {
    ops.push({ op: 'test', path: `/webhooks/${change.index}/name`, value: change.name });
    // `add` sets a member whether or not it exists; clientConfig itself always exists (required).
    ops.push({ op: 'add', path: `/webhooks/${change.index}/clientConfig/caBundle`, value: change.caBundle });
  }
  return ops;
}
