/**
 * @module config/selector
 * Kubernetes LabelSelector: shape checking (what a config file may contain), compilation with
 * Kubernetes' own validity rules (`metav1.LabelSelectorAsSelector`), and matching against pod
 * labels. Istio's never/always lists skip invalid and empty selectors instead of failing, so
 * compilation never throws: it records what is wrong and the decision skips that entry.
 */
import { isPlainObject } from '../util/json.js';
import { labelValueError, qualifiedNameError } from './k8s-names.js';
import { closest, joinPath, quoteHint, unknownKeyMessage, type ConfigIssue } from './issues.js';
import { describeValue } from '../util/describe.js';

const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
export type SelectorOperator = (typeof SELECTOR_OPERATORS)[number];

/** One `matchExpressions` entry as written. `operator` is kept as written (it may be invalid). */
export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** A Kubernetes `metav1.LabelSelector` as written in the config. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface Requirement {
  key: string;
  op: SelectorOperator;
  values: ReadonlySet<string>;
}

/**
 * A selector ready to match.
 * - `ok`: has requirements; matches when all hold.
 * - `empty`: no requirements; Kubernetes would select everything, Istio ignores it.
 * - `invalid`: breaks a Kubernetes rule (`error` says which); skipped as a whole.
 * - `nothing`: a `null` entry; Kubernetes' nil selector matches nothing.
 */
export interface CompiledSelector {
  readonly selector: LabelSelector | null;
  readonly state: 'ok' | 'empty' | 'invalid' | 'nothing';
  readonly error?: string;
  /** Kubernetes' string form (`app=web,tier in (a,b)`), for explain output. */
  readonly text: string;
  readonly requirements: readonly Requirement[];
}

const SELECTOR_KEYS = ['matchLabels', 'matchExpressions'];
const REQUIREMENT_KEYS = ['key', 'operator', 'values'];

/**
 * Check that `raw` has the shape of a LabelSelector (types and key names only). Problems here
 * are always config errors: they would also stop Kubernetes from decoding the object.
 * Returns `null` for a `null` entry.
 */
export function parseLabelSelector(raw: unknown, path: string, issues: ConfigIssue[]): LabelSelector | null | undefined {
  if (raw === null || raw === undefined) return null;
  if (!isPlainObject(raw)) {
    issues.push({ path, message: `a selector must be a map with matchLabels and/or matchExpressions, got ${describeValue(raw)}` });
    return undefined;
  }
  const before = issues.length;
  const out: LabelSelector = {};
  for (const key of Object.keys(raw)) {
    if (!SELECTOR_KEYS.includes(key)) issues.push({ path: joinPath(path, key), message: unknownKeyMessage(key, SELECTOR_KEYS) });
  }
  const ml = raw.matchLabels;
  if (ml !== undefined && ml !== null) {
    const mlPath = joinPath(path, 'matchLabels');
    if (!isPlainObject(ml)) {
      issues.push({ path: mlPath, message: `must be a map of label key to value, got ${describeValue(ml)}` });
    } else {
      const labels: Record<string, string> = Object.create(null);
      for (const [k, v] of Object.entries(ml)) {
        if (typeof v !== 'string') {
          issues.push({ path: joinPath(mlPath, k), message: `a label value must be a string, got ${describeValue(v)}${quoteHint(v)}` });
        } else {
          labels[k] = v;
        }
      }
      out.matchLabels = labels;
    }
  }
  const me = raw.matchExpressions;
  if (me !== undefined && me !== null) {
    const mePath = joinPath(path, 'matchExpressions');
    if (!Array.isArray(me)) {
      issues.push({ path: mePath, message: `must be a list of {key, operator, values}, got ${describeValue(me)}` });
    } else {
      out.matchExpressions = [];
      me.forEach((item: unknown, i) => {
        const req = parseRequirement(item, joinPath(mePath, i), issues);
        if (req) out.matchExpressions!.push(req);
      });
    }
  }
  return issues.length === before ? out : undefined;
}

function parseRequirement(raw: unknown, path: string, issues: ConfigIssue[]): LabelSelectorRequirement | undefined {
  if (!isPlainObject(raw)) {
    issues.push({ path, message: `must be a map with key, operator and values, got ${describeValue(raw)}` });
    return undefined;
  }
  const before = issues.length;
  for (const key of Object.keys(raw)) {
    if (!REQUIREMENT_KEYS.includes(key)) issues.push({ path: joinPath(path, key), message: unknownKeyMessage(key, REQUIREMENT_KEYS) });
  }
  const { key, operator, values } = raw;
  if (typeof key !== 'string')
    issues.push({ path: joinPath(path, 'key'), message: `key is required and must be a string, got ${describeValue(key)}${quoteHint(key)}` });
  if (typeof operator !== 'string') {
    issues.push({
      path: joinPath(path, 'operator'),
      message: `operator is required and must be one of ${SELECTOR_OPERATORS.join(', ')}, got ${describeValue(operator)}`,
    });
  }
  let vals: string[] | undefined;
  if (values !== undefined && values !== null) {
    if (!Array.isArray(values)) {
      issues.push({ path: joinPath(path, 'values'), message: `must be a list of strings, got ${describeValue(values)}` });
    } else {
      vals = [];
      values.forEach((v: unknown, i) => {
        if (typeof v === 'string') vals!.push(v);
        else issues.push({ path: joinPath(joinPath(path, 'values'), i), message: `must be a string, got ${describeValue(v)}${quoteHint(v)}` });
      });
    }
  }
  if (issues.length !== before) return undefined;
  const req: LabelSelectorRequirement = { key: key as string, operator: operator as string };
  if (vals !== undefined) req.values = vals;
  return req;
}

/**
 * Apply Kubernetes' validity rules (label key and value syntax, known operators, values
 * required for In/NotIn and forbidden for Exists/DoesNotExist). The first problem found is
 * recorded with its key path under `path`; the selector is then `invalid` as a whole.
 */
export function compileSelector(selector: LabelSelector | null, path = ''): CompiledSelector & { issue?: ConfigIssue } {
  if (selector === null) return { selector, state: 'nothing', text: '<nil>', requirements: [] };
  const reqs: Requirement[] = [];
  const fail = (p: string, message: string) => {
    const issue = { path: p, message };
    return { selector, state: 'invalid' as const, error: `${p}: ${message}`, issue, text: '<invalid>', requirements: [] };
  };
  const ml = selector.matchLabels ?? {};
  for (const k of Object.keys(ml).sort()) {
    const p = joinPath(joinPath(path, 'matchLabels'), k);
    const keyErr = qualifiedNameError(k);
    if (keyErr) return fail(p, `invalid label key: ${keyErr}`);
    const valErr = labelValueError(ml[k]);
    if (valErr) return fail(p, `invalid ${valErr}`);
    reqs.push({ key: k, op: 'In', values: new Set([ml[k]]) });
  }
  const exprs = selector.matchExpressions ?? [];
  for (let i = 0; i < exprs.length; i++) {
    const e = exprs[i];
    const p = joinPath(joinPath(path, 'matchExpressions'), i);
    const keyErr = qualifiedNameError(e.key);
    if (keyErr) return fail(joinPath(p, 'key'), `invalid label key: ${keyErr}`);
    if (!(SELECTOR_OPERATORS as readonly string[]).includes(e.operator)) {
      const guess = closest(e.operator, SELECTOR_OPERATORS);
      const hint = guess !== undefined ? ` (did you mean "${guess}"?)` : '';
      return fail(joinPath(p, 'operator'), `"${e.operator}" is not a valid operator${hint}; use In, NotIn, Exists or DoesNotExist (case matters)`);
    }
    const op = e.operator as SelectorOperator;
    const values = e.values ?? [];
    if ((op === 'In' || op === 'NotIn') && values.length === 0) {
      return fail(joinPath(p, 'values'), `operator ${op} needs at least one value`);
    }
    if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0) {
      return fail(joinPath(p, 'values'), `operator ${op} takes no values; remove values or use In/NotIn`);
    }
    for (let j = 0; j < values.length; j++) {
      const valErr = labelValueError(values[j]);
      if (valErr) return fail(joinPath(joinPath(p, 'values'), j), `invalid ${valErr}`);
    }
    reqs.push({ key: e.key, op, values: new Set(values) });
  }
  if (reqs.length === 0) return { selector, state: 'empty', text: '{}', requirements: [] };
  return { selector, state: 'ok', text: selectorText(reqs), requirements: reqs };
}

/** Kubernetes' `labels.Selector.String()` form, requirements sorted by key. */
function selectorText(reqs: readonly Requirement[]): string {
  const sorted = [...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return sorted
    .map((r) => {
      const vals = [...r.values].sort();
      switch (r.op) {
        case 'Exists':
          return r.key;
        case 'DoesNotExist':
          return `!${r.key}`;
        case 'In':
          return vals.length === 1 ? `${r.key}=${vals[0]}` : `${r.key} in (${vals.join(',')})`;
        case 'NotIn':
          return vals.length === 1 ? `${r.key}!=${vals[0]}` : `${r.key} notin (${vals.join(',')})`;
      }
    })
    .join(',');
}

/**
 * Whether the selector selects a pod with these labels. Only `ok` selectors can match: empty,
 * invalid and nil ones never do here (the never/always lists skip them, as Istio does).
 */
export function selectorMatches(compiled: CompiledSelector, labels: ReadonlyMap<string, string>): boolean {
  if (compiled.state !== 'ok') return false;
  for (const r of compiled.requirements) {
    const v = labels.get(r.key);
    switch (r.op) {
      case 'In':
        if (v === undefined || !r.values.has(v)) return false;
        break;
      case 'NotIn':
        if (v !== undefined && r.values.has(v)) return false;
        break;
      case 'Exists':
        if (v === undefined) return false;
        break;
      case 'DoesNotExist':
        if (v !== undefined) return false;
        break;
    }
  }
  return true;
}
