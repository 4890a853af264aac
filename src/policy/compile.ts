/**
 * @module policy/compile
 * A config compiled into a `MutatingAdmissionPolicy` and its bindings
 * (`admissionregistration.k8s.io/v1`, GA in Kubernetes 1.36): injection done by the
 * apiserver itself, with no server, certificate or caBundle.
 *
 * - Bindings: one per webhook scope (install/webhook-rules.ts), so the same namespaces and pod
 *   labels are selected as by the webhook: namespace label `enabled` with the pod not opted out;
 *   unlabelled namespace with the pod opted in by label; optionally Istio's `auto.` scope.
 * - Match conditions: the rest of the decision (policy/match.ts), and a pod already carrying
 *   the status annotation is skipped, so reinvocation (`IfNeeded`) never injects twice.
 * - Mutation: one JSONPatch expression adding the items the core adds (policy/probe.ts), in the
 *   same places, and the status annotation with the same template hash, built from fragments
 *   chosen by which of the pod's lists exist.
 */
import type { LoadedConfig } from '../config/types.js';
import { InjectorError } from '../errors.js';
import { selectTemplates } from '../inject/select.js';
import { istioPostProcessingEnabled } from '../istio/postprocess.js';
import { webhookScopes } from '../install/webhook-rules.js';
import { escapePointerToken } from '../patch/index.js';
import { BUILTINS } from '../template/builtins.js';
import { templateFuncs } from '../template/funcs/index.js';
import { parseText } from '../template/parse.js';
import type { JsonObject } from '../util/json.js';
import { analyzeTemplate, type FieldUse } from './analyze.js';
import { celString, celValue, mapValueOr } from './cel.js';
import { policyMatchConditions } from './match.js';
import { LISTS, probe, type Probe } from './probe.js';

const POLICY_API_VERSION = 'admissionregistration.k8s.io/v1';

export interface PolicyOptions {
  /** Name of the policy; bindings are `<name>-<scope>`. */
  name: string;
  /** Istio's enableNamespacesByDefault: also bind unlabelled namespaces (pods not opted out by label). */
  enableNamespacesByDefault?: boolean;
  /** `Fail` (default): a pod the policy cannot mutate is rejected rather than started without the sidecar. */
  failurePolicy?: 'Fail' | 'Ignore';
}

export interface CompiledPolicy {
  policy: JsonObject;
  bindings: JsonObject[];
  /** The templates compiled, in order. */
  templates: string[];
}

/**
 * What the policy must add to a pod (the items, their places, the printed fields, the status
 * annotation model), learned from the core; throws SI_POLICY_UNSUPPORTED naming what cannot be
 * expressed. `compilePolicy` writes it as CEL; tests also apply it directly to compare with the core.
 */
export function planPolicy(config: LoadedConfig): { plan: Probe; templates: string[] } {
  if (istioPostProcessingEnabled(config)) {
    throw new InjectorError(
      'SI_POLICY_UNSUPPORTED',
      "values.istioPostProcessing is on: Istio's post-processing reads the whole pod; use the webhook for this config",
    );
  }
  const injected = Object.keys(config.injectedAnnotations);
  if (injected.length > 0) {
    throw new InjectorError(
      'SI_POLICY_UNSUPPORTED',
      `injectedAnnotations (${injected.join(', ')}): the policy adds no annotations but the status; use the webhook for this config`,
    );
  }
  const names = selectTemplates({}, config).names;
  const uses: FieldUse[] = [];
  const funcs = templateFuncs({ allowEnv: config.templateOptions.allowEnv });
  for (const name of names) {
    const trees = parseText(name, config.templates[name] ?? '', { funcs, builtins: BUILTINS });
    uses.push(...analyzeTemplate(name, trees));
  }
  return { plan: probe(config, uses), templates: names };
}

/** Compile `config`; throws SI_POLICY_UNSUPPORTED naming what cannot be expressed. */
export function compilePolicy(config: LoadedConfig, options: PolicyOptions): CompiledPolicy {
  const { plan: p, templates: names } = planPolicy(config);
  const policy = {
    apiVersion: POLICY_API_VERSION,
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: options.name },
    spec: {
      failurePolicy: options.failurePolicy ?? 'Fail',
      reinvocationPolicy: 'IfNeeded',
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
      },
      matchConditions: policyMatchConditions(config),
      variables: statusVariables(p),
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: patchExpression(p, config.injectionKeys.status) } }],
    },
  } as unknown as JsonObject;
  const scopes = webhookScopes(config.injectionKeys, {
    injectorNamespace: '',
    excludedNamespaces: config.ignoredNamespaces,
    enableNamespacesByDefault: options.enableNamespacesByDefault,
    matchConditions: false,
  });
  const bindings = scopes.map((s) => ({
    apiVersion: POLICY_API_VERSION,
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name: `${options.name}-${s.name.split('.')[0]}` },
    spec: {
      policyName: options.name,
      matchResources: { namespaceSelector: s.namespaceSelector, objectSelector: s.objectSelector },
    },
  })) as unknown as JsonObject[];
  return { policy, bindings, templates: names };
}

/** The CEL expression printing one pod field (what the core prints when it is missing otherwise). */
function fieldCel(f: Probe['fields'][number]): string {
  const missing = celString(f.missing ?? '');
  switch (f.field.kind) {
    case 'name':
      return `(has(object.metadata.name) ? object.metadata.name : ${missing})`;
    case 'namespace':
      // The core uses the request's namespace when the pod names none; in admission they agree.
      return 'request.namespace';
    case 'serviceAccountName':
      return `(has(object.spec.serviceAccountName) ? object.spec.serviceAccountName : ${missing})`;
    case 'label':
      return mapValueOr('labels', f.field.key, missing);
    case 'annotation':
      return mapValueOr('annotations', f.field.key, missing);
  }
}

/** A string of the rendered sidecar as CEL: literal text with the printed pod fields spliced in. */
function stringCel(s: string, fields: Probe['fields']): string {
  if (fields.length === 0) return celString(s);
  const bySentinel = new Map(fields.map((f) => [f.sentinel, f]));
  const re = new RegExp(fields.map((f) => f.sentinel).join('|'), 'g');
  const parts: string[] = [];
  let at = 0;
  for (const m of s.matchAll(re)) {
    if (m.index > at) parts.push(celString(s.slice(at, m.index)));
    parts.push(fieldCel(bySentinel.get(m[0])!));
    at = m.index + m[0].length;
  }
  if (at < s.length || parts.length === 0) parts.push(celString(s.slice(at)));
  return parts.length === 1 ? parts[0] : `(${parts.join(' + ')})`;
}

function jsonPatch(op: string, path: string, value: string): string {
  return `JSONPatch{op: ${celString(op)}, path: ${celString(path)}, value: ${value}}`;
}

function patchExpression(p: Probe, statusKey: string): string {
  const str = (s: string) => stringCel(s, p.fields);
  const groups: string[] = [];
  for (const l of LISTS) {
    const { before, after } = p.lists[l];
    if (before.length + after.length === 0) continue;
    const item = (it: JsonObject) => celValue(it, ['spec', l], str);
    const present = [...before.map((it, i) => jsonPatch('add', `/spec/${l}/${i}`, item(it))), ...after.map((it) => jsonPatch('add', `/spec/${l}/-`, item(it)))];
    if (l === 'containers') {
      groups.push(`[${present.join(',\n ')}]`);
    } else {
      // A missing list is created empty, then filled item by item: a JSONPatch value that is a
      // list of typed objects panics kube-apiserver 1.36.3's CEL conversion (structpb.Struct is not
      // assignable to structpb.Value), while typed objects on their own convert fine.
      const create = [jsonPatch('add', `/spec/${l}`, '[]'), ...[...before, ...after].map((it) => jsonPatch('add', `/spec/${l}/-`, item(it)))];
      groups.push(`(has(object.spec.${l}) ? [${present.join(',\n ')}] : [${create.join(',\n ')}])`);
    }
  }
  groups.push(
    `(has(object.metadata.annotations) ? [${jsonPatch('add', `/metadata/annotations/${escapePointerToken(statusKey)}`, 'variables.status')}]` +
      ` : [${jsonPatch('add', '/metadata/annotations', `{${celString(statusKey)}: variables.status}`)}])`,
  );
  return groups.join(' +\n');
}

/** `variables.undo` (the undo entries this pod needs) and `variables.status` (the annotation value). */
function statusVariables(p: Probe): { name: string; expression: string }[] {
  const m = p.status;
  const absent = (part: string) => (part === 'annotations' ? '!has(object.metadata.annotations)' : `!has(object.spec.${part})`);
  if (m.fragments.length === 0) return [{ name: 'status', expression: celString(m.head + m.noUndoTail) }];
  const undo = m.fragments.map((f) => `(${absent(f.absent)} ? [${celString(f.text)}] : [])`).join(' + ');
  const status = `size(variables.undo) == 0 ? ${celString(m.head + m.noUndoTail)} : ${celString(`${m.head},"undo":[`)} + variables.undo.join(",") + ${celString(m.tail)}`;
  return [
    { name: 'undo', expression: undo },
    { name: 'status', expression: status },
  ];
}
