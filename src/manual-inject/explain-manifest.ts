/**
 * @module manual-inject/explain-manifest
 * `explain -f`: for every pod and pod template, would the webhook inject it, and why. Two
 * layers, as in a cluster: first the MutatingWebhookConfiguration (namespace label, object
 * selector, match conditions: `install/webhook-rules`, the same scopes the manifests generator
 * writes), then the injector's own rules (`decide`, webhook mode: the config's policy and
 * selectors apply). Each layer's steps are listed in order, followed by the decision's hints
 * and the manifest-level lints. Informational: nothing here fails except malformed input.
 *
 * Namespace labels: when none are given, the namespace is assumed to carry
 * `<namespaceLabel>=enabled` (the usual setup), and when an unlabelled namespace would give a
 * different answer, a warning says so.
 */
import { decide } from '../inject/decide.js';
import { injectPod } from '../inject/pipeline.js';
import { istioPostProcessingEnabled } from '../istio/postprocess.js';
import { InjectorError } from '../errors.js';
import type { DecisionReason } from '../inject/types.js';
import type { LoadedConfig } from '../config/types.js';
import { compileSelector, selectorMatches } from '../config/selector.js';
import { evaluateScopes, NAMESPACE_NAME_LABEL, webhookScopes, type WebhookScope } from '../install/webhook-rules.js';
import { findResourceList, podTemplates, readManifest, type PodTemplateRef } from '../manifest-io/index.js';
import { isPlainObject, type JsonValue } from '../util/json.js';
import { manifestLints } from './explain-lints.js';
import { ownerFor, podInput, subjectOf } from './pod-templates.js';
import type { ManualOptions } from './types.js';

import { DEFAULT_NAME } from '../install/options.js';

/** Where `manifests` installs the injector unless told otherwise: explain assumes the same. */
const DEFAULT_INJECTOR_NAMESPACE = DEFAULT_NAME;

export interface ExplainOptions extends ManualOptions {
  /** The namespace's labels; undefined: not known (a namespace labelled `<namespaceLabel>=enabled` is assumed). */
  namespaceLabels?: Record<string, string>;
  /** Where the injector runs (its namespace is excluded from the webhook); default `sidecar-injector`. */
  injectorNamespace?: string;
  /** The webhook configuration has the `auto.` entry (unlabelled namespaces inject unlabelled pods). */
  enableNamespacesByDefault?: boolean;
  /** More namespaces the webhook excludes (`manifests --exclude-namespace`). */
  excludedNamespaces?: string[];
  /** The webhook configuration has the CEL matchConditions (default true, as `manifests` writes it). */
  matchConditions?: boolean;
}

export interface ExplainStep {
  layer: 'webhook' | 'injector';
  check: string;
  found: string;
  effect: string;
}

export type ExplainReason = DecisionReason;

/** One pod or pod template. Field names are stable (`explain -o json`). */
export interface ExplainEntry {
  /** 1-based, as in messages (the item number in a ResourceList). */
  document: number;
  /** Inside a List: which item (`items[2]`). */
  item?: string;
  kind: string;
  name: string;
  namespace: string;
  namespaceLabels: Record<string, string>;
  /** True when the labels were not given and `<namespaceLabel>=enabled` was assumed. */
  namespaceLabelsAssumed: boolean;
  /** The apiserver calls the webhook for this pod. */
  reached: boolean;
  /** The webhook entry that sends it. */
  via?: string;
  /** Reached, the injector's rules say yes, and the injection succeeds. */
  injected: boolean;
  /**
   * `rejected`: the rules say inject but the injection fails (unknown template, template error,
   * bad annotation...), so the webhook denies the pod (with --on-error deny, the default).
   */
  outcome: 'injected' | 'not-injected' | 'rejected';
  /** For `rejected`: the error the webhook answers with. */
  error?: { code: string; message: string };
  reason: ExplainReason;
  /** One sentence: why. */
  message: string;
  steps: ExplainStep[];
  warnings: string[];
}

export function explainManifest(input: string | Uint8Array, source: string, config: LoadedConfig, options: ExplainOptions = {}): ExplainEntry[] {
  const docs = readManifest(input, source);
  const rl = findResourceList(docs);
  const objects: { value: JsonValue; index: number; line?: number }[] = rl
    ? rl.items.map((value, index) => ({ value, index }))
    : docs.map((d) => ({ value: d.value, index: d.index, line: d.line }));
  const scopes = webhookScopes(config.injectionKeys, {
    injectorNamespace: options.injectorNamespace ?? DEFAULT_INJECTOR_NAMESPACE,
    excludedNamespaces: [...new Set([...config.ignoredNamespaces, ...(options.excludedNamespaces ?? [])])],
    enableNamespacesByDefault: options.enableNamespacesByDefault === true,
    matchConditions: options.matchConditions !== false,
  });
  const entries: ExplainEntry[] = [];
  for (const obj of objects) {
    if (obj.value === null) continue;
    const where = { file: source, document: rl ? rl.document.index : obj.index, line: obj.line };
    for (const ref of podTemplates(obj.value, where)) entries.push(explainTemplate(obj.value, ref, obj.index, scopes, config, options));
  }
  return entries;
}

function explainTemplate(
  root: JsonValue,
  ref: PodTemplateRef,
  index: number,
  scopes: WebhookScope[],
  config: LoadedConfig,
  options: ExplainOptions,
): ExplainEntry {
  const subject = subjectOf(ref, index, options);
  const keys = config.injectionKeys;
  const assumed = options.namespaceLabels === undefined;
  const nsLabels = options.namespaceLabels ?? { [keys.namespaceLabel]: 'enabled' };
  const pod = podInput(root, ref);
  const podLabels = stringLabels(ref.metadata);
  const ns = { name: subject.namespace, labels: nsLabels };

  const webhook = evaluateScopes(scopes, ns, podLabels, pod);
  const steps: ExplainStep[] = [];
  if (assumed) {
    steps.push({
      layer: 'webhook',
      check: 'namespace labels',
      found: `not given; assumed ${keys.namespaceLabel}=enabled`,
      effect: 'pass --namespace-labels to use the real ones',
    });
  }
  for (const s of webhook.steps) steps.push({ layer: 'webhook', ...s });

  const decision = decide(pod, { namespace: subject.namespace, mode: 'webhook' }, config);
  steps.push({ layer: 'injector', ...compatibilityStep(config) });
  for (const s of decision.steps) steps.push({ layer: 'injector', ...s });

  const warnings = [...decision.warnings, ...manifestLints(ref, config, { namespaceLabels: options.namespaceLabels })];
  if (assumed) {
    // Would an unlabelled namespace change the answer? Then the assumption matters: say so.
    const bare = evaluateScopes(scopes, { name: subject.namespace, labels: {} }, podLabels, pod);
    if (bare.reached !== webhook.reached) {
      warnings.push(
        bare.reached
          ? `in a namespace without the ${keys.namespaceLabel} label the pod would also reach the webhook (via ${bare.via})`
          : `in a namespace without the ${keys.namespaceLabel}=enabled label the pod would not reach the webhook (it needs label ${keys.inject}="true")`,
      );
    }
  }

  const base = {
    document: index + 1,
    ...(subject.item !== undefined ? { item: subject.item } : {}),
    kind: subject.kind,
    name: subject.name,
    namespace: subject.namespace,
    namespaceLabels: nsLabels,
    namespaceLabelsAssumed: assumed,
    reached: webhook.reached,
    ...(webhook.via !== undefined ? { via: webhook.via } : {}),
    steps,
    warnings: [...new Set(warnings)],
  };
  if (webhook.reached) {
    if (!decision.inject) return { ...base, injected: false, outcome: 'not-injected', reason: decision.reason, message: decision.message };
    // The rules say yes: run the injection itself, so a failure is the headline, not a footnote.
    const error = injectionError(pod, subject.namespace, ownerFor(ref), config);
    if (error === undefined) return { ...base, injected: true, outcome: 'injected', reason: decision.reason, message: decision.message };
    steps.push({ layer: 'injector', check: 'injection', found: `${error.code}: ${error.message}`, effect: 'the webhook rejects the pod' });
    return {
      ...base,
      injected: false,
      outcome: 'rejected',
      error,
      reason: decision.reason,
      message: `the injector would inject it (${decision.message}), but the injection fails, so the webhook rejects the pod: ${error.message}`,
    };
  }
  const notReached = whyNotReached(scopes, ns, podLabels, config);
  if (notReached !== undefined) return { ...base, injected: false, outcome: 'not-injected', ...notReached };
  // Selectors matched but a match condition did not: the injector's own rule (host network,
  // mirror pod) gives the same answer and the clearer message.
  return { ...base, injected: false, outcome: 'not-injected', reason: decision.reason, message: `the webhook is not called: ${decision.message}` };
}

function injectionError(
  pod: JsonValue,
  namespace: string,
  owner: ReturnType<typeof ownerFor>,
  config: LoadedConfig,
): { code: string; message: string } | undefined {
  try {
    injectPod(pod, { namespace, mode: 'webhook', ...(owner !== undefined ? { owner } : {}) }, config);
    return undefined;
  } catch (err) {
    if (err instanceof InjectorError) return { code: err.code, message: err.message };
    throw err;
  }
}

/** Which behaviour the config is in, and why (config/compat). */
function compatibilityStep(config: LoadedConfig): Omit<ExplainStep, 'layer'> {
  const c = config.compatibility;
  const effects =
    c.mode === 'istio'
      ? `Istio's behaviour: probe rewriting and Prometheus merge ${istioPostProcessingEnabled(config) ? 'on' : 'off (values.istioPostProcessing: false)'}, native sidecars ${config.nativeSidecars ? 'on' : 'off'} (the pod annotation sidecar.istio.io/nativeSidecar decides per pod in Istio's template)`
      : `no Istio post-processing${istioPostProcessingEnabled(config) ? ' except values.istioPostProcessing: true' : ''}; templates render as written`;
  return { check: 'compatibility', found: `${c.mode} (${c.source}: ${c.reason})`, effect: effects };
}

/** Which selector layer turned the pod away, as a reason and a message telling what to change. */
function whyNotReached(
  scopes: WebhookScope[],
  ns: { name: string; labels: Record<string, string> },
  podLabels: Record<string, string>,
  config: LoadedConfig,
): { reason: ExplainReason; message: string } | undefined {
  const keys = config.injectionKeys;
  const nsLabels = new Map(Object.entries(ns.labels));
  if (!nsLabels.has(NAMESPACE_NAME_LABEL)) nsLabels.set(NAMESPACE_NAME_LABEL, ns.name);
  const labels = new Map(Object.entries(podLabels));
  const nsScopes = scopes.filter((s) => selectorMatches(compileSelector(s.namespaceSelector), nsLabels));
  if (nsScopes.length === 0) {
    const excluded = scopes.every((s) =>
      (s.namespaceSelector.matchExpressions ?? []).some((e) => e.key === NAMESPACE_NAME_LABEL && e.operator === 'NotIn' && e.values?.includes(ns.name)),
    );
    if (excluded) {
      return {
        reason: 'namespace-not-selected',
        message: `namespace ${ns.name} is excluded from the webhook (system namespaces and the injector's own are never injected)`,
      };
    }
    const value = ns.labels[keys.namespaceLabel];
    const has = value === undefined ? `has no ${keys.namespaceLabel} label` : `has ${keys.namespaceLabel}=${value}`;
    return {
      reason: 'namespace-not-selected',
      message: `namespace ${ns.name} ${has}, so no webhook entry selects it; label it ${keys.namespaceLabel}=enabled`,
    };
  }
  const objScopes = nsScopes.filter((s) => selectorMatches(compileSelector(s.objectSelector), labels));
  if (objScopes.length > 0) return undefined;
  const label = podLabels[keys.inject];
  const message =
    label === 'false'
      ? `the pod has label ${keys.inject}="false"; the webhook is not called for it`
      : ns.labels[keys.namespaceLabel] === undefined
        ? `namespace ${ns.name} is not labelled ${keys.namespaceLabel}=enabled and the pod has no label ${keys.inject}="true", so the webhook is not called`
        : `the pod's labels do not match any webhook entry's objectSelector`;
  return { reason: label === 'false' ? 'explicit-disabled' : 'object-not-selected', message };
}

function stringLabels(meta: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isPlainObject(meta) || !isPlainObject(meta.labels)) return out;
  for (const [k, v] of Object.entries(meta.labels)) if (typeof v === 'string') out[k] = v;
  return out;
}
