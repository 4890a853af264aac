/**
 * @module yaml/k8s-schema
 * The js-yaml schema that makes js-yaml (a fast YAML 1.2 parser) type scalars the way
 * sigs.k8s.io/yaml (go-yaml v2) does. Plain scalars go through {@link resolvePlain}; explicit
 * tags follow go-yaml: `!!str` keeps the text, `!!int`/`!!float`/`!!bool`/`!!null` must match the
 * text, `!!binary` is base64-decoded, and local or unknown tags are ignored (the node keeps its
 * text, mapping or sequence). There is deliberately no js-yaml merge type and no timestamp type:
 * `<<` becomes a {@link MergeKey} that convert.ts expands with go-yaml's rules and its own limits,
 * and timestamps stay strings, as Kubernetes keeps them.
 */
import jsyaml from 'js-yaml';
import { FloatScalar, NULL_SCALAR, resolvePlain, STRING, BigIntScalar } from './resolve.js';

const TAG = 'tag:yaml.org,2002:';

/**
 * js-yaml calls `resolve` then, at once, `construct` for the same scalar; the resolved value is
 * handed over in this variable so the (hot) resolution runs once per scalar.
 */
let resolved: unknown;

const plainScalar = new jsyaml.Type(`${TAG}k8s-plain`, {
  kind: 'scalar',
  resolve(data: string | null): boolean {
    if (data === null) return false;
    const r = resolvePlain(data);
    if (r === STRING) return false;
    resolved = r;
    return true;
  },
  construct(): unknown {
    return resolved;
  },
});

/** An explicit scalar tag that accepts the text only if go-yaml would resolve it to `accepts`. */
function explicitScalar(name: string, accepts: (value: unknown) => unknown): jsyaml.Type {
  return new jsyaml.Type(`${TAG}${name}`, {
    kind: 'scalar',
    resolve(data: string | null): boolean {
      const r = accepts(resolvePlain(data ?? ''));
      if (r === STRING) return false;
      resolved = r;
      return true;
    },
    construct(): unknown {
      return resolved;
    },
  });
}

const isInt = (v: unknown): unknown => (typeof v === 'number' || v instanceof BigIntScalar ? v : STRING);
const intTag = explicitScalar('int', isInt);
// go-yaml accepts an integer under !!float and makes it a float.
const floatTag = explicitScalar('float', (v) => {
  if (v instanceof FloatScalar) return v;
  if (typeof v === 'number') return new FloatScalar(v);
  if (v instanceof BigIntScalar) return new FloatScalar(v.value);
  return STRING;
});
const boolTag = explicitScalar('bool', (v) => (typeof v === 'boolean' ? v : STRING));
const nullTag = explicitScalar('null', (v) => (v === NULL_SCALAR ? v : STRING));

const strTag = new jsyaml.Type(`${TAG}str`, {
  kind: 'scalar',
  construct: (data: string | null) => data ?? '',
});

// go-yaml decodes !!binary to bytes; JSON then carries them as a (UTF-8) string.
const binaryTag = new jsyaml.Type(`${TAG}binary`, {
  kind: 'scalar',
  resolve: (data: string | null) => /^[A-Za-z0-9+/=\s]*$/.test(data ?? ''),
  construct: (data: string | null) => Buffer.from((data ?? '').replace(/\s+/g, ''), 'base64').toString('utf8'),
});

// A !!timestamp is kept as its text, as for an untagged timestamp.
const timestampTag = new jsyaml.Type(`${TAG}timestamp`, {
  kind: 'scalar',
  construct: (data: string | null) => data ?? '',
});

// Any other tag (local `!foo`, `!!set`, URIs) is ignored: go-yaml keeps the node as it is.
const anyScalar = new jsyaml.Type('', { kind: 'scalar', multi: true, construct: (data: string | null) => data ?? '' });
const anySequence = new jsyaml.Type('', { kind: 'sequence', multi: true, construct: (data: unknown[] | null) => data ?? [] });
const anyMapping = new jsyaml.Type('', { kind: 'mapping', multi: true, construct: (data: object | null) => data ?? {} });

export const KUBERNETES_SCHEMA: jsyaml.Schema = jsyaml.FAILSAFE_SCHEMA.extend({
  implicit: [plainScalar],
  explicit: [intTag, floatTag, boolTag, nullTag, strTag, binaryTag, timestampTag, anyScalar, anySequence, anyMapping],
});
