/**
 * @module heal/webhook-find
 * Which MutatingWebhookConfiguration is the injector's. `manifests` names it `sidecar-injector`
 * (or `--name`); a Helm install names it after the release. Both label it
 * `app.kubernetes.io/name=sidecar-injector`, so when no name was given and the default name is
 * absent, the one configuration with that label is the injector's. Several: the user chooses.
 */
import { InjectorError } from '../errors.js';
import { DEFAULT_NAME } from '../install/options.js';
import { INJECTOR_SELECTOR, MWC_PATH, webhookConfigPath } from '../kube/live-webhook-config.js';
import { isPlainObject } from '../util/json.js';
import type { ClusterApi } from '../kube/cluster-api.js';

export interface FoundWebhookConfiguration {
  name: string;
  object: Record<string, unknown>;
  /** How it was found: by the name given (or the default name), or by its label. */
  by: 'name' | 'label';
}

/**
 * The injector's webhook configuration, or undefined (with a note why) when there is none.
 * `name` undefined means "not chosen by the user". Several labelled ones and no name: SI_USAGE.
 */
export async function findWebhookConfiguration(api: ClusterApi, name: string | undefined, notes: string[]): Promise<FoundWebhookConfiguration | undefined> {
  const wanted = name ?? DEFAULT_NAME;
  const byName = await api.find(webhookConfigPath(wanted));
  if (isPlainObject(byName)) return { name: wanted, object: byName, by: 'name' };
  if (name !== undefined) {
    notes.push(`MutatingWebhookConfiguration ${name} not found`);
    return undefined;
  }
  const labelled = (await api.list(MWC_PATH, { labelSelector: INJECTOR_SELECTOR })).items.filter(isPlainObject);
  const names = labelled.map((o) => (isPlainObject(o.metadata) && typeof o.metadata.name === 'string' ? o.metadata.name : ''));
  if (labelled.length === 1) {
    notes.push(`using MutatingWebhookConfiguration ${names[0]} (labelled ${INJECTOR_SELECTOR}; --webhook-config chooses another)`);
    return { name: names[0], object: labelled[0], by: 'label' };
  }
  if (labelled.length > 1) {
    throw new InjectorError(
      'SI_USAGE',
      `several MutatingWebhookConfigurations are labelled ${INJECTOR_SELECTOR}: ${names.join(', ')}; choose one with --webhook-config`,
    );
  }
  notes.push(`no MutatingWebhookConfiguration named ${DEFAULT_NAME} or labelled ${INJECTOR_SELECTOR}`);
  return undefined;
}
