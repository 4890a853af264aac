/**
 * @module config/validate-config
 * Turns the parsed `config` document (Istio's keys plus ours) into an {@link InjectorConfig},
 * collecting every problem with its key path instead of stopping at the first. Unknown keys
 * are errors (with "did you mean"), except Istio's legacy `template:` key, which Istio itself
 * ignores. Selectors that break Kubernetes' rules are errors by default; in `skip` mode they
 * are kept and skipped at decision time, exactly as Istio does.
 */
import { isPlainObject } from '../util/json.js';
import { COMPATIBILITY_MODES, type CompatibilityMode } from './compat.js';
import { otherFormHint, readStaticSidecar, STATIC_NAME_KEY, STATIC_SIDECAR_KEYS } from './static-sidecar.js';
import { DEFAULT_TEMPLATE_OPTIONS, ISTIO_IGNORED_NAMESPACES, ISTIO_INJECTION_KEYS, POLICY_DISABLED, POLICY_ENABLED } from './istio-names.js';
import { closest, joinPath, quoteHint, unknownKeyMessage, type ConfigIssue } from './issues.js';
import { namespaceNameError, qualifiedNameError } from './k8s-names.js';
import { compileSelector, parseLabelSelector, type CompiledSelector, type LabelSelector } from './selector.js';
import type { InjectionKeys, InjectionValues, InjectorConfig, TemplateOptions } from './types.js';
import { lowerAscii } from '../util/ascii.js';
import { describeValue } from '../util/describe.js';

/** Istio's `inject.Config` keys. */
const ISTIO_CONFIG_KEYS = ['policy', 'defaultTemplates', 'templates', 'aliases', 'neverInjectSelector', 'alwaysInjectSelector', 'injectedAnnotations'];
/** Our extensions (and `values` for the single-file form). */
const EXTENSION_CONFIG_KEYS = ['values', 'injectionKeys', 'injectionValues', 'templateOptions', 'ignoredNamespaces', 'nativeSidecars', 'compatibility'];
/** The static sidecar form (config/static-sidecar): the tutorial's plain containers/volumes, and its name. */
const STATIC_FORM_KEYS = [...STATIC_SIDECAR_KEYS, STATIC_NAME_KEY];
/** Istio's legacy key: present in every Istio ConfigMap, ignored by istiod since 1.9. */
const LEGACY_TEMPLATE_KEY = 'template';

const KNOWN_KEYS = [...ISTIO_CONFIG_KEYS, ...EXTENSION_CONFIG_KEYS, ...STATIC_FORM_KEYS];
const INJECTION_KEY_NAMES = Object.keys(ISTIO_INJECTION_KEYS) as (keyof InjectionKeys)[];
const TEMPLATE_OPTION_NAMES = Object.keys(DEFAULT_TEMPLATE_OPTIONS) as (keyof TemplateOptions)[];

export interface ValidateOptions {
  /** `error` (default): a selector breaking Kubernetes' rules fails the load. `skip`: warn and skip it at decision time (Istio's behaviour). */
  invalidSelectors?: 'error' | 'skip';
  /**
   * `error` (default): a policy other than enabled or disabled fails the load, in every command.
   * `off`: Istio's runtime rule, kept for the conformance tests of its decision table: a warning,
   * and no pod gets a sidecar.
   */
  invalidPolicy?: 'error' | 'off';
}

export interface ValidatedConfig {
  /** Everything but `values` and what depends on them, which the caller resolves (values may come from a separate file). */
  config: Omit<InjectorConfig, 'values' | 'compatibility'>;
  /** `compatibility:` when given. */
  compatibility?: CompatibilityMode;
  /** `nativeSidecars:` was given (otherwise Istio mode decides it from the values). */
  nativeSidecarsExplicit: boolean;
  selectors: { never: CompiledSelector[]; always: CompiledSelector[] };
  errors: ConfigIssue[];
  warnings: ConfigIssue[];
}

/** Validate the root map of a `config` document. `root` must already be a plain object. */
export function validateConfig(root: Record<string, unknown>, options: ValidateOptions = {}): ValidatedConfig {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const staticSidecar = readStaticSidecar(root, errors);
  for (const key of Object.keys(root)) {
    if (KNOWN_KEYS.includes(key) || key === LEGACY_TEMPLATE_KEY) continue;
    const hint = otherFormHint(key, staticSidecar !== undefined, root.templates !== undefined);
    errors.push({ path: key, message: hint !== undefined ? `unknown key "${key}": ${hint}` : unknownKeyMessage(key, KNOWN_KEYS) });
  }

  const policy = readPolicy(root.policy, errors, warnings, options.invalidPolicy ?? 'error');
  const templates = readStringMap(root.templates, 'templates', 'the template text', errors);
  if (staticSidecar !== undefined) {
    if (Object.hasOwn(templates, staticSidecar.name)) {
      errors.push({
        path: STATIC_NAME_KEY,
        message: `the static sidecar's name "${staticSidecar.name}" is also a key under templates; give one of them another name`,
      });
    } else {
      templates[staticSidecar.name] = staticSidecar.template;
    }
  }
  for (const name of Object.keys(templates)) {
    const nameErr = templateNameError(name);
    if (nameErr) errors.push({ path: joinPath('templates', name), message: nameErr });
    else if (templates[name].trim() === '') warnings.push({ path: joinPath('templates', name), message: 'template is empty; it injects nothing' });
  }
  const aliases = readAliases(root.aliases, templates, errors, warnings);
  // A static sidecar is injected by default, as the tutorial's only sidecar is.
  const defaultTemplates =
    staticSidecar !== undefined && (root.defaultTemplates === undefined || root.defaultTemplates === null) && !Object.hasOwn(templates, 'sidecar')
      ? [staticSidecar.name]
      : readDefaultTemplates(root.defaultTemplates, templates, aliases, errors, warnings);

  if (Object.keys(templates).length === 0) {
    warnings.push(
      Object.hasOwn(root, LEGACY_TEMPLATE_KEY)
        ? {
            path: LEGACY_TEMPLATE_KEY,
            message: 'the legacy "template" key is ignored (as istiod does); put templates under "templates" and name them in defaultTemplates',
          }
        : { path: 'templates', message: 'no templates are defined, so injection adds nothing but the status annotation' },
    );
  }

  const mode = options.invalidSelectors ?? 'error';
  const never = readSelectors(root.neverInjectSelector, 'neverInjectSelector', mode, errors, warnings);
  const always = readSelectors(root.alwaysInjectSelector, 'alwaysInjectSelector', mode, errors, warnings);

  const injectedAnnotations = readStringMap(root.injectedAnnotations, 'injectedAnnotations', 'the annotation value', errors);
  for (const key of Object.keys(injectedAnnotations)) {
    const err = qualifiedNameError(key);
    if (err) errors.push({ path: joinPath('injectedAnnotations', key), message: `invalid annotation key: ${err}` });
  }

  const injectionKeys = readInjectionKeys(root.injectionKeys, errors);
  const injectionValues = readInjectionValues(root.injectionValues, errors);
  const templateOptions = readTemplateOptions(root.templateOptions, errors);
  const ignoredNamespaces = readIgnoredNamespaces(root.ignoredNamespaces, errors);
  const nativeSidecars = readBoolean(root.nativeSidecars, 'nativeSidecars', false, errors);

  return {
    config: {
      policy,
      defaultTemplates,
      templates,
      aliases,
      neverInjectSelector: never.map((c) => c.selector).filter((s): s is LabelSelector => s !== null),
      alwaysInjectSelector: always.map((c) => c.selector).filter((s): s is LabelSelector => s !== null),
      injectedAnnotations,
      injectionKeys,
      injectionValues,
      templateOptions,
      ignoredNamespaces,
      nativeSidecars,
    },
    selectors: { never, always },
    compatibility: readCompatibility(root.compatibility, errors),
    nativeSidecarsExplicit: root.nativeSidecars !== undefined && root.nativeSidecars !== null,
    errors,
    warnings,
  };
}

function readPolicy(raw: unknown, errors: ConfigIssue[], warnings: ConfigIssue[], invalid: 'error' | 'off'): string {
  // Absent: we default to enabled (Istio's chart always writes the key; Istio's loader would leave it "").
  if (raw === undefined) return POLICY_ENABLED;
  if (raw === null) {
    warnings.push({ path: 'policy', message: "policy is empty, so no pod gets a sidecar (Istio's rule); set policy: enabled or disabled" });
    return '';
  }
  if (typeof raw !== 'string') {
    errors.push({ path: 'policy', message: `must be "enabled" or "disabled", got ${describeValue(raw)}${quoteHint(raw)}` });
    return '';
  }
  if (raw !== POLICY_ENABLED && raw !== POLICY_DISABLED) {
    const guess = closest(raw, [POLICY_ENABLED, POLICY_DISABLED]);
    const hint = guess !== undefined ? ` (did you mean "${guess}"?)` : '';
    // An error, not Istio's silent "no pod gets a sidecar": every command would otherwise run on a config that injects nothing.
    if (invalid === 'error') errors.push({ path: 'policy', message: `must be "enabled" or "disabled", got "${raw}"${hint}` });
    else warnings.push({ path: 'policy', message: `"${raw}" is not "enabled" or "disabled", so no pod gets a sidecar, even when asked (Istio's rule)${hint}` });
  }
  return raw;
}

/** Template names are picked from a comma-separated annotation, so they must survive split+trim. */
function templateNameError(name: string): string | undefined {
  if (name === '') return 'a template name must not be empty';
  if (name.includes(',')) return `template name "${name}" contains ",", so the templates annotation could never select it`;
  if (name.trim() !== name) return `template name "${name}" has leading or trailing spaces, so the templates annotation could never select it`;
  return undefined;
}

/** A map of string to string; `null` means empty. Returns a null-prototype record. */
function readStringMap(raw: unknown, path: string, what: string, errors: ConfigIssue[]): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (raw === undefined || raw === null) return out;
  if (!isPlainObject(raw)) {
    errors.push({ path, message: `must be a map of name to ${what}, got ${describeValue(raw)}` });
    return out;
  }
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v === 'string') out[k] = v;
    else if (v === null) out[k] = '';
    else errors.push({ path: joinPath(path, k), message: `${what} must be a string, got ${describeValue(v)}${quoteHint(v)}` });
  }
  return out;
}

function readStringList(raw: unknown, path: string, errors: ConfigIssue[]): string[] | undefined {
  if (!Array.isArray(raw)) {
    errors.push({ path, message: `must be a list of names, got ${describeValue(raw)}` });
    return undefined;
  }
  const out: string[] = [];
  raw.forEach((v: unknown, i) => {
    if (typeof v === 'string' && v !== '') out.push(v);
    else errors.push({ path: joinPath(path, i), message: `must be a non-empty name, got ${typeof v === 'string' ? 'an empty string' : describeValue(v)}` });
  });
  return out;
}

function readAliases(raw: unknown, templates: Record<string, string>, errors: ConfigIssue[], warnings: ConfigIssue[]): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null);
  if (raw === undefined || raw === null) return out;
  if (!isPlainObject(raw)) {
    errors.push({ path: 'aliases', message: `must be a map of alias to a list of template names, got ${describeValue(raw)}` });
    return out;
  }
  const names = Object.keys(templates);
  for (const [alias, targets] of Object.entries(raw)) {
    const path = joinPath('aliases', alias);
    const nameErr = templateNameError(alias);
    if (nameErr) errors.push({ path, message: nameErr.replace('template name', 'alias') });
    const list = readStringList(targets, path, errors);
    if (!list) continue;
    list.forEach((t, i) => {
      if (Object.hasOwn(templates, t)) return;
      const isAlias = Object.hasOwn(raw, t);
      const guess = closest(t, names);
      errors.push({
        path: joinPath(path, i),
        message: isAlias
          ? `"${t}" is an alias; aliases expand one level only, so list its templates instead`
          : `no template named "${t}"${guess !== undefined ? ` (did you mean "${guess}"?)` : ''}`,
      });
    });
    if (Object.hasOwn(templates, alias)) {
      warnings.push({ path, message: `alias "${alias}" hides the template of the same name (aliases are resolved first)` });
    }
    out[alias] = list;
  }
  return out;
}

function readDefaultTemplates(
  raw: unknown,
  templates: Record<string, string>,
  aliases: Record<string, string[]>,
  errors: ConfigIssue[],
  warnings: ConfigIssue[],
): string[] {
  // Istio replaces an absent or empty list with [sidecar].
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) {
    if (Object.hasOwn(templates, 'sidecar') || Object.hasOwn(aliases, 'sidecar')) return ['sidecar'];
    if (Object.keys(templates).length > 0) {
      warnings.push({
        path: 'defaultTemplates',
        message: 'empty and there is no "sidecar" template, so pods without the templates annotation get nothing injected',
      });
    }
    return [];
  }
  const list = readStringList(raw, 'defaultTemplates', errors) ?? [];
  const known = [...Object.keys(templates), ...Object.keys(aliases)];
  list.forEach((name, i) => {
    if (Object.hasOwn(templates, name) || Object.hasOwn(aliases, name)) return;
    const guess = closest(name, known);
    errors.push({
      path: joinPath('defaultTemplates', i),
      message: `no template or alias named "${name}"${guess !== undefined ? ` (did you mean "${guess}"?)` : ''}`,
    });
  });
  return list;
}

function readSelectors(raw: unknown, path: string, mode: 'error' | 'skip', errors: ConfigIssue[], warnings: ConfigIssue[]): CompiledSelector[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    errors.push({ path, message: `must be a list of label selectors, got ${describeValue(raw)}` });
    return [];
  }
  const out: CompiledSelector[] = [];
  raw.forEach((item: unknown, i) => {
    const itemPath = joinPath(path, i);
    const parsed = parseLabelSelector(item, itemPath, errors);
    if (parsed === undefined) return;
    const compiled = compileSelector(parsed, itemPath);
    if (compiled.state === 'invalid' && compiled.issue) {
      if (mode === 'error') errors.push(compiled.issue);
      else warnings.push({ ...compiled.issue, message: `${compiled.issue.message}; this selector is skipped` });
    } else if (compiled.state === 'empty') {
      warnings.push({ path: itemPath, message: 'empty selector is ignored (it would select every pod; Istio skips it)' });
    } else if (compiled.state === 'nothing') {
      warnings.push({ path: itemPath, message: 'null selector matches no pod' });
    }
    const { issue: _issue, ...rest } = compiled;
    out.push(rest);
  });
  return out;
}

function readInjectionKeys(raw: unknown, errors: ConfigIssue[]): InjectionKeys {
  const keys: InjectionKeys = { ...ISTIO_INJECTION_KEYS };
  if (raw === undefined || raw === null) return keys;
  if (!isPlainObject(raw)) {
    errors.push({ path: 'injectionKeys', message: `must be a map (${INJECTION_KEY_NAMES.join(', ')}), got ${describeValue(raw)}` });
    return keys;
  }
  for (const [k, v] of Object.entries(raw)) {
    const path = joinPath('injectionKeys', k);
    if (!(INJECTION_KEY_NAMES as string[]).includes(k)) {
      errors.push({ path, message: unknownKeyMessage(k, INJECTION_KEY_NAMES) });
    } else if (typeof v !== 'string') {
      errors.push({ path, message: `must be a label/annotation key, got ${describeValue(v)}` });
    } else {
      const err = qualifiedNameError(v);
      if (err) errors.push({ path, message: `invalid key: ${err}` });
      else keys[k as keyof InjectionKeys] = v;
    }
  }
  // The three pod annotations must differ, or one would overwrite another.
  const podKeys: (keyof InjectionKeys)[] = ['inject', 'status', 'templates'];
  for (let i = 0; i < podKeys.length; i++) {
    for (let j = i + 1; j < podKeys.length; j++) {
      if (keys[podKeys[i]] === keys[podKeys[j]]) {
        errors.push({ path: joinPath('injectionKeys', podKeys[j]), message: `must differ from injectionKeys.${podKeys[i]} ("${keys[podKeys[i]]}")` });
      }
    }
  }
  return keys;
}

function readTemplateOptions(raw: unknown, errors: ConfigIssue[]): TemplateOptions {
  const opts: TemplateOptions = { ...DEFAULT_TEMPLATE_OPTIONS };
  if (raw === undefined || raw === null) return opts;
  if (!isPlainObject(raw)) {
    errors.push({ path: 'templateOptions', message: `must be a map (${TEMPLATE_OPTION_NAMES.join(', ')}), got ${describeValue(raw)}` });
    return opts;
  }
  for (const [k, v] of Object.entries(raw)) {
    const path = joinPath('templateOptions', k);
    if (!(TEMPLATE_OPTION_NAMES as string[]).includes(k)) errors.push({ path, message: unknownKeyMessage(k, TEMPLATE_OPTION_NAMES) });
    else if (k === 'missingKey') opts.missingKey = readMissingKey(v, path, errors);
    else opts.allowEnv = readBoolean(v, path, false, errors);
  }
  return opts;
}

function readIgnoredNamespaces(raw: unknown, errors: ConfigIssue[]): string[] {
  const out = [...ISTIO_IGNORED_NAMESPACES];
  if (raw === undefined || raw === null) return out;
  const list = readStringList(raw, 'ignoredNamespaces', errors) ?? [];
  list.forEach((ns, i) => {
    const err = namespaceNameError(ns);
    if (err) errors.push({ path: joinPath('ignoredNamespaces', i), message: err });
    else if (!out.includes(ns)) out.push(ns);
  });
  return out;
}

function readBoolean(raw: unknown, path: string, fallback: boolean, errors: ConfigIssue[]): boolean {
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw === 'boolean') return raw;
  errors.push({ path, message: `must be true or false, got ${describeValue(raw)}` });
  return fallback;
}

function readCompatibility(raw: unknown, errors: ConfigIssue[]): CompatibilityMode | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'string' && (COMPATIBILITY_MODES as readonly string[]).includes(raw)) return raw as CompatibilityMode;
  const guess = typeof raw === 'string' ? closest(raw, COMPATIBILITY_MODES) : undefined;
  errors.push({
    path: 'compatibility',
    message: `must be ${COMPATIBILITY_MODES.map((m) => `"${m}"`).join(' or ')} (leave it out to detect Istio's config), got ${typeof raw === 'string' ? `"${raw}"` : describeValue(raw)}${guess !== undefined ? ` (did you mean "${guess}"?)` : ''}`,
  });
  return undefined;
}

/** An unquoted y/yes/true/on is YAML 1.1's true, and the word is lost: it stands for all of them. */
const YAML_TRUE_WORDS = ['y', 'yes', 'true', 'on'];
const INJECTION_VALUE_NAMES: (keyof InjectionValues)[] = ['inject', 'injected'];

/**
 * `injectionValues.inject`: the opt-in values of the inject key, compared without case (the
 * tutorial takes y, yes, true, on); unset: exactly "true" (Istio). `injectionValues.injected`:
 * status values that mean "injected by another webhook" (the tutorial writes `injected`).
 */
function readInjectionValues(raw: unknown, errors: ConfigIssue[]): InjectionValues {
  const out: InjectionValues = { inject: null, injected: [] };
  if (raw === undefined || raw === null) return out;
  if (!isPlainObject(raw)) {
    errors.push({ path: 'injectionValues', message: `must be a map (inject: [y, yes, true, on], injected: [injected]), got ${describeValue(raw)}` });
    return out;
  }
  for (const [k, v] of Object.entries(raw)) {
    const path = joinPath('injectionValues', k);
    if (!(INJECTION_VALUE_NAMES as string[]).includes(k)) {
      errors.push({ path, message: unknownKeyMessage(k, INJECTION_VALUE_NAMES) });
      continue;
    }
    if (!Array.isArray(v)) {
      errors.push({ path, message: `must be a list of values, got ${describeValue(v)}` });
      continue;
    }
    let list: string[] = [];
    v.forEach((item: unknown, i) => {
      // YAML 1.1 reads unquoted y/yes/on/true as booleans: take them back as the word meant.
      if (typeof item === 'string' && item !== '') list.push(lowerAscii(item));
      else if (item === true) list.push(...YAML_TRUE_WORDS);
      else errors.push({ path: joinPath(path, i), message: `must be a non-empty string, got ${describeValue(item)}${quoteHint(item)}` });
    });
    list = [...new Set(list)];
    if (k === 'inject') {
      if (list.includes('false')) errors.push({ path, message: '"false" cannot be an opt-in value (it is how a pod opts out)' });
      out.inject = list;
    } else out.injected = list;
  }
  return out;
}

const MISSING_KEY_MODES = ['default', 'zero', 'error'] as const;

function readMissingKey(raw: unknown, path: string, errors: ConfigIssue[]): TemplateOptions['missingKey'] {
  if (raw === undefined || raw === null) return 'default';
  if (typeof raw === 'string' && (MISSING_KEY_MODES as readonly string[]).includes(raw)) return raw as TemplateOptions['missingKey'];
  errors.push({
    path,
    message: `must be ${MISSING_KEY_MODES.map((m) => `"${m}"`).join(', ')} (Go's missingkey option), got ${typeof raw === 'string' ? `"${raw}"` : describeValue(raw)}`,
  });
  return 'default';
}
