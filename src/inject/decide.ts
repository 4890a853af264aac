/**
 * @module inject/decide
 * Whether a pod gets the sidecar: Istio's `injectRequired` (pkg/kube/inject/inject.go) rule
 * for rule, plus two guards of ours (mirror pods, untrusted input). Every decision carries a
 * machine-readable reason, the steps taken (for `explain`) and warnings for likely mistakes.
 *
 * Order (first match wins): mirror pod -> hostNetwork -> ignored namespace -> the inject
 * label, else the inject annotation (exactly "true"/"false"; anything else means "no choice")
 * -> with no choice, the first matching neverInjectSelector, then alwaysInjectSelector ->
 * policy: `enabled` defaults to yes, `disabled` to no, anything else is no whatever was asked.
 * Manual mode (`inject -f`, like istioctl kube-inject) forces policy `enabled` and ignores the
 * selectors.
 */
import { MIRROR_POD_ANNOTATION, POLICY_DISABLED, POLICY_ENABLED } from '../config/istio-names.js';
import { selectorMatches, type CompiledSelector } from '../config/selector.js';
import type { LoadedConfig } from '../config/types.js';
import { isPlainObject } from '../util/json.js';
import { invalidValueHint, keyHints } from './decide-hints.js';
import { lowerAscii } from '../util/ascii.js';
import { quote } from '../util/describe.js';
import { readDecisionView, type PodView } from './decide-input.js';
import type { Decision, DecisionReason, DecisionStep, InjectionContext } from './types.js';

/** The parts of a loaded config the decision reads. */
export type DecisionConfig = Pick<LoadedConfig, 'policy' | 'compiledSelectors' | 'injectionKeys' | 'ignoredNamespaces'> &
  Partial<Pick<LoadedConfig, 'injectionValues'>>;

/** Every reason `decide` can return (the rest of the union belongs to other layers). */
export const DECIDE_REASONS = [
  'not-a-pod',
  'mirror-pod',
  'host-network',
  'ignored-namespace',
  'explicit-enabled',
  'explicit-disabled',
  'never-inject-selector',
  'always-inject-selector',
  'policy-enabled',
  'policy-disabled',
  'policy-invalid',
  'already-injected',
] as const satisfies readonly DecisionReason[];

type Choice = { inject: boolean; reason: DecisionReason; why: string } | undefined;

export function decide(pod: unknown, ctx: Pick<InjectionContext, 'namespace' | 'mode'>, config: DecisionConfig): Decision {
  const steps: DecisionStep[] = [];
  const warnings: string[] = [];
  const done = (inject: boolean, reason: DecisionReason, message: string): Decision => ({ inject, reason, message, steps, warnings });

  if (!isPlainObject(pod)) {
    steps.push({ check: 'object', found: pod === null ? 'null' : Array.isArray(pod) ? 'a list' : typeof pod, effect: 'not a pod: skip' });
    return done(false, 'not-a-pod', 'the object is not a pod (expected a map with metadata and spec); nothing to inject');
  }
  const manual = ctx.mode === 'manual';
  if (manual) steps.push({ check: 'mode', found: 'manual', effect: 'policy forced to enabled, selectors ignored (as istioctl kube-inject)' });
  const view = readDecisionView(pod, ctx.namespace, warnings);

  // Ours: the kubelet owns mirror pods (static pods); the apiserver refuses changes to them.
  if (view.annotations.values.has(MIRROR_POD_ANNOTATION) || view.annotations.invalid.has(MIRROR_POD_ANNOTATION)) {
    steps.push({ check: `annotation ${MIRROR_POD_ANNOTATION}`, found: 'present', effect: 'mirror pod: skip' });
    return done(false, 'mirror-pod', `pod is a mirror pod (${MIRROR_POD_ANNOTATION}); the kubelet manages it and sidecars are never injected`);
  }
  steps.push({ check: `annotation ${MIRROR_POD_ANNOTATION}`, found: 'absent', effect: 'not a mirror pod' });

  // 1. Host network: the sidecar's traffic redirection would rewrite the node's network.
  const hn = view.hostNetwork;
  if (hn === true) {
    steps.push({ check: 'spec.hostNetwork', found: 'true', effect: 'host network: skip' });
    return done(false, 'host-network', 'pod has hostNetwork: true; sidecars are never injected into host-network pods');
  }
  if (hn !== undefined && hn !== null && typeof hn !== 'boolean') warnings.push('spec.hostNetwork is not a boolean; treated as false');
  steps.push({ check: 'spec.hostNetwork', found: hn === false ? 'false' : 'unset', effect: 'continue' });

  // 2. Ignored namespaces (Istio's four plus the config's).
  const nsFound = view.namespaceFromRequest ? `${quote(view.namespace)} (from the request)` : quote(view.namespace);
  if (config.ignoredNamespaces.includes(view.namespace)) {
    steps.push({ check: 'namespace', found: nsFound, effect: 'ignored namespace: skip' });
    return done(false, 'ignored-namespace', `namespace ${view.namespace} is ignored; sidecars are never injected there`);
  }
  steps.push({ check: 'namespace', found: nsFound, effect: 'not ignored' });

  // Ours (the tutorial's rule): a status value the config lists means another webhook injected the pod.
  const injectedValues = config.injectionValues?.injected ?? [];
  if (injectedValues.length > 0) {
    const statusKey = config.injectionKeys.status;
    const status = view.annotations.values.get(statusKey);
    if (status !== undefined && injectedValues.includes(lowerAscii(status))) {
      steps.push({ check: `annotation ${statusKey}`, found: quote(status), effect: 'already injected: skip' });
      return done(false, 'already-injected', `annotation ${statusKey} is ${quote(status)}: the pod is already injected`);
    }
    steps.push({ check: `annotation ${statusKey}`, found: status === undefined ? 'absent' : 'not an injected marker', effect: 'continue' });
  }

  warnings.push(...keyHints({ view, injectKey: config.injectionKeys.inject, namespaceLabel: config.injectionKeys.namespaceLabel }));

  // 3-4. The pod's own choice: the label if present at all, else the annotation.
  const yes = config.injectionValues?.inject ?? null;
  let choice = explicitChoice(view, config.injectionKeys.inject, steps, warnings, yes);

  // 5-6. Selectors, only when the pod made no choice (and never in manual mode).
  if (choice === undefined && !manual) {
    choice =
      firstMatch(config.compiledSelectors.never, 'neverInjectSelector', view, steps, false) ??
      firstMatch(config.compiledSelectors.always, 'alwaysInjectSelector', view, steps, true);
  } else if (choice === undefined) {
    steps.push({ check: 'neverInjectSelector, alwaysInjectSelector', found: 'not consulted', effect: 'manual mode uses no selectors' });
  }

  // 7. Policy.
  const policy = manual ? POLICY_ENABLED : config.policy;
  if (policy !== POLICY_ENABLED && policy !== POLICY_DISABLED) {
    steps.push({ check: 'policy', found: quote(policy), effect: 'not enabled/disabled: injection is off for every pod' });
    if (choice?.inject) warnings.push(`no sidecar although the pod asks for one: the config's policy ${quote(policy)} is not enabled/disabled`);
    return done(false, 'policy-invalid', `the config's policy ${quote(policy)} is neither "enabled" nor "disabled", so no pod gets a sidecar; fix the policy`);
  }
  if (choice !== undefined) {
    steps.push({ check: 'policy', found: manual ? 'enabled (forced by manual mode)' : policy, effect: 'not used: the pod or a selector decided' });
    return done(choice.inject, choice.reason, choice.why);
  }
  const enabled = policy === POLICY_ENABLED;
  steps.push({
    check: 'policy',
    found: manual ? 'enabled (forced by manual mode)' : policy,
    effect: enabled ? 'inject by default' : 'do not inject by default',
  });
  const key = config.injectionKeys.inject;
  return enabled
    ? done(true, 'policy-enabled', `no explicit choice; policy is enabled, so the sidecar is injected (opt out with ${key}: "false")`)
    : done(false, 'policy-disabled', `no explicit choice; policy is disabled, so no sidecar (opt in with label ${key}: "true")`);
}

function explicitChoice(view: PodView, key: string, steps: DecisionStep[], warnings: string[], yes: readonly string[] | null): Choice {
  // The config's opt-in values (any case), else exactly "true" as Istio.
  const isYes = (v: string | undefined) => v !== undefined && (yes === null ? v === 'true' : yes.includes(lowerAscii(v)));
  const effectOf = (v: string | undefined) => (isYes(v) ? 'explicit yes' : effectOfValue(v));
  const label = lookup(view.labels, key);
  const annotation = lookup(view.annotations, key);
  steps.push({ check: `label ${key}`, found: label.found, effect: label.present ? effectOf(label.value) : 'absent: read the annotation' });
  if (label.present) {
    steps.push({ check: `annotation ${key}`, found: annotation.found, effect: 'not read: the label wins' });
    if (annotation.present && (isChoice(annotation.value) || isYes(annotation.value)) && label.value !== annotation.value) {
      warnings.push(`label ${key}=${label.found} overrides annotation ${key}=${annotation.found} (the label wins)`);
    }
  } else {
    steps.push({ check: `annotation ${key}`, found: annotation.found, effect: annotation.present ? effectOf(annotation.value) : 'absent: no explicit choice' });
  }
  const from = label.present ? label : annotation;
  const where = label.present ? 'label' : 'annotation';
  if (from.present && from.value === undefined) {
    warnings.push(`${where} ${key} is ${from.found}, not a string; ignored, so the default applies`);
    return undefined;
  }
  if (isYes(from.value)) return { inject: true, reason: 'explicit-enabled', why: `${where} ${key} is ${quote(from.value!)}` };
  if (from.value === 'false') return { inject: false, reason: 'explicit-disabled', why: `${where} ${key} is "false"; the pod opted out` };
  if (from.value !== undefined && from.value !== '' && yes === null) warnings.push(invalidValueHint(where, key, from.value));
  return undefined;
}

interface Lookup {
  present: boolean;
  /** The string value; undefined when absent or not a string. */
  value: string | undefined;
  found: string;
}

function lookup(map: PodView['labels'], key: string): Lookup {
  const value = map.values.get(key);
  if (value !== undefined) return { present: true, value, found: quote(value) };
  const bad = map.invalid.get(key);
  if (bad !== undefined) return { present: true, value: undefined, found: bad };
  return { present: false, value: undefined, found: 'absent' };
}

function isChoice(value: string | undefined): boolean {
  return value === 'true' || value === 'false';
}

function effectOfValue(value: string | undefined): string {
  if (value === 'true') return 'explicit yes';
  if (value === 'false') return 'explicit no';
  if (value === '') return 'empty: no explicit choice';
  return 'not "true"/"false": no explicit choice';
}

function firstMatch(list: readonly CompiledSelector[], name: string, view: PodView, steps: DecisionStep[], inject: boolean): Choice {
  for (let i = 0; i < list.length; i++) {
    const s = list[i];
    const check = `${name}[${i}]`;
    if (s.state === 'empty') {
      steps.push({ check, found: 'empty selector', effect: 'skipped (it would select every pod)' });
    } else if (s.state === 'invalid') {
      steps.push({ check, found: `invalid: ${s.error ?? ''}`, effect: 'skipped' });
    } else if (s.state === 'nothing') {
      steps.push({ check, found: 'null selector', effect: 'matches nothing' });
    } else if (selectorMatches(s, view.labels.values)) {
      steps.push({ check, found: `${s.text} matches`, effect: inject ? 'always inject' : 'never inject' });
      return {
        inject,
        reason: inject ? 'always-inject-selector' : 'never-inject-selector',
        why: `pod labels match ${check} (${s.text})${inject ? '' : '; not injected'}`,
      };
    } else {
      steps.push({ check, found: `${s.text} does not match`, effect: 'continue' });
    }
  }
  if (list.length === 0) steps.push({ check: name, found: 'none', effect: 'continue' });
  return undefined;
}
