/**
 * @module config/static-sidecar
 * The tutorial's config form (morvencao's kube-mutating-webhook-tutorial, tumblr's
 * k8s-sidecar-injector): the sidecar as plain YAML, `containers:`, `volumes:` and optionally
 * `initContainers:` and `imagePullSecrets:` at the top level, no template language. It becomes
 * one template (named by `name:`, default `sidecar`) whose text is the JSON of the overlay with
 * every `{{` escaped, so the pipeline (merge, status, undo, explain) treats it like any other
 * template and a `{{` in a command line stays literal text.
 *
 * Also here: the hints for keys that belong to the other form, so a newcomer mixing the two is
 * told where the key goes instead of getting a far-fetched "did you mean".
 */
import { isPlainObject } from '../util/json.js';
import { joinPath, type ConfigIssue } from './issues.js';
import { describeValue } from '../util/describe.js';

/** Pod spec lists the static form takes (strategic-merged by name, like a template's). */
export const STATIC_SIDECAR_KEYS = ['containers', 'volumes', 'initContainers', 'imagePullSecrets'] as const;
/** Names the static sidecar's template (and is what `inject.istio.io/templates`-style annotations select). */
export const STATIC_NAME_KEY = 'name';
const DEFAULT_STATIC_NAME = 'sidecar';

export interface StaticSidecar {
  name: string;
  /** Go template text that renders the overlay exactly (JSON with `{{` escaped). */
  template: string;
}

/** The static sidecar in `root`, if the config uses that form. */
export function readStaticSidecar(root: Record<string, unknown>, errors: ConfigIssue[]): StaticSidecar | undefined {
  const present = STATIC_SIDECAR_KEYS.filter((k) => root[k] !== undefined && root[k] !== null);
  const rawName = root[STATIC_NAME_KEY];
  if (present.length === 0) {
    if (rawName !== undefined)
      errors.push({
        path: STATIC_NAME_KEY,
        message: `"name" names a static sidecar (containers:, volumes: at the top level); this config has none. Templates are named by their key under "templates"`,
      });
    return undefined;
  }
  let name = DEFAULT_STATIC_NAME;
  if (typeof rawName === 'string' && rawName.trim() !== '' && !rawName.includes(',')) name = rawName;
  else if (rawName !== undefined)
    errors.push({ path: STATIC_NAME_KEY, message: `must be a template name (a non-empty string without ","), got ${describeValue(rawName)}` });
  const spec: Record<string, unknown> = {};
  for (const key of present) {
    const list = root[key];
    if (!Array.isArray(list)) {
      errors.push({ path: key, message: `must be a list (as in a pod spec), got ${describeValue(list)}` });
      continue;
    }
    list.forEach((item: unknown, i) => {
      if (!isPlainObject(item))
        errors.push({
          path: joinPath(key, i),
          message: `must be a map (a ${key === 'imagePullSecrets' ? 'LocalObjectReference' : key.replace(/s$/, '')}), got ${describeValue(item)}`,
        });
      else if (typeof item.name !== 'string' || item.name === '')
        errors.push({ path: joinPath(key, i), message: 'needs a name (items are merged into the pod by name)' });
    });
    spec[key] = list;
  }
  // JSON is YAML, so the rendered text parses to exactly this overlay; `{{` must not start an action.
  const template = JSON.stringify({ spec }, null, 2).replaceAll('{{', '{{"{{"}}');
  return { name, template };
}

/**
 * A precise hint for a top-level key that is not a config key but belongs somewhere known:
 * the static form, a template, a container or the tutorial's ConfigMap. Undefined otherwise.
 */
export function otherFormHint(key: string, hasStatic: boolean, hasTemplates: boolean): string | undefined {
  if (key === 'spec' || key === 'metadata') {
    return `"${key}" is part of a pod overlay: put the overlay in a template (templates: {sidecar: "${key}: ..."}), or for a plain sidecar write containers:/volumes: at the top level`;
  }
  if (key === 'sidecarconfig.yaml' || key === 'sidecarconfig') {
    return `"${key}" is the key of the tutorial's ConfigMap: give its content (containers:, volumes:) as the config, or the whole ConfigMap manifest`;
  }
  if (['image', 'command', 'args', 'env', 'ports', 'volumeMounts', 'resources', 'securityContext', 'imagePullPolicy'].includes(key)) {
    return `"${key}" is a container field: put it under containers: [{name: ..., ${key}: ...}]`;
  }
  if (key === 'annotations') return '"annotations" are written with injectedAnnotations: {key: value} (added to every injected pod)';
  if (key === 'labels') return '"labels" on the injected pod need a template (templates: {NAME: "metadata:\\n  labels: ..."})';
  if (key === 'template' && hasStatic) return undefined;
  if (hasStatic && hasTemplates) return undefined;
  return undefined;
}
