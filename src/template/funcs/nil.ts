/**
 * @module template/funcs/nil
 * Go's typed nil slices and maps. Several Sprig functions return one (`concat` of nothing,
 * `rest` of an empty list, `regexFindAll` with no match, `merge` into nil): it prints like an
 * empty one (`[]`, `map[]`) but JSON-encodes as `null` and `%#v` shows `[]interface {}(nil)`.
 * The value model has only `null` for nil, which prints `<nil>`, so a nil container is an empty,
 * frozen array or map carrying a marker. The marker uses a global symbol so the engine's
 * printer can recognise it without importing this module.
 */
import { MAP_OF_INTERFACE, SLICE_OF_INTERFACE, newGoMap, withGoType } from '../value.js';

export const GO_NIL: unique symbol = Symbol.for('sidecar-injector.template.goNil') as never;

const cache = new Map<string, object>();

function marked<T extends object>(value: T, goType: string, untagged: string): T {
  if (goType !== untagged) withGoType(value, goType);
  Object.defineProperty(value, GO_NIL, { value: true, enumerable: false });
  return Object.freeze(value);
}

/** A nil slice of the given Go type (shared, immutable). */
export function nilSlice(goType: string = SLICE_OF_INTERFACE): unknown[] {
  let v = cache.get(goType);
  if (v === undefined) {
    v = marked([] as unknown[], goType, SLICE_OF_INTERFACE);
    cache.set(goType, v);
  }
  return v as unknown[];
}

/** A nil map of the given Go type (shared, immutable). */
export function nilMap(goType: string = MAP_OF_INTERFACE): Record<string, unknown> {
  const key = 'map:' + goType;
  let v = cache.get(key);
  if (v === undefined) {
    v = marked(newGoMap(), goType, MAP_OF_INTERFACE);
    cache.set(key, v);
  }
  return v as Record<string, unknown>;
}

/** Whether a value is a typed nil slice or map made by {@link nilSlice} / {@link nilMap}. */
export function isNilContainer(v: unknown): boolean {
  return typeof v === 'object' && v !== null && (v as { [GO_NIL]?: boolean })[GO_NIL] === true;
}
