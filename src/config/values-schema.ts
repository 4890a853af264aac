/**
 * @module config/values-schema
 * A small schema for a values document that a known template reads (config/builtin-values):
 * maps with their keys, leaves with a rule each. Checking walks the values once and reports
 * every problem with its key path: a wrong type or value, a required key missing, and an unknown
 * key, which is an error when a known key is near (a typo: the key meant is then unset) and a
 * warning otherwise (the template never reads it: no effect, as Helm without
 * `additionalProperties: false` takes it).
 */
import { isPlainObject } from '../util/json.js';
import { describeValue, quote } from '../util/describe.js';
import { closest, joinPath } from './issues.js';

/** A leaf's problem with a value (`must be ..., got ...`), or undefined. */
export type LeafCheck = (value: unknown) => string | undefined;

export interface LeafRule {
  kind: 'leaf';
  check: LeafCheck;
  /** Absent is fine (the template has a default for it). */
  optional?: boolean;
}

export interface MapRule {
  kind: 'map';
  /** The known keys; absent: any content (a map another part of the product checks). */
  keys?: Readonly<Record<string, Rule>>;
  optional?: boolean;
}

export type Rule = LeafRule | MapRule;

/** One problem at a key path; `at` is the path as segments (for the file line). */
export interface ValuesIssue {
  path: string;
  at: (string | number)[];
  message: string;
}

export interface SchemaOptions {
  /** Who reads the values, for messages: `the built-in sidecar template`. */
  reader: string;
  /** Extra words for a required key that is missing, by path (`global.hub`: what it is for). */
  missingNote?: (path: string) => string | undefined;
  /** Whether a required key may be left out in these values (e.g. the hub when every image is whole). */
  required?: (path: string, values: unknown) => boolean;
}

export function checkValuesSchema(schema: MapRule, values: unknown, options: SchemaOptions): { errors: ValuesIssue[]; warnings: ValuesIssue[] } {
  const errors: ValuesIssue[] = [];
  const warnings: ValuesIssue[] = [];
  const walk = (rule: Rule, value: unknown, path: string, at: (string | number)[]) => {
    if (rule.kind === 'leaf') {
      const problem = rule.check(value);
      if (problem !== undefined) errors.push({ path, at, message: problem });
      return;
    }
    if (!isPlainObject(value)) {
      errors.push({ path, at, message: `must be a map, got ${describeValue(value)}` });
      return;
    }
    if (rule.keys === undefined) return;
    const known = Object.keys(rule.keys);
    const meant = new Set<string>();
    for (const key of Object.keys(value)) {
      if (Object.hasOwn(rule.keys, key)) {
        walk(rule.keys[key], value[key], joinPath(path, key), [...at, key]);
        continue;
      }
      const guess = closest(key, known);
      const list = `known keys here: ${known.join(', ')}`;
      if (guess === undefined) {
        warnings.push({
          path: joinPath(path, key),
          at: [...at, key],
          message: `unknown key ${quote(key)}: ${options.reader} does not read it, so it has no effect; ${list}`,
        });
        continue;
      }
      // A typo: the key meant is then unset (or set twice); said here, not again as missing.
      meant.add(guess);
      const note = options.missingNote?.(joinPath(path, guess));
      const unset = !Object.hasOwn(value, guess) ? `; ${joinPath(path, guess)} is not set${note !== undefined ? ` (${note})` : ''}` : '';
      errors.push({ path: joinPath(path, key), at: [...at, key], message: `unknown key ${quote(key)} (did you mean ${quote(guess)}?)${unset}; ${list}` });
    }
    for (const key of known) {
      const child = rule.keys[key];
      const childPath = joinPath(path, key);
      if (Object.hasOwn(value, key) || child.optional === true || meant.has(key)) continue;
      if (options.required !== undefined && !options.required(childPath, values)) continue;
      const note = options.missingNote?.(childPath);
      errors.push({
        path: childPath,
        at,
        message: `is missing: ${options.reader} reads it${note !== undefined ? ` (${note})` : ''}; set it${path === '' ? '' : ` under ${path}`}`,
      });
    }
  };
  walk(schema, values, '', []);
  return { errors, warnings };
}
