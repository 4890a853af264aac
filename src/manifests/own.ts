/**
 * @module manifests/own
 * Writing a key into a plain object without the `__proto__` setter: input may legally contain
 * a `__proto__` key, which must stay data (and never change an object's prototype).
 */
import type { JsonObject, JsonValue } from '../util/json.js';

export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
