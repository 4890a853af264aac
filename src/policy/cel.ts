/**
 * @module policy/cel
 * Writing CEL source text: string literals, the pod's labels and annotations read without
 * errors (an erroring match condition under `failurePolicy: Fail` rejects the pod), and typed
 * object literals for JSONPatch values. The apiserver type-checks JSONPatch values against the
 * Pod schema and CEL maps must be homogeneous, so a container is written as
 * `Object.spec.containers{name: "x", ports: [Object.spec.containers.ports{containerPort: 80}]}`
 * (the type is named by the field path) and only true map fields use `{"k": v}` literals.
 */
import { InjectorError } from '../errors.js';

/** A CEL double-quoted string literal. */
export function celString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0xd800 && c <= 0xdfff)
      throw new InjectorError('SI_POLICY_UNSUPPORTED', 'a string holds a lone UTF-16 surrogate, which CEL cannot represent; use the webhook for this config');
    else out += ch;
  }
  return out + '"';
}

export function celList(items: readonly string[]): string {
  return `[${items.join(', ')}]`;
}

/** `object.metadata.labels` / `annotations` has key `key` (never errors). */
export function hasMapKey(map: 'labels' | 'annotations', key: string): string {
  return `(has(object.metadata.${map}) && ${celString(key)} in object.metadata.${map})`;
}

/** The value at `key`, or `fallback` (a CEL expression) when the map or key is absent. */
export function mapValueOr(map: 'labels' | 'annotations', key: string, fallback: string): string {
  return `(${hasMapKey(map, key)} ? object.metadata.${map}[${celString(key)}] : ${fallback})`;
}

/** Pod fields whose values are maps (string keys), not structured objects. */
const MAP_FIELDS = new Set(['labels', 'annotations', 'nodeSelector', 'limits', 'requests', 'volumeAttributes', 'matchLabels', 'overhead']);

/** CEL reserved words: Kubernetes escapes a property with such a name as `__word__`. */
const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

function fieldName(name: string, where: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new InjectorError(
      'SI_POLICY_UNSUPPORTED',
      `${where}: field name ${JSON.stringify(name)} is not a Pod field CEL can write; use the webhook for this config`,
    );
  }
  const escaped = name.replace(/__/g, '__underscores__');
  return RESERVED.has(escaped) ? `__${escaped}__` : escaped;
}

/**
 * A JSON value as a typed CEL literal for the Pod field at `path` (e.g. ['spec', 'containers']:
 * list items share the list's path). `str` writes strings, so that strings holding pod fields
 * can become CEL expressions.
 */
export function celValue(value: unknown, path: readonly string[], str: (s: string) => string): string {
  const where = `/${path.join('/')}`;
  if (typeof value === 'string') return str(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value))
      throw new InjectorError(
        'SI_POLICY_UNSUPPORTED',
        `${where}: the number ${value} is not an integer, which a Pod field never is; use the webhook for this config`,
      );
    return String(value);
  }
  if (Array.isArray(value)) return celList(value.map((v) => celValue(v, path, str)));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (MAP_FIELDS.has(path[path.length - 1] ?? '')) {
      return `{${entries.map(([k, v]) => `${celString(k)}: ${celValue(v, [...path, k], str)}`).join(', ')}}`;
    }
    const type = ['Object', ...path].join('.');
    return `${type}{${entries.map(([k, v]) => `${fieldName(k, where)}: ${celValue(v, [...path, k], str)}`).join(', ')}}`;
  }
  throw new InjectorError('SI_POLICY_UNSUPPORTED', `${where}: a null value cannot be written in a JSONPatch value; use the webhook for this config`);
}
