/**
 * @module config/issues
 * How config validation reports problems: each issue names the key path it is about
 * (`neverInjectSelector[1].matchExpressions[0].operator`), so one load can report every
 * mistake at once, and unknown keys come with a "did you mean" when a known key is close.
 */

/** One problem found in a config, at a key path. */
export interface ConfigIssue {
  /** Dotted key path with [index] for lists, e.g. `templates.sidecar`; `` for the root. */
  path: string;
  message: string;
  /** 1-based line in the file, when the YAML source is known. */
  line?: number;
}

/** Append a key to a path: `a` + `b` = `a.b`; keys that are not plain identifiers are quoted. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  const part = /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? key : JSON.stringify(key);
  if (base === '') return part;
  return /^[A-Za-z_]/.test(part) ? `${base}.${part}` : `${base}[${part}]`;
}

/** Levenshtein distance, capped: returns `max + 1` as soon as the distance exceeds `max`. */
export function editDistance(a: string, b: string, max = 3): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length];
}

/** The known word closest to `word` (case-insensitive equality first, then edit distance ≤ 3). */
export function closest(word: string, known: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  const sameCase = known.find((k) => k.toLowerCase() === lower);
  if (sameCase !== undefined) return sameCase;
  let best: string | undefined;
  let bestDistance = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase(), bestDistance);
    if (d <= bestDistance && (best === undefined || d < bestDistance)) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** `unknown key "polcy" (did you mean "policy"?); known keys: a, b` */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const guess = closest(key, known);
  const hint = guess !== undefined ? ` (did you mean "${guess}"?)` : '';
  return `unknown key "${key}"${hint}; known keys: ${known.join(', ')}`;
}

/** Extra advice when YAML turned an unquoted word into a non-string. */
export function quoteHint(value: unknown): string {
  if (typeof value === 'boolean' || typeof value === 'number' || value === null) {
    return '; quote the value (YAML reads unquoted yes/no/on/off/true/false, numbers and ~ as non-strings)';
  }
  return '';
}
