/**
 * @module config/k8s-names
 * Kubernetes' syntax rules for label keys, label values and annotation keys
 * (k8s.io/apimachinery `validation.IsQualifiedName`, `IsValidLabelValue`). The config loader
 * checks selectors and injected annotations with them, so a mistake is reported at load time
 * instead of surfacing later as a pod the apiserver rejects.
 */

const NAME_MAX = 63;
const PREFIX_MAX = 253;
const NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Why `key` is not a valid qualified name (label key, annotation key), or `undefined` if it is.
 * A qualified name is an optional DNS-subdomain prefix and `/`, then a name of at most 63
 * characters: alphanumerics, `-`, `_`, `.`, starting and ending with an alphanumeric.
 */
export function qualifiedNameError(key: string): string | undefined {
  const parts = key.split('/');
  let name: string;
  if (parts.length === 1) {
    name = key;
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) return `prefix part of "${key}" must not be empty`;
    if (prefix.length > PREFIX_MAX) return `prefix part of "${key}" must be at most ${PREFIX_MAX} characters`;
    if (!DNS1123_SUBDOMAIN_RE.test(prefix)) {
      return `prefix part of "${key}" must be a lowercase DNS subdomain (e.g. example.com)`;
    }
  } else {
    return `"${key}" has more than one "/"; a key is an optional prefix, "/", and a name`;
  }
  if (name.length === 0) return `name part of "${key}" must not be empty`;
  if (name.length > NAME_MAX) return `name part of "${key}" must be at most ${NAME_MAX} characters`;
  if (!NAME_RE.test(name)) {
    return `name part of "${key}" must be alphanumerics, "-", "_" or ".", starting and ending with an alphanumeric`;
  }
  return undefined;
}

/** Why `value` is not a valid label value, or `undefined` if it is (the empty string is valid). */
export function labelValueError(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > NAME_MAX) return `label value "${value.slice(0, 20)}..." must be at most ${NAME_MAX} characters`;
  if (!NAME_RE.test(value)) {
    return `label value "${value}" must be alphanumerics, "-", "_" or ".", starting and ending with an alphanumeric`;
  }
  return undefined;
}

/** Why `name` is not a valid namespace name (DNS-1123 label), or `undefined` if it is. */
export function namespaceNameError(name: string): string | undefined {
  if (name.length === 0) return 'a namespace name must not be empty';
  if (name.length > NAME_MAX) return `namespace "${name.slice(0, 20)}..." is longer than ${NAME_MAX} characters`;
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) {
    return `namespace "${name}" must be lowercase alphanumerics and "-", starting and ending with an alphanumeric`;
  }
  return undefined;
}

/**
 * Why `name` cannot name a revision or a revision tag, or `undefined` if it can. It is a label
 * value (`istio.io/rev=NAME`) and a suffix of object names (`<name>-NAME`: a DNS-1035 Service
 * name), so it must be both: a lowercase DNS label of at most 63 characters. `default` is the
 * revision of the install without one (and a tag name, never a revision).
 */
export function revisionNameError(name: string, what: 'revision' | 'tag' = 'revision'): string | undefined {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > NAME_MAX) {
    return `${what} "${name}" must be a lowercase DNS label (letters, digits and "-", at most ${NAME_MAX} characters), e.g. 1-25 or canary`;
  }
  if (what === 'revision' && name === 'default') return 'revision "default" is the install without --revision; name the new revision, e.g. 1-25 or canary';
  return undefined;
}
