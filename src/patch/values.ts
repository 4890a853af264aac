/**
 * @module patch/values
 * Small value helpers shared by the merge, diff and apply engines: Go-like kinds (so "same
 * type" means what it means to Kubernetes), prototype-safe property writes, path formatting
 * for error messages, and the depth limit that turns hostile nesting into a clear error
 * instead of a stack overflow.
 */
import { InjectionError } from '../errors.js';

/**
 * Deeper than any real Kubernetes object (the apiserver's own JSON limit is far lower in
 * practice); past this we report an error instead of risking a RangeError.
 */
export const MAX_DEPTH = 1000;

/** The JSON kinds, like Go's `reflect.Kind` of a decoded `interface{}`. `invalid` = not JSON. */
export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null' | 'invalid';

export function kindOf(value: unknown): JsonKind {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return Number.isFinite(value) ? 'number' : 'invalid';
    case 'boolean':
      return 'boolean';
    case 'object':
      return Array.isArray(value) ? 'array' : isDataObject(value) ? 'object' : 'invalid';
    default:
      return 'invalid';
  }
}

/** A plain data object (what JSON/YAML parsing yields): no class instances such as Date or Map. */
function isDataObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A value usable as a merge key or set member: string, number or boolean (Go-comparable scalars). */
export function isScalar(value: unknown): value is string | number | boolean {
  const t = typeof value;
  return t === 'string' || t === 'boolean' || (t === 'number' && Number.isFinite(value as number));
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `spec.containers` + `env` -> `spec.containers.env`; odd keys are quoted: `annotations["a/b"]`. */
export function joinKey(path: string, key: string): string {
  if (!IDENTIFIER.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path === '' ? key : `${path}.${key}`;
}

export function joinIndex(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** A path for humans: the root is called `(root)`. */
export function showPath(path: string): string {
  return path === '' ? '(root)' : path;
}

export function tooDeep(path: string, what: string): InjectionError {
  return new InjectionError('SI_INPUT_LIMIT', `${what} is nested more than ${MAX_DEPTH} levels deep at ${showPath(path)}`, {
    details: { path },
  });
}
