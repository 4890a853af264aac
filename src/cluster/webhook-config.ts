/**
 * @module cluster/webhook-config
 * Choosing which webhooks of a MutatingWebhookConfiguration (read and parsed by
 * kube/live-webhook-config.ts) are ours, and building the JSON patch that sets their
 * caBundle. The patch touches only `clientConfig.caBundle` of those entries, so fields other
 * tools manage (selectors, rules, other webhooks) are never overwritten.
 */
import type { LiveWebhook, LiveWebhookConfiguration } from '../kube/live-webhook-config.js';
import type { JsonPatchOperation } from '../patch/types.js';

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
