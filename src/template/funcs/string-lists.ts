/**
 * @module template/funcs/string-lists
 * Splitting and joining: `split`/`splitn` return Sprig's `map[string]string` with keys `_0`,
 * `_1`, ...; `splitList` and `sortAlpha` return `[]string`. Go's strings.Split with an empty
 * separator splits into characters (runes), not UTF-16 units.
 */
import { goFunc, INTERFACE, newGoMap, taggedGoType, withGoType, type FuncMap } from '../value.js';
import { sortStrings } from '../quote.js';
import { isNil, strval } from './coerce.js';

export const STRING_SLICE = '[]string';

/** A JS array tagged as Go's []string. */
export function stringSlice(values: string[]): string[] {
  return withGoType(values, STRING_SLICE);
}

/** strings.SplitN(s, sep, n); n < 0 means all. */
function goSplitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const chars = Array.from(s);
    if (n < 0 || n > chars.length) n = chars.length;
    if (n === 0) return [];
    return [...chars.slice(0, n - 1), chars.slice(n - 1).join('')];
  }
  const all = s.split(sep);
  if (n < 0 || all.length <= n) return all;
  return [...all.slice(0, n - 1), all.slice(n - 1).join(sep)];
}

function indexedMap(parts: string[]): Record<string, unknown> {
  const m = newGoMap('map[string]string');
  parts.forEach((p, i) => {
    m['_' + i] = p;
  });
  return m;
}

/**
 * Sprig's strslice: []string as it is (the same slice, as in Go), other slices element-wise
 * through strval with nils dropped, nil as an empty list, anything else as a one-element list.
 */
function strslice(v: unknown): string[] {
  if (Array.isArray(v)) {
    if (taggedGoType(v) === STRING_SLICE) return v as string[];
    return stringSlice(v.filter((x) => !isNil(x)).map(strval));
  }
  if (isNil(v)) return stringSlice([]);
  return stringSlice([strval(v)]);
}

function sortAlpha(list: unknown): string[] {
  if (!Array.isArray(list)) return stringSlice([strval(list === undefined ? null : list)]);
  const a = strslice(list);
  sortStrings(a);
  return a;
}

const S = 'string';

export const stringListFuncs: FuncMap = {
  split: goFunc([S, S], (sep: string, orig: string) => indexedMap(goSplitN(orig, sep, -1))),
  splitn: goFunc([S, 'int', S], (sep: string, n: bigint, orig: string) => indexedMap(goSplitN(orig, sep, n > 2n ** 31n ? -1 : n < 0n ? -1 : Number(n)))),
  splitList: goFunc([S, S], (sep: string, orig: string) => stringSlice(goSplitN(orig, sep, -1))),
  join: goFunc([S, INTERFACE], (sep: string, v: unknown) => strslice(v).join(sep)),
  sortAlpha: goFunc([INTERFACE], sortAlpha),
  toStrings: goFunc([INTERFACE], strslice),
};
