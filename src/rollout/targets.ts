/**
 * @module rollout/targets
 * Where a namespace's pods go: the injectors installed in the cluster (our
 * MutatingWebhookConfigurations, found by label) evaluated against the namespace's labels with
 * the same code as `explain` and `status` (`evaluateScopes`), so `rollout` moves a namespace only
 * to a revision whose webhook really takes it, and knows which revision the new pods must name.
 *
 * Labels follow Istio: the default revision is `<namespaceLabel>=enabled`, any other revision or
 * tag is `<revisionLabel>=NAME` without `<namespaceLabel>` (which would win). What a move
 * replaced is kept in an annotation on the namespace, so `rollout --undo` puts it back exactly,
 * from any machine, later.
 */
import type { InjectionKeys } from '../config/types.js';
import { InjectorError } from '../errors.js';
import type { ClusterApi } from '../kube/cluster-api.js';
import { scopesFromWebhooks } from '../heal/scan.js';
import { REVISION_OBJECT_LABEL, TAG_OBJECT_LABEL } from '../install/install-context.js';
import { INJECTOR_SELECTOR, MWC_PATH, parseWebhookConfiguration, type LiveWebhookConfiguration } from '../kube/live-webhook-config.js';
import { evaluateScopes, type WebhookScope } from '../install/webhook-rules.js';
import { isPlainObject } from '../util/json.js';

/** One injector webhook configuration: the revision its server injects, and the tag it is, if one. */
export interface Injector {
  configuration: string;
  revision: string;
  tag?: string;
  scopes: WebhookScope[];
}

/** The two namespace labels a move sets; `null` is absent (and removes the label in a merge patch). */
export type MoveLabels = Record<string, string | null>;

/** The annotation a move leaves on the namespace: what it replaced, for `--undo`. */
export const MOVE_ANNOTATION = 'sidecar-injector.io/rollout';

export interface MoveRecord {
  /** The two labels before the move. */
  labels: MoveLabels;
  /** The revision that served the namespace before. */
  revision: string;
  /** The label value it was moved to. */
  to: string;
  at: string;
}

/** Our webhook configurations (manifests and the chart label them app.kubernetes.io/name=sidecar-injector). */
export async function readInjectors(api: ClusterApi): Promise<Injector[]> {
  const { items } = await api.list(MWC_PATH, { labelSelector: INJECTOR_SELECTOR });
  const out: Injector[] = [];
  for (const item of items) {
    const name = isPlainObject(item) && isPlainObject(item.metadata) ? item.metadata.name : undefined;
    let mwc: LiveWebhookConfiguration;
    try {
      mwc = parseWebhookConfiguration(item, String(name));
    } catch {
      continue; // Not one a rollout can move (the list is of labelled objects; a malformed one is skipped, not fatal).
    }
    const revision = mwc.labels[REVISION_OBJECT_LABEL] ?? 'default';
    const injector: Injector = { configuration: mwc.name, revision, scopes: scopesFromWebhooks(mwc.webhooks.map((w) => w.raw)) };
    const tag = mwc.labels[TAG_OBJECT_LABEL];
    if (tag !== undefined) injector.tag = tag;
    out.push(injector);
  }
  return out.sort((a, b) => a.configuration.localeCompare(b.configuration));
}

/** The injectors whose webhook a plain pod of this namespace reaches (more than one: every pod injected twice). */
export function servingInjectors(injectors: readonly Injector[], namespace: string, labels: Readonly<Record<string, string>>): Injector[] {
  return injectors.filter((i) => evaluateScopes(i.scopes, { name: namespace, labels: { ...labels } }, {}).reached);
}

export function describeInjector(i: Injector): string {
  return `revision ${i.revision}${i.tag !== undefined ? ` through tag ${i.tag}` : ''} (MutatingWebhookConfiguration ${i.configuration})`;
}

/** The labels that put a namespace on revision (or tag) `name`. */
export function labelsFor(keys: InjectionKeys, name: string): MoveLabels {
  return name === 'default' ? { [keys.namespaceLabel]: 'enabled', [keys.revisionLabel]: null } : { [keys.revisionLabel]: name, [keys.namespaceLabel]: null };
}

/** The two labels as the namespace has them now. */
export function currentMoveLabels(keys: InjectionKeys, labels: Readonly<Record<string, string>>): MoveLabels {
  return { [keys.namespaceLabel]: labels[keys.namespaceLabel] ?? null, [keys.revisionLabel]: labels[keys.revisionLabel] ?? null };
}

/** Labels after a merge patch of `change`. */
export function applyLabels(labels: Readonly<Record<string, string>>, change: MoveLabels): Record<string, string> {
  const out = { ...labels };
  for (const [k, v] of Object.entries(change)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** Is the namespace labelled for `name` (the default revision: `<namespaceLabel>=enabled`)? */
export function labelledFor(keys: InjectionKeys, labels: Readonly<Record<string, string>>, name: string): boolean {
  if (name === 'default')
    return labels[keys.namespaceLabel] === 'enabled' || (labels[keys.namespaceLabel] === undefined && labels[keys.revisionLabel] === 'default');
  return labels[keys.namespaceLabel] === undefined && labels[keys.revisionLabel] === name;
}

/** `k=v, k2 removed` for messages. */
export function describeLabels(change: MoveLabels): string {
  return Object.entries(change)
    .map(([k, v]) => (v === null ? `${k} removed` : `${k}=${v}`))
    .join(', ');
}

export function formatRecord(record: MoveRecord): string {
  return JSON.stringify(record);
}

/** The move record on a namespace, if any; a damaged one is an error naming the namespace. */
export function readRecord(namespace: string, annotations: Readonly<Record<string, unknown>>): MoveRecord | undefined {
  const text = annotations[MOVE_ANNOTATION];
  if (text === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(String(text));
  } catch {
    raw = undefined;
  }
  const labelsOk = (v: unknown): v is MoveLabels => isPlainObject(v) && Object.values(v).every((x) => x === null || typeof x === 'string');
  if (!isPlainObject(raw) || !labelsOk(raw.labels) || typeof raw.revision !== 'string' || typeof raw.to !== 'string') {
    throw new InjectorError(
      'SI_ROLLOUT_REFUSED',
      `namespace ${namespace}: annotation ${MOVE_ANNOTATION} is not a record this tool wrote; remove it (kubectl annotate namespace ${namespace} ${MOVE_ANNOTATION}-) and label the namespace yourself`,
    );
  }
  return { labels: raw.labels, revision: raw.revision, to: raw.to, at: typeof raw.at === 'string' ? raw.at : '' };
}
