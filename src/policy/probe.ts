/**
 * @module policy/probe
 * What the webhook would add to a pod, learned from the injection core itself, so the policy
 * cannot drift from it: the core injects synthetic pods whose printed fields hold sentinels
 * (`sipolicy0x` ...), and the difference between each pod and its injected form is what the
 * JSONPatch must add: the injected items of each list with their place (before or after the
 * pod's own), and the status annotation. Then it checks what the policy relies on:
 *
 * - the sidecar adds items and the status annotation and changes nothing else of the pod;
 * - each printed field lands in the output as text, for every value Kubernetes allows
 *   (`yes`, `1e3`, `""`, `a: b`, newlines ... must not turn into a bool, a number or broken
 *   YAML), so that "prefix" + field + "suffix" in CEL is exact;
 * - a missing label or annotation prints a fixed default (learned here, too);
 * - the status annotation depends only on which of the pod's lists and annotations exist
 *   (its `undo` record deletes the lists the injection created): one fragment per list,
 *   checked against every combination.
 */
import type { LoadedConfig } from '../config/types.js';
import { InjectorError } from '../errors.js';
import { injectPod } from '../inject/index.js';
import { createPatch } from '../patch/index.js';
import { cloneJson, deepEqual, isPlainObject, type JsonObject } from '../util/json.js';
import { fieldKey, fieldText, refusal, type FieldUse, type PodField } from './analyze.js';

type Obj = Record<string, unknown>;

export const LISTS = ['containers', 'initContainers', 'volumes', 'imagePullSecrets'] as const;
export type ListName = (typeof LISTS)[number];

/** Lists the pod may lack (a pod always has containers). */
const OPTIONAL_LISTS: readonly ListName[] = ['initContainers', 'volumes', 'imagePullSecrets'];

interface ListPlan {
  /** Items that go before the pod's own (in order). */
  before: JsonObject[];
  /** Items that go after the pod's own (in order). */
  after: JsonObject[];
}

export interface Probe {
  lists: Record<ListName, ListPlan>;
  /** The fields printed, each with its sentinel and the text a missing value prints. */
  fields: { field: PodField; sentinel: string; missing: string | undefined; use: FieldUse }[];
  /** The status annotation value: before undo, the undo fragments in order, after. */
  status: { head: string; fragments: { absent: 'annotations' | ListName; text: string }[]; tail: string; noUndoTail: string };
}

const APP = 'si-policy-probe-app';
const USER_ITEMS: Record<ListName, JsonObject> = {
  containers: { name: APP, image: 'probe' },
  initContainers: { name: 'si-policy-probe-init', image: 'probe' },
  volumes: { name: 'si-policy-probe-volume', emptyDir: {} },
  imagePullSecrets: { name: 'si-policy-probe-secret' },
};

interface Shape {
  annotations: boolean;
  lists: Set<ListName>;
}

/** Values per field key; undefined: the field is absent from the pod. */
type Values = Map<string, string | undefined>;

function syntheticPod(fields: Probe['fields'], values: Values, shape: Shape): JsonObject {
  const meta: Obj = {};
  const spec: Obj = {};
  const labels: Obj = {};
  const annotations: Obj = {};
  for (const { field } of fields) {
    const v = values.get(fieldKey(field));
    if (v === undefined) continue;
    if (field.kind === 'name') meta.name = v;
    else if (field.kind === 'namespace') meta.namespace = v;
    else if (field.kind === 'serviceAccountName') spec.serviceAccountName = v;
    else if (field.kind === 'label') labels[field.key] = v;
    else annotations[field.key] = v;
  }
  if (Object.keys(labels).length > 0) meta.labels = labels;
  if (shape.annotations) meta.annotations = { 'si-policy-probe/annotation': 'x', ...annotations };
  else if (Object.keys(annotations).length > 0) throw new Error('internal: annotation fields need the annotations shape');
  spec.containers = [cloneJson(USER_ITEMS.containers)];
  for (const l of OPTIONAL_LISTS) if (shape.lists.has(l)) spec[l] = [cloneJson(USER_ITEMS[l])];
  return { apiVersion: 'v1', kind: 'Pod', metadata: meta, spec } as JsonObject;
}

interface Outcome {
  items: Record<ListName, ListPlan>;
  status: string;
}

/** Inject `pod` with the core and split the result into what was added. */
function run(config: LoadedConfig, pod: JsonObject, namespace: string): Outcome {
  // Manual mode: the decision is the policy's match conditions' job; here only what is added matters.
  const result = injectPod(pod, { namespace, mode: 'manual' }, config);
  if (result.kind !== 'injected')
    throw new InjectorError('SI_POLICY_UNSUPPORTED', `the core does not inject the probe pod (${result.decision.message}); use the webhook for this config`);
  const out = cloneJson(result.pod);
  const statusKey = config.injectionKeys.status;
  const meta = out.metadata as Obj;
  const annotations = meta.annotations as Obj;
  const status = annotations[statusKey] as string;
  delete annotations[statusKey];
  if (Object.keys(annotations).length === 0 && !isPlainObject((pod.metadata as Obj).annotations)) delete meta.annotations;
  const spec = out.spec as Obj;
  const inSpec = pod.spec as Obj;
  const items = {} as Record<ListName, ListPlan>;
  const names: Record<ListName, readonly string[]> = {
    containers: result.status.containers ?? [],
    initContainers: result.status.initContainers ?? [],
    volumes: result.status.volumes ?? [],
    imagePullSecrets: result.status.imagePullSecrets ?? [],
  };
  for (const l of LISTS) {
    const list = Array.isArray(spec[l]) ? (spec[l] as JsonObject[]) : [];
    const injected = new Set(names[l]);
    const own = list.filter((it) => !injected.has(it.name as string));
    const firstOwn = list.findIndex((it) => !injected.has(it.name as string));
    const lastOwn = list.findLastIndex((it) => !injected.has(it.name as string));
    const plan: ListPlan = { before: [], after: [] };
    list.forEach((it, i) => {
      if (!injected.has(it.name as string)) return;
      if (firstOwn < 0 || i > lastOwn) plan.after.push(it);
      else if (i < firstOwn) plan.before.push(it);
      else {
        throw new InjectorError(
          'SI_POLICY_UNSUPPORTED',
          `the sidecar puts ${l} item ${JSON.stringify(it.name)} between the pod's own items; the policy can only add items before or after them; use the webhook for this config`,
        );
      }
    });
    items[l] = plan;
    if (own.length === 0 && !Array.isArray(inSpec[l])) delete spec[l];
    else spec[l] = own;
  }
  if (!deepEqual(out, pod)) {
    const first = createPatch(pod, out)[0];
    throw new InjectorError(
      'SI_POLICY_UNSUPPORTED',
      `the sidecar changes the pod beyond adding containers, init containers, volumes, imagePullSecrets and the status annotation (${first?.op ?? 'change'} ${first?.path ?? ''}); the policy cannot do that; use the webhook for this config`,
    );
  }
  return { items, status };
}

/** Replace every sentinel in every string of `v` by its value. */
function substitute(v: unknown, fields: Probe['fields'], values: Values): unknown {
  if (typeof v === 'string') {
    let s = v;
    for (const f of fields) s = s.split(f.sentinel).join(values.get(fieldKey(f.field)) ?? f.missing ?? '');
    return s;
  }
  if (Array.isArray(v)) return v.map((x) => substitute(x, fields, values));
  if (isPlainObject(v)) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) out[k] = substitute(x, fields, values);
    return out;
  }
  return v;
}

/** Values Kubernetes allows that YAML 1.1 reads as something else, or that break plain or quoted scalars. */
const DNS_VALUES = ['1', '1e3', '0x1f', '012', 'yes', 'no', 'on', 'off', 'y', 'n', 'null', 'true', 'false', 'nan', '1.5', 'a-b.c'];
const LABEL_VALUES = [...DNS_VALUES, '', '1_0', '0b1', 'Yes', 'NULL', 'True', 'a_b', '1.'];
const ANNOTATION_VALUES = [
  ...LABEL_VALUES,
  'a: b',
  '"q"',
  "'s'",
  '#x',
  'x #y',
  'l1\nl2',
  '[x]',
  '{x: y}',
  '\\',
  ' lead',
  'trail ',
  '@x',
  '%x',
  '*x',
  '&x',
  '!x',
  '|',
  '>',
  '- x',
  '---',
  '\t',
  'ü €',
  '{{x}}',
  '~',
];

function variantValues(kind: PodField['kind']): string[] {
  if (kind === 'label') return LABEL_VALUES;
  if (kind === 'annotation') return ANNOTATION_VALUES;
  return DNS_VALUES;
}

function allShapes(optional: readonly ListName[]): Shape[] {
  const shapes: Shape[] = [];
  const flags = ['annotations', ...optional] as const;
  for (let mask = 0; mask < 1 << flags.length; mask++) {
    const lists = new Set<ListName>(optional.filter((_, i) => (mask & (1 << (i + 1))) === 0));
    shapes.push({ annotations: (mask & 1) === 0, lists });
  }
  return shapes;
}

export function probe(config: LoadedConfig, uses: readonly FieldUse[]): Probe {
  const seen = new Map<string, FieldUse>();
  for (const u of uses) if (!seen.has(fieldKey(u.field))) seen.set(fieldKey(u.field), u);
  const fields: Probe['fields'] = [...seen.values()].map((use, i) => ({ field: use.field, sentinel: `sipolicy${i}x`, missing: undefined, use }));
  const full: Shape = { annotations: true, lists: new Set(OPTIONAL_LISTS) };
  const baseValues: Values = new Map(fields.map((f) => [fieldKey(f.field), f.sentinel]));
  const nsOf = (values: Values) => values.get('namespace') ?? 'si-policy-probe-ns';
  const base = run(config, syntheticPod(fields, baseValues, full), nsOf(baseValues));

  for (const l of LISTS) {
    for (const it of [...base.items[l].before, ...base.items[l].after]) {
      if (fields.some((f) => JSON.stringify(it.name).includes(f.sentinel))) {
        const f = fields.find((x) => JSON.stringify(it.name).includes(x.sentinel))!;
        throw refusal(
          f.use.template,
          f.use.line,
          f.use.construct,
          `names a ${l} item after ${fieldText(f.field)}; item names must be fixed (they are merge keys and go into the status annotation)`,
        );
      }
    }
  }
  const expectSame = (got: Outcome, values: Values, f: Probe['fields'][number], tried: string | undefined): void => {
    if (!deepEqual(got.items, substitute(base.items, fields, values)) || got.status !== base.status) {
      const what = tried === undefined ? 'when it is missing' : `for the value ${JSON.stringify(tried)}`;
      throw refusal(
        f.use.template,
        f.use.line,
        f.use.construct,
        `prints ${fieldText(f.field)} where the rendered YAML does not keep it as the same text ${what} (quote it, e.g. with | quote)`,
      );
    }
  };

  // What a missing field prints (name, service account, labels, annotations; the namespace is never missing).
  for (const f of fields) {
    if (f.field.kind === 'namespace') continue;
    const values = new Map(baseValues);
    values.set(fieldKey(f.field), undefined);
    const got = run(config, syntheticPod(fields, values, full), nsOf(values));
    f.missing = missingText(base.items, got.items, f.sentinel);
    if (f.missing === undefined)
      throw refusal(
        f.use.template,
        f.use.line,
        f.use.construct,
        `prints ${fieldText(f.field)} where the rendered YAML changes shape when it is missing (quote it, e.g. with | quote)`,
      );
    expectSame(got, values, f, undefined);
  }
  // Every field stays text, whatever its value.
  for (const f of fields) {
    for (const v of variantValues(f.field.kind)) {
      const values = new Map(baseValues);
      values.set(fieldKey(f.field), v);
      let got: Outcome;
      try {
        got = run(config, syntheticPod(fields, values, full), nsOf(values));
      } catch (err) {
        if (!(err instanceof InjectorError) || err.code === 'SI_POLICY_UNSUPPORTED') throw err;
        throw refusal(
          f.use.template,
          f.use.line,
          f.use.construct,
          `prints ${fieldText(f.field)} where the value ${JSON.stringify(v)} breaks the rendered YAML (${err.message.split('\n')[0]}) (quote it, e.g. with | quote)`,
        );
      }
      expectSame(got, values, f, v);
    }
  }
  return { lists: base.items, fields, status: statusModel(config, fields, baseValues, base, nsOf(baseValues)) };
}

/** The text a missing field printed: solve `parts.join(x) == got` at the first string that differs. */
function missingText(base: unknown, got: unknown, sentinel: string): string | undefined {
  if (typeof base === 'string') {
    if (!base.includes(sentinel)) return base === got ? '' : undefined;
    if (typeof got !== 'string') return undefined;
    const parts = base.split(sentinel);
    const fixed = parts.reduce((n, p) => n + p.length, 0);
    const len = (got.length - fixed) / (parts.length - 1);
    if (!Number.isInteger(len) || len < 0 || !got.startsWith(parts[0])) return undefined;
    const x = got.slice(parts[0].length, parts[0].length + len);
    return parts.join(x) === got ? x : undefined;
  }
  if (Array.isArray(base)) {
    if (!Array.isArray(got) || got.length !== base.length) return undefined;
    let found: string | undefined = '';
    for (let i = 0; i < base.length; i++) {
      const x = missingText(base[i], got[i], sentinel);
      if (x === undefined) return undefined;
      if (x !== '' || found === '') found = x === '' ? found : x;
    }
    return found;
  }
  if (isPlainObject(base)) {
    if (!isPlainObject(got) || Object.keys(got).length !== Object.keys(base).length) return undefined;
    let found: string | undefined = '';
    for (const [k, v] of Object.entries(base)) {
      if (!Object.hasOwn(got, k)) return undefined;
      const x = missingText(v, got[k], sentinel);
      if (x === undefined) return undefined;
      if (x !== '') found = x;
    }
    return found;
  }
  return deepEqual(base, got) ? '' : undefined;
}

/**
 * The status annotation per pod shape. Its `undo` record lists, in a fixed order, a deletion
 * for each of the annotations map and the optional lists that the injection created. Learned
 * from one pod lacking everything, then checked against every combination.
 */
function statusModel(config: LoadedConfig, fields: Probe['fields'], values: Values, base: Outcome, ns: string): Probe['status'] {
  const optional = OPTIONAL_LISTS.filter((l) => base.items[l].before.length + base.items[l].after.length > 0);
  const noAnnotationFields = fields.filter((f) => f.field.kind !== 'annotation');
  const shapeValues = new Map(values);
  for (const f of fields) if (f.field.kind === 'annotation') shapeValues.set(fieldKey(f.field), undefined);
  const statusOf = (shape: Shape): string =>
    run(config, syntheticPod(shape.annotations ? fields : noAnnotationFields, shape.annotations ? values : shapeValues, shape), ns).status;
  const full = base.status;
  const undoAt = full.endsWith('}') ? full.length - 1 : -1;
  if (undoAt < 0 || full.includes('"undo":')) {
    throw new InjectorError(
      'SI_POLICY_UNSUPPORTED',
      `the status annotation of a pod that has every list records an undo (${full}); the policy cannot reproduce it; use the webhook for this config`,
    );
  }
  const head = full.slice(0, undoAt);
  const fragments: Probe['status']['fragments'] = [];
  const emptiest: Shape = { annotations: false, lists: new Set() };
  const emptiestStatus = statusOf(emptiest);
  const undo = parseUndo(emptiestStatus, head);
  const flags = ['annotations', ...optional] as const;
  for (const entry of undo) {
    const p = (JSON.parse(entry) as { p?: string }).p;
    const flag = flags.find((f) => (f === 'annotations' ? p === '/metadata/annotations' : p === `/spec/${f}`));
    if (flag === undefined)
      throw new InjectorError(
        'SI_POLICY_UNSUPPORTED',
        `the status annotation records an undo the policy cannot reproduce (${entry}); use the webhook for this config`,
      );
    fragments.push({ absent: flag, text: entry });
  }
  const model: Probe['status'] = { head, fragments, tail: ']}', noUndoTail: '}' };
  for (const shape of allShapes(optional)) {
    const want = statusOf(shape);
    const got = renderStatus(model, (part) => (part === 'annotations' ? !shape.annotations : !shape.lists.has(part)));
    if (want !== got) throw new InjectorError('SI_INTERNAL', `internal: the status annotation model does not fit a pod shape: ${want} vs ${got}`);
  }
  return model;
}

function parseUndo(status: string, head: string): string[] {
  if (!status.startsWith(head))
    throw new InjectorError('SI_POLICY_UNSUPPORTED', 'the status annotation differs between pods beyond its undo record; use the webhook for this config');
  const rest = status.slice(head.length);
  if (rest === '}') return [];
  if (!rest.startsWith(',"undo":') || !rest.endsWith('}')) throw new InjectorError('SI_INTERNAL', `internal: unexpected status annotation ${status}`);
  const list = JSON.parse(rest.slice(',"undo":'.length, -1)) as unknown[];
  return list.map((e) => JSON.stringify(e));
}

/** The status text for a pod, given which parts it lacks (what the CEL expression computes). */
export function renderStatus(model: Probe['status'], absent: (part: 'annotations' | ListName) => boolean): string {
  const undo = model.fragments.filter((f) => absent(f.absent)).map((f) => f.text);
  return undo.length === 0 ? model.head + model.noUndoTail : `${model.head},"undo":[${undo.join(',')}${model.tail}`;
}
