/**
 * @module util/own
 * Writing a key into a plain object without the `__proto__` setter. Input (pods, YAML, status
 * records) may legally contain a `__proto__` key, which must stay data and never change an
 * object's prototype. The one copy of this rule; everything else imports it.
 */

/** Write an own, enumerable data property, even for the key `__proto__`. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** A shallow copy of a map, keeping a `__proto__` key as data (the copy-on-write step). */
export function copyMap<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) setOwn(out, k, o[k]);
  return out as T;
}
