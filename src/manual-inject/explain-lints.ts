/**
 * @module manual-inject/explain-lints
 * Manifest-level checks for the classic reasons a sidecar silently does not appear (istio#32853,
 * vault-helm#335, cyberark/sidecar-injector#24): the opt-in on the Deployment's own metadata,
 * which the webhook never sees (it is called for pods, which only get the template's metadata);
 * the opt-in as an annotation where the webhook's objectSelector reads labels only; a value
 * such as "yes"; the namespace label put on a workload; a templates annotation naming a template
 * the config does not have (the webhook would then fail the pod). The pod-level hints (values,
 * misspelt keys, the namespace label on the pod) come from the decision itself.
 */
import type { LoadedConfig } from '../config/types.js';
import { invalidValueHint } from '../inject/decide-hints.js';
import { quote } from '../util/describe.js';
import type { PodTemplateRef } from '../manifest-io/index.js';
import { isPlainObject } from '../util/json.js';

export interface LintContext {
  /** Namespace labels as given (undefined: not given, a labelled namespace is assumed). */
  namespaceLabels: Record<string, string> | undefined;
}

type Where = 'label' | 'annotation';

function stringMap(meta: unknown, field: 'labels' | 'annotations'): Record<string, unknown> {
  if (!isPlainObject(meta)) return {};
  const m = meta[field];
  return isPlainObject(m) ? m : {};
}

/**
 * Keys on the workload's own metadata, which pods never get: the checks `inject` prints too (it
 * would otherwise inject, or not, without a word about the key the user thinks decides it).
 */
export function ownMetadataLints(ref: PodTemplateRef, config: LoadedConfig): string[] {
  const keys = config.injectionKeys;
  const out: string[] = [];
  const isPod = ref.owner.kind === 'Pod' && ref.path.length === ref.owner.path.length;
  const podLabels = stringMap(ref.metadata, 'labels');
  const podAnnotations = stringMap(ref.metadata, 'annotations');
  if (!isPod) {
    const templatePath = ref.path.slice(ref.owner.path.length).join('.');
    for (const where of ['label', 'annotation'] as const) {
      const map = stringMap(ref.owner.metadata, where === 'label' ? 'labels' : 'annotations');
      if (Object.hasOwn(map, keys.inject)) {
        const value = map[keys.inject];
        const onTemplate = Object.hasOwn(podLabels, keys.inject) || Object.hasOwn(podAnnotations, keys.inject);
        out.push(
          `${where} ${keys.inject}=${show(value)} is on the ${ref.owner.kind}'s own metadata, which the injector never sees; ` +
            `move it to ${templatePath}.metadata.labels` +
            (onTemplate ? ' (the template has its own value, which is the one used)' : ''),
        );
      }
      if (Object.hasOwn(map, keys.namespaceLabel)) {
        out.push(
          `${where} ${keys.namespaceLabel} on a ${ref.owner.kind} does nothing: it is a namespace label (kubectl label namespace NS ${keys.namespaceLabel}=enabled)`,
        );
      }
      if (Object.hasOwn(map, keys.templates)) {
        out.push(`${where} ${keys.templates} on the ${ref.owner.kind}'s own metadata is not read; put it in ${templatePath}.metadata.annotations`);
      }
    }
  }

  return out;
}

export function manifestLints(ref: PodTemplateRef, config: LoadedConfig, ctx: LintContext): string[] {
  const keys = config.injectionKeys;
  const out: string[] = [];
  const isPod = ref.owner.kind === 'Pod' && ref.path.length === ref.owner.path.length;
  const podLabels = stringMap(ref.metadata, 'labels');
  const podAnnotations = stringMap(ref.metadata, 'annotations');

  out.push(...ownMetadataLints(ref, config));

  // 2. The opt-in as an annotation: the webhook's objectSelector only sees labels.
  const label = podLabels[keys.inject];
  const annotation = podAnnotations[keys.inject];
  if (label === undefined && typeof annotation === 'string' && annotation === 'true') {
    const nsEnabled = ctx.namespaceLabels === undefined ? undefined : ctx.namespaceLabels[keys.namespaceLabel] === 'enabled';
    const consequence =
      nsEnabled === false
        ? `so in this namespace (no ${keys.namespaceLabel}=enabled) the pod never reaches the injector`
        : `so the pod only gets a sidecar in namespaces labelled ${keys.namespaceLabel}=enabled`;
    out.push(`annotation ${keys.inject}="true" is invisible to the webhook's objectSelector (labels only), ${consequence}; make it a label`);
  }
  // The reverse: the templates selection is read from annotations only.
  if (Object.hasOwn(podLabels, keys.templates)) {
    out.push(`label ${keys.templates} is not read; the templates selection is an annotation`);
  }

  // 3. Namespace label values: only "enabled" / "disabled" mean anything.
  const nsValue = ctx.namespaceLabels?.[keys.namespaceLabel];
  if (nsValue !== undefined && nsValue !== 'enabled' && nsValue !== 'disabled') {
    out.push(`namespace label ${keys.namespaceLabel}=${quote(nsValue)} matches no webhook entry: write "enabled" (or "disabled")`);
  }
  // Values on the workload metadata (pod values are checked by the decision).
  if (!isPod) {
    for (const [where, map] of [
      ['label', stringMap(ref.owner.metadata, 'labels')],
      ['annotation', stringMap(ref.owner.metadata, 'annotations')],
    ] as [Where, Record<string, unknown>][]) {
      const v = map[keys.inject];
      if (typeof v === 'string' && v !== 'true' && v !== 'false' && v !== '') out.push(invalidValueHint(where, keys.inject, v));
    }
  }

  // 4. Templates annotation naming templates the config lacks: the webhook would fail the pod.
  const selected = podAnnotations[keys.templates];
  if (typeof selected === 'string' && selected.trim() !== '') {
    const known = new Set([...Object.keys(config.templates), ...Object.keys(config.aliases)]);
    const unknown = selected
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '' && !known.has(s));
    if (unknown.length > 0) {
      const list = [...known].sort().join(', ') || 'none';
      out.push(
        `annotation ${keys.templates} names ${unknown.map(quote).join(', ')}, which the config does not define (known: ${list}); ` +
          'injection of this pod fails, and the webhook rejects it',
      );
    }
  }
  return out;
}

function show(v: unknown): string {
  return typeof v === 'string' ? quote(v) : (JSON.stringify(v) ?? String(v));
}
