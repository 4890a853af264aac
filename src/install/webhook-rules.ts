/**
 * @module install/webhook-rules
 * The one definition of which pods reach the webhook at all (layer A of Istio's decision: the
 * MutatingWebhookConfiguration's selectors and matchConditions). The manifests generator writes
 * these scopes into the webhook configuration, and `explain` evaluates the same scopes against
 * a namespace and a pod, so the two cannot disagree.
 *
 * The entries follow Istio's default-revision webhooks: `namespace.` (namespace label
 * `<namespaceLabel>=enabled`, pod not opted out), `object.` (namespace unlabelled, pod opted in
 * by label) and, optionally, `auto.` (namespace unlabelled, pod unlabelled). They are disjoint,
 * so a pod is sent at most once. A revisioned injector (`revision`) has Istio's revisioned entries
 * instead (`rev.namespace.`, `rev.object.`), and a revision tag the same for the tag's name (plus
 * the default ones for the tag `default`). Every entry also excludes the system namespaces and the
 * injector's own namespace by `kubernetes.io/metadata.name`, so a failing injector can always
 * restart (no self-deadlock under `failurePolicy: Fail`).
 */
import { ISTIO_IGNORED_NAMESPACES, MIRROR_POD_ANNOTATION } from '../config/istio-names.js';
import { compileSelector, selectorMatches, type LabelSelector, type LabelSelectorRequirement } from '../config/selector.js';
import type { InjectionKeys } from '../config/types.js';
import { getOwn, isPlainObject } from '../util/json.js';

/** The label the apiserver puts on every namespace (1.21+), equal to its name. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** Default suffix of the webhook entry names (`namespace.<domain>`); names must be fully qualified. */
export const DEFAULT_WEBHOOK_DOMAIN = 'sidecar-injector.io';

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface WebhookScope {
  /** The webhook entry's name, e.g. `namespace.sidecar-injector.io`. */
  name: string;
  namespaceSelector: LabelSelector;
  objectSelector: LabelSelector;
  matchConditions?: MatchCondition[];
}

export interface WebhookScopeOptions {
  /** Namespace the injector runs in: always excluded. */
  injectorNamespace: string;
  /** More namespaces to exclude (e.g. the config's ignoredNamespaces); Istio's four are always excluded. */
  excludedNamespaces?: string[];
  /** Add Istio's `auto.` entry: unlabelled namespaces inject unlabelled pods. */
  enableNamespacesByDefault?: boolean;
  /** Suffix of the entry names (default `sidecar-injector.io`). */
  webhookDomain?: string;
  /** Add the CEL matchConditions (skip mirror and hostNetwork pods); needs Kubernetes 1.28+. Default true. */
  matchConditions?: boolean;
  /** A revisioned injector: only what is labelled `<revisionLabel>=<revision>` (Istio's revisions). */
  revision?: string;
}

/**
 * The CEL conditions we generate, with the same rule in TypeScript so `evaluateScopes` can
 * evaluate them offline. Every expression guards with `has()` so it cannot error: an erroring
 * condition under `failurePolicy: Fail` would reject the pod without calling the webhook.
 */
interface KnownCondition extends MatchCondition {
  holds(pod: Record<string, unknown>): { holds: boolean; found: string };
}

const KNOWN_CONDITIONS: readonly KnownCondition[] = [
  {
    name: 'not-mirror-pod',
    expression: `!has(object.metadata.annotations) || !('${MIRROR_POD_ANNOTATION}' in object.metadata.annotations)`,
    holds(pod) {
      const meta = getOwn(pod, 'metadata');
      const ann = isPlainObject(meta) ? getOwn(meta, 'annotations') : undefined;
      const mirror = isPlainObject(ann) && getOwn(ann, MIRROR_POD_ANNOTATION) !== undefined;
      return {
        holds: !mirror,
        found: mirror ? `annotation ${MIRROR_POD_ANNOTATION} present (a static pod's mirror)` : `no ${MIRROR_POD_ANNOTATION} annotation`,
      };
    },
  },
  {
    name: 'not-host-network',
    expression: '!has(object.spec.hostNetwork) || !object.spec.hostNetwork',
    holds(pod) {
      const spec = getOwn(pod, 'spec');
      const host = isPlainObject(spec) && getOwn(spec, 'hostNetwork') === true;
      return { holds: !host, found: host ? 'spec.hostNetwork is true' : 'spec.hostNetwork is not true' };
    },
  },
];

/** The matchConditions written when they are enabled. */
export function defaultMatchConditions(): MatchCondition[] {
  return KNOWN_CONDITIONS.map(({ name, expression }) => ({ name, expression }));
}

/** Istio's ignored namespaces, the injector's own and any extra, sorted and without duplicates. */
export function excludedNamespaceList(options: Pick<WebhookScopeOptions, 'injectorNamespace' | 'excludedNamespaces'>): string[] {
  const all = new Set<string>([...ISTIO_IGNORED_NAMESPACES, options.injectorNamespace, ...(options.excludedNamespaces ?? [])]);
  return [...all].filter((n) => n !== '').sort();
}

/**
 * The webhook entries of one injector, in the order they are written: the default revision's
 * (namespace., object., auto.) or, with `revision`, a revisioned injector's (rev.namespace.,
 * rev.object.).
 */
export function webhookScopes(keys: InjectionKeys, options: WebhookScopeOptions): WebhookScope[] {
  return options.revision ? revisionScopes(keys, options.revision, options) : defaultScopes(keys, options);
}

/**
 * A revision tag's entries (Istio's `istio-revision-tag-<tag>`): the tag is selected like a
 * revision (`<revisionLabel>=<tag>`); the tag `default` also takes over the default revision's
 * entries, so namespaces labelled `<namespaceLabel>=enabled` go where the tag points.
 */
export function tagScopes(keys: InjectionKeys, tag: string, options: WebhookScopeOptions): WebhookScope[] {
  const scopes = revisionScopes(keys, tag, options);
  return tag === 'default' ? [...scopes, ...defaultScopes(keys, options)] : scopes;
}

type ScopeMaker = (prefix: string, ns: LabelSelectorRequirement[], obj: LabelSelectorRequirement[]) => WebhookScope;

function scopeMaker(options: WebhookScopeOptions): ScopeMaker {
  const domain = options.webhookDomain ?? DEFAULT_WEBHOOK_DOMAIN;
  const notExcluded: LabelSelectorRequirement = { key: NAMESPACE_NAME_LABEL, operator: 'NotIn', values: excludedNamespaceList(options) };
  const conditions = options.matchConditions === false ? undefined : defaultMatchConditions();
  return (prefix, ns, obj) => {
    const s: WebhookScope = {
      name: `${prefix}.${domain}`,
      namespaceSelector: { matchExpressions: [...ns, { ...notExcluded, values: [...notExcluded.values!] }] },
      objectSelector: { matchExpressions: obj },
    };
    if (conditions) s.matchConditions = conditions.map((c) => ({ ...c }));
    return s;
  };
}

function defaultScopes(keys: InjectionKeys, options: WebhookScopeOptions): WebhookScope[] {
  const scope = scopeMaker(options);
  const scopes = [
    // Namespace opted in: every pod except those labelled inject=false.
    scope('namespace', [{ key: keys.namespaceLabel, operator: 'In', values: ['enabled'] }], [{ key: keys.inject, operator: 'NotIn', values: ['false'] }]),
    // Namespace unlabelled: only pods labelled inject=true. A revision label belongs to another (revisioned) injector, as in Istio.
    scope(
      'object',
      [
        { key: keys.namespaceLabel, operator: 'DoesNotExist' },
        { key: keys.revisionLabel, operator: 'DoesNotExist' },
      ],
      [
        { key: keys.inject, operator: 'In', values: ['true'] },
        { key: keys.revisionLabel, operator: 'DoesNotExist' },
      ],
    ),
  ];
  if (options.enableNamespacesByDefault) {
    // Namespace and pod both unlabelled: injected by default. Disjoint from `object.` (inject=true).
    scopes.push(
      scope(
        'auto',
        [
          { key: keys.namespaceLabel, operator: 'DoesNotExist' },
          { key: keys.revisionLabel, operator: 'DoesNotExist' },
        ],
        [
          { key: keys.inject, operator: 'DoesNotExist' },
          { key: keys.revisionLabel, operator: 'DoesNotExist' },
        ],
      ),
    );
  }
  return scopes;
}

/**
 * Istio's revisioned entries, as istioctl 1.31 renders them: the namespace labelled
 * `<revisionLabel>=<rev>` and not `<namespaceLabel>` (which wins: it belongs to the default
 * revision), every pod not opted out; or an unlabelled namespace and a pod labelled
 * `<revisionLabel>=<rev>`. The namespace's label wins over the pod's (Istio's default
 * revisionLabelPreference).
 */
function revisionScopes(keys: InjectionKeys, rev: string, options: WebhookScopeOptions): WebhookScope[] {
  const scope = scopeMaker(options);
  return [
    scope(
      'rev.namespace',
      [
        { key: keys.revisionLabel, operator: 'In', values: [rev] },
        { key: keys.namespaceLabel, operator: 'DoesNotExist' },
      ],
      [{ key: keys.inject, operator: 'NotIn', values: ['false'] }],
    ),
    scope(
      'rev.object',
      [
        { key: keys.revisionLabel, operator: 'DoesNotExist' },
        { key: keys.namespaceLabel, operator: 'DoesNotExist' },
      ],
      [
        { key: keys.inject, operator: 'NotIn', values: ['false'] },
        { key: keys.revisionLabel, operator: 'In', values: [rev] },
      ],
    ),
  ];
}

interface ScopeStep {
  check: string;
  found: string;
  effect: string;
}

export interface ScopeEvaluation {
  reached: boolean;
  /** Name of the first entry that sends the pod to the webhook. */
  via?: string;
  steps: ScopeStep[];
}

/**
 * Evaluate the entries as the apiserver does: an entry calls the webhook when its
 * namespaceSelector matches the namespace's labels, its objectSelector matches the pod's labels
 * (each selector ANDs all its terms; an empty selector matches everything) and every
 * matchCondition holds. `pod`, when given, lets the conditions we generate be evaluated; an
 * unknown CEL condition cannot be evaluated offline and is reported as assumed true.
 */
export function evaluateScopes(
  scopes: WebhookScope[],
  ns: { name: string; labels: Record<string, string> },
  podLabels: Record<string, string>,
  pod?: unknown,
): ScopeEvaluation {
  const steps: ScopeStep[] = [];
  const nsLabels = new Map(Object.entries(ns.labels));
  if (!nsLabels.has(NAMESPACE_NAME_LABEL) && ns.name !== '') {
    nsLabels.set(NAMESPACE_NAME_LABEL, ns.name);
    steps.push({ check: `namespace label ${NAMESPACE_NAME_LABEL}`, found: `not given; the apiserver sets it to "${ns.name}"`, effect: 'assumed present' });
  }
  const labels = new Map(Object.entries(podLabels));
  let via: string | undefined;
  for (const scope of scopes) {
    const ok =
      selectorSteps(scope.name, 'namespaceSelector', scope.namespaceSelector, nsLabels, `namespace ${ns.name || '(unnamed)'}`, steps) &&
      selectorSteps(scope.name, 'objectSelector', scope.objectSelector, labels, 'pod', steps) &&
      conditionSteps(scope, pod, steps);
    if (ok) {
      steps.push({
        check: `webhook ${scope.name}`,
        found: 'every selector term and condition holds',
        effect: via === undefined ? 'the webhook is called' : `also matches (already reached via ${via})`,
      });
      via ??= scope.name;
    }
  }
  if (via === undefined) steps.push({ check: 'all webhook entries', found: 'none matches', effect: 'the apiserver never calls the injector for this pod' });
  return via === undefined ? { reached: false, steps } : { reached: true, via, steps };
}

/** One step per selector term; stops at the first failing term. */
function selectorSteps(
  webhook: string,
  field: 'namespaceSelector' | 'objectSelector',
  selector: LabelSelector,
  labels: ReadonlyMap<string, string>,
  subject: string,
  steps: ScopeStep[],
): boolean {
  const whole = compileSelector(selector);
  if (whole.state === 'invalid') {
    steps.push({ check: `${webhook} ${field}`, found: `invalid selector (${whole.error})`, effect: 'the apiserver would reject this webhook configuration' });
    return false;
  }
  if (whole.state === 'empty' || whole.state === 'nothing') {
    // A webhook's empty (or omitted) selector matches every object.
    steps.push({ check: `${webhook} ${field}`, found: 'empty selector', effect: 'matches everything' });
    return true;
  }
  const terms: LabelSelector[] = [
    ...Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ matchLabels: { [key]: value } })),
    ...(selector.matchExpressions ?? []).map((e) => ({ matchExpressions: [e] })),
  ];
  for (const term of terms) {
    const compiled = compileSelector(term);
    const key = compiled.requirements[0].key;
    const value = labels.get(key);
    const holds = selectorMatches(compiled, labels);
    steps.push({
      check: `${webhook} ${field}: ${compiled.text}`,
      found: `${subject} ${value === undefined ? `has no label ${key}` : `has ${key}=${value}`}`,
      effect: holds ? 'term holds' : 'term fails: this webhook is not called',
    });
    if (!holds) return false;
  }
  return true;
}

function conditionSteps(scope: WebhookScope, pod: unknown, steps: ScopeStep[]): boolean {
  for (const condition of scope.matchConditions ?? []) {
    const check = `${scope.name} matchCondition ${condition.name}: ${condition.expression}`;
    const known = KNOWN_CONDITIONS.find((k) => k.name === condition.name && k.expression === condition.expression);
    if (!known) {
      steps.push({ check, found: 'a CEL expression this tool cannot evaluate offline', effect: 'assumed true' });
      continue;
    }
    if (!isPlainObject(pod)) {
      steps.push({ check, found: 'no pod spec given', effect: 'assumed true' });
      continue;
    }
    const result = known.holds(pod);
    steps.push({ check, found: result.found, effect: result.holds ? 'condition holds' : 'condition is false: this webhook is not called' });
    if (!result.holds) return false;
  }
  return true;
}
