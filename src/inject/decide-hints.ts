/**
 * @module inject/decide-hints
 * Warnings for the classic mistakes around the inject label/annotation: a value that is not
 * exactly "true"/"false" (Istio silently applies the default), a label hiding the annotation,
 * the namespace label put on a pod, a misspelt key. They never change the decision; they tell
 * the user what to write instead. Each stays short: it becomes an admission warning.
 */
import { editDistance } from '../config/issues.js';
import { quote } from '../util/describe.js';
import type { PodView } from './decide-input.js';

const MEANS_YES = new Set(['yes', 'y', 'on', 'true', 'enable', 'enabled', '1', 'inject']);
const MEANS_NO = new Set(['no', 'n', 'off', 'false', 'disable', 'disabled', '0', 'none']);
/** Hostile pods can carry thousands of keys; misspelling hints look at the first few hundred. */
const MAX_KEYS_FOR_SPELLING = 500;

/** The warning for a value of the inject key that is neither "true" nor "false" (nor empty). */
export function invalidValueHint(where: 'label' | 'annotation', key: string, value: string): string {
  const lower = value.trim().toLowerCase();
  const write = MEANS_YES.has(lower) ? ' Write "true".' : MEANS_NO.has(lower) ? ' Write "false".' : '';
  return `${where} ${key}=${quote(value)} ignored: only "true" or "false" count; the default applies.${write}`;
}

export interface KeyHintInput {
  view: PodView;
  injectKey: string;
  namespaceLabel: string;
}

/** Hints about keys: the namespace label on a pod, and near-misses of the inject key. */
export function keyHints({ view, injectKey, namespaceLabel }: KeyHintInput): string[] {
  const hints: string[] = [];
  const maps = [
    ['label', view.labels],
    ['annotation', view.annotations],
  ] as const;
  for (const [where, map] of maps) {
    if (map.values.has(namespaceLabel) || map.invalid.has(namespaceLabel)) {
      hints.push(`${where} ${namespaceLabel} does nothing on a pod (it is a namespace label); use ${injectKey}`);
    }
    let seen = 0;
    for (const key of [...map.values.keys(), ...map.invalid.keys()]) {
      if (++seen > MAX_KEYS_FOR_SPELLING) break;
      if (key === injectKey || key === namespaceLabel) continue;
      if (key.toLowerCase() === injectKey.toLowerCase() || editDistance(key, injectKey, 2) <= 2) {
        hints.push(`${where} ${quote(key)} is not read; did you mean ${injectKey}?`);
      }
    }
  }
  return hints;
}
