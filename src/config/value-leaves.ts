/**
 * @module config/value-leaves
 * The leaf rules of a values schema (config/values-schema): strings, booleans, enums, integers,
 * ports, and the annotation rules of config/value-rules applied to a value. Each message says
 * what the key takes and what it got; where a pod annotation overrides the key, it names the
 * annotation, which takes the same values.
 */
import { describeValue, quote } from '../util/describe.js';
import { closest, quoteHint } from './issues.js';
import { portError, type ValueRule } from './value-rules.js';
import type { LeafCheck, LeafRule } from './values-schema.js';

const leaf = (check: LeafCheck, optional = false): LeafRule => ({ kind: 'leaf', check, optional });

/** ` (as the annotation X takes)`, or nothing. */
const asAnnotation = (annotation: string | undefined) => (annotation !== undefined ? ` (as the annotation ${annotation} takes)` : '');

const got = (v: unknown) => (typeof v === 'string' ? quote(v) : describeValue(v));

/** The integer a number or a string of digits stands for (templates print both the same). */
function asInteger(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isInteger(v) ? v : undefined;
  if (typeof v === 'string' && /^\d+$/.test(v.trim())) return Number(v.trim());
  return undefined;
}

export function text(what: string, options: { optional?: boolean; empty?: boolean } = {}): LeafRule {
  return leaf((v) => {
    if (typeof v !== 'string') return `must be ${what} (a string), got ${describeValue(v)}${quoteHint(v)}`;
    if (options.empty !== true && v.trim() === '') return `must be ${what}, got an empty string`;
    if (/\s/.test(v)) return `must be ${what} without spaces, got ${quote(v)}`;
    return undefined;
  }, options.optional);
}

/** A string checked by a pattern, for image parts. */
export function matching(what: string, pattern: RegExp, extra?: (v: string) => string | undefined): LeafRule {
  return leaf((v) => {
    if (typeof v !== 'string') {
      const number = typeof v === 'number' ? `; quote it ("${String(v)}"): YAML reads an unquoted number, and 1.20 is the number 1.2` : quoteHint(v);
      return `must be ${what} (a string), got ${describeValue(v)}${number}`;
    }
    if (v === '') return `must be ${what}, got an empty string`;
    if (!pattern.test(v)) return `must be ${what}, got ${quote(v)}`;
    return extra?.(v);
  });
}

/** true or false; with an annotation, also the strings "true" and "false" it takes (the template compares the text). */
export function bool(options: { optional?: boolean; annotation?: string } = {}): LeafRule {
  return leaf((v) => {
    if (typeof v === 'boolean') return undefined;
    if (options.annotation !== undefined && (v === 'true' || v === 'false')) return undefined;
    const unquote = v === 'true' || v === 'false' ? `; write ${v} without quotes` : '';
    return `must be true or false${asAnnotation(options.annotation)}, got ${describeValue(v)}${unquote}`;
  }, options.optional);
}

export function oneOf(choices: readonly string[], options: { optional?: boolean; annotation?: string; accept?: ValueRule } = {}): LeafRule {
  const shown = choices.map((c) => (c === '' ? '"" (unset)' : c));
  const list = `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
  return leaf((v) => {
    if (typeof v === 'string' && (options.accept !== undefined ? options.accept(v) === undefined : choices.includes(v))) return undefined;
    const guess = typeof v === 'string' ? closest(v, choices) : undefined;
    const hint = guess !== undefined && guess !== '' ? ` (did you mean ${quote(guess)}?)` : '';
    return `must be ${list}${asAnnotation(options.annotation)}, got ${got(v)}${hint}${quoteHint(v)}`;
  }, options.optional);
}

/** An integer from `min` to `max`: a number, or a string of digits (as the annotations are). */
export function integer(what: string, min: number, max: number, options: { annotation?: string; accept?: ValueRule; note?: string } = {}): LeafRule {
  return leaf((v) => {
    const n = asInteger(v);
    const accepted = typeof v !== 'string' || options.accept === undefined || options.accept(v) === undefined;
    if (accepted && n !== undefined && n >= min && n <= max) return undefined;
    const note = options.note !== undefined ? ` (${options.note})` : '';
    return `must be ${what}, a whole number from ${min} to ${max}${note}${asAnnotation(options.annotation)}, got ${got(v)}`;
  });
}

/** A port: 1 to 65535, or also 0 when `zero` says what 0 does. */
export function port(options: { zero?: string; annotation?: string; accept?: ValueRule } = {}): LeafRule {
  const min = options.zero !== undefined ? 0 : 1;
  const range = `a port number from 1 to 65535${options.zero !== undefined ? `, or 0 to ${options.zero}` : ''}`;
  return leaf((v) => {
    const n = asInteger(v);
    const accepted = typeof v !== 'string' || (options.accept ?? portError)(v) === undefined;
    if (accepted && n !== undefined && n >= min && n <= 65535) return undefined;
    return `must be ${range}${asAnnotation(options.annotation)}, got ${got(v)}`;
  });
}

/** A string the annotation's own rule judges (Go's message appended); a port number where `port` allows one. */
export function byRule(what: string, rule: ValueRule, options: { annotation?: string; port?: boolean } = {}): LeafRule {
  return leaf((v) => {
    if (typeof v === 'number' && options.port === true && Number.isInteger(v) && v >= 0 && v <= 65535) return undefined;
    if (typeof v !== 'string') return `must be ${what} (a string)${asAnnotation(options.annotation)}, got ${describeValue(v)}${quoteHint(v)}`;
    const problem = rule(v);
    return problem === undefined ? undefined : `must be ${what}${asAnnotation(options.annotation)}, got ${quote(v)}: ${problem}`;
  });
}

/** A Kubernetes quantity (100m, 128Mi, 2); `unset`: the key may be left out or "" to leave it unset. */
export function quantity(rule: ValueRule, options: { unset?: boolean; annotation?: string } = {}): LeafRule {
  const what = `a quantity such as 100m or 128Mi${options.unset === true ? ', or "" to leave it unset' : ''}`;
  return leaf((v) => {
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return undefined;
    if (typeof v === 'string' && v === '' && options.unset === true) return undefined;
    if (typeof v !== 'string') return `must be ${what}${asAnnotation(options.annotation)}, got ${describeValue(v)}`;
    const problem = rule(v);
    return problem === undefined ? undefined : `must be ${what}${asAnnotation(options.annotation)}, got ${quote(v)}: ${problem}`;
  }, options.unset);
}
