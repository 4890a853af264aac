/**
 * @module policy/match
 * The injector's decision (inject/decide.ts) as CEL match conditions. Which namespaces and pod
 * labels reach the policy at all is the bindings' business (the webhook's scopes, reused from
 * install/webhook-rules.ts); these conditions are the rest of the decision, rule for rule:
 * mirror pods and hostNetwork are skipped, ignored namespaces are skipped, the inject label
 * (if present at all) else annotation is the pod's choice when exactly "true"/"false", then the
 * first matching neverInjectSelector / alwaysInjectSelector (empty and invalid ones skipped,
 * null ones match nothing), then the policy. Every expression guards with has(): an erroring
 * condition would reject the pod under failurePolicy Fail.
 */
import { POLICY_DISABLED, POLICY_ENABLED } from '../config/istio-names.js';
import type { CompiledSelector } from '../config/selector.js';
import type { LoadedConfig } from '../config/types.js';
import { defaultMatchConditions, type MatchCondition } from '../install/webhook-rules.js';
import { celList, celString, hasMapKey } from './cel.js';

/** The CEL expression for "the pod's labels match this selector" (only `ok` selectors). */
function selectorCel(s: CompiledSelector): string {
  const parts = s.requirements.map((r) => {
    const has = hasMapKey('labels', r.key);
    const value = `object.metadata.labels[${celString(r.key)}]`;
    const values = celList([...r.values].sort().map(celString));
    switch (r.op) {
      case 'In':
        return `(${has} && ${value} in ${values})`;
      case 'NotIn':
        return `(!${has} || !(${value} in ${values}))`;
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return `!${has}`;
    }
  });
  return parts.length === 0 ? 'true' : parts.join(' && ');
}

/** The pod's explicit choice, as a CEL string: the label if present, else the annotation, else "". */
function choiceCel(key: string): string {
  const k = celString(key);
  return `(${hasMapKey('labels', key)} ? object.metadata.labels[${k}] : (${hasMapKey('annotations', key)} ? object.metadata.annotations[${k}] : ""))`;
}

export type DecisionConditionConfig = Pick<LoadedConfig, 'policy' | 'compiledSelectors' | 'injectionKeys' | 'ignoredNamespaces'> &
  Partial<Pick<LoadedConfig, 'injectionValues'>>;

/**
 * "The pod opts in": exactly "true" (Istio), or one of the config's `injectionValues.inject`
 * in any case (the tutorial's y/yes/true/on). decide folds case with util/ascii's lowerAscii,
 * which is what CEL's lowerAscii() does, so both read "YES" and "On" alike.
 */
function optsInCel(choice: string, yes: readonly string[] | null | undefined): string {
  if (yes === null || yes === undefined) return `${choice} == "true"`;
  return `${choice}.lowerAscii() in ${celList(yes.map(celString))}`;
}

/** The decision rules as one CEL expression (true: inject). */
function decisionCel(config: DecisionConditionConfig): string {
  const policy = config.policy;
  if (policy !== POLICY_ENABLED && policy !== POLICY_DISABLED) return 'false';
  const choice = choiceCel(config.injectionKeys.inject);
  // Selectors that can match; a null ("nothing") one never does, so it can be left out.
  const usable = (list: readonly CompiledSelector[]) => list.filter((s) => s.state === 'ok').map((s) => `(${selectorCel(s)})`);
  const never = usable(config.compiledSelectors.never);
  const always = usable(config.compiledSelectors.always);
  const notNever = never.length === 0 ? 'true' : `!(${never.join(' || ')})`;
  const byDefault = policy === POLICY_ENABLED ? 'true' : always.length === 0 ? 'false' : `(${always.join(' || ')})`;
  return `${optsInCel(choice, config.injectionValues?.inject)} || (${choice} != "false" && ${notNever} && ${byDefault})`;
}

/** All match conditions of the policy, in evaluation order. */
export function policyMatchConditions(config: DecisionConditionConfig): MatchCondition[] {
  const status = config.injectionKeys.status;
  return [
    ...defaultMatchConditions(),
    { name: 'not-ignored-namespace', expression: `!(request.namespace in ${celList(config.ignoredNamespaces.map(celString))})` },
    // Idempotence: a pod that already carries the status annotation was injected (by this
    // policy on an earlier invocation, or by the webhook); reinvocation leaves it alone. This
    // also covers injectionValues.injected (a status value another webhook wrote), which
    // decide skips too.
    { name: 'not-yet-injected', expression: `!${hasMapKey('annotations', status)}` },
    { name: 'injection-decision', expression: decisionCel(config) },
  ];
}
