/**
 * @module config/build-config
 * Builds a {@link LoadedConfig} from the text of the `config` and `values` documents: parse
 * (YAML 1.1, values may be JSON), validate, compile every template and selector once, hash,
 * freeze. Pure (no file access), so the loader, reload and tests share it. Every problem is
 * collected and thrown as one `ConfigError` naming the file, line and key path.
 */
import { createHash } from 'node:crypto';
import { ConfigError, TemplateError } from '../errors.js';
import type { Template } from '../template/index.js';
import { deepFreeze, isPlainObject, type JsonObject } from '../util/json.js';
import { detectCompatibility, istioNativeSidecars } from './compat.js';
import { joinPath, type ConfigIssue } from './issues.js';
import type { ConfigSource, InjectorConfig, LoadedConfig, TemplateOptions } from './types.js';
import { validateConfig, type ValidateOptions } from './validate-config.js';
import { checkBuiltinValues } from './builtin-values.js';
import type { ValuesIssue } from './values-schema.js';
import { parseKubeYaml, YamlSyntaxError, type ParsedYaml } from '../yaml/index.js';
import { describeValue } from '../util/describe.js';

/** Makes the template parser for one config (the function map depends on its options). */
export type TemplateCompilerFactory = (options: TemplateOptions) => (name: string, text: string) => Template;

export interface BuildOptions extends ValidateOptions {
  compile: TemplateCompilerFactory;
  /** Namespaces to ignore besides the config's (e.g. the injector's own, known only at run time). */
  extraIgnoredNamespaces?: readonly string[];
  /**
   * The revision this injector serves (`serve --revision`): becomes `values.revision`, which is
   * `.Revision` in templates and the status annotation's `revision`, as in Istio's revisioned
   * ConfigMaps. A different non-empty `values.revision` is an error, not a silent override.
   */
  revision?: string;
}

export interface ConfigTexts {
  config: string;
  /** Name used in messages, e.g. `/etc/istio/inject/config`. */
  configFile: string;
  /** The separate values document; undefined when there is none. */
  values?: string;
  valuesFile?: string;
  /** metadata.name of the ConfigMap the texts came from (detects Istio's own ConfigMap). */
  configMapName?: string;
  /** Istio's mesh config (`data.mesh` of the `istio` ConfigMap found beside it): values.meshConfig unless the values set one. */
  mesh?: string;
}

interface FileIssue extends ConfigIssue {
  file: string;
}

export function buildConfig(texts: ConfigTexts, source: ConfigSource, options: BuildOptions): LoadedConfig {
  try {
    return build(texts, source, options);
  } catch (err) {
    if (err instanceof RangeError) {
      throw new ConfigError('SI_CONFIG_INVALID', `${texts.configFile}: the config is nested too deeply to process`, { cause: err });
    }
    throw err;
  }
}

function build(texts: ConfigTexts, source: ConfigSource, options: BuildOptions): LoadedConfig {
  const errors: FileIssue[] = [];
  const warnings: FileIssue[] = [];
  const configDoc = parseYamlOrThrow(texts.config, texts.configFile, 'config');
  const root = configDoc.value;
  if (root === null || root === undefined) {
    throw invalid([{ file: texts.configFile, path: '', message: 'the config is empty; a half-written file? (write at least "policy: enabled")' }]);
  }
  if (!isPlainObject(root)) {
    throw invalid([{ file: texts.configFile, path: '', message: `the config must be a map of keys (policy, templates, ...), got ${describeValue(root)}` }]);
  }
  // A ConfigMap manifest (`kubectl get cm istio-sidecar-injector -o yaml`): read its data keys.
  if (root.kind === 'ConfigMap' && isPlainObject(root.data)) return fromConfigMap(root, root.data, texts, source, options);

  const at = (doc: ParsedYaml, file: string, list: FileIssue[]) => (issue: ConfigIssue) =>
    list.push({ ...issue, file, line: issue.line ?? doc.lineOf(pathSegments(issue.path)) });

  for (const w of configDoc.warnings) warnings.push({ file: texts.configFile, path: '', message: w });
  const validated = validateConfig(root, options);
  validated.errors.forEach(at(configDoc, texts.configFile, errors));
  validated.warnings.forEach(at(configDoc, texts.configFile, warnings));

  // values: a separate document (directory / ConfigMap layout) or a `values:` key (single file).
  let values: JsonObject = {};
  // Where the values came from, to name the file and line of a problem in them.
  let valuesAt: ValuesSource | undefined;
  const inline = root.values;
  if (texts.values !== undefined && inline !== undefined) {
    errors.push({
      file: texts.configFile,
      path: 'values',
      line: configDoc.lineOf(['values']),
      message: `values are given twice (here and in ${texts.valuesFile ?? 'the values file'}); keep one`,
    });
  } else if (texts.values !== undefined) {
    const file = texts.valuesFile ?? 'values';
    const parsed = parseValues(texts.values, file);
    checkValues(parsed.value, '', file, parsed.doc, errors);
    if (isPlainObject(parsed.value)) {
      values = parsed.value as JsonObject;
      valuesAt = { file, base: [], doc: parsed.doc, text: texts.values };
    }
  } else if (typeof inline === 'string') {
    const file = `${texts.configFile} (values)`;
    const parsed = parseValues(inline, file);
    checkValues(parsed.value, '', file, parsed.doc, errors);
    if (isPlainObject(parsed.value)) {
      values = parsed.value as JsonObject;
      valuesAt = { file, base: [], doc: parsed.doc, text: inline };
    }
  } else if (inline !== undefined && inline !== null) {
    checkValues(inline, 'values', texts.configFile, configDoc, errors);
    if (isPlainObject(inline)) {
      values = inline as JsonObject;
      valuesAt = { file: texts.configFile, base: ['values'], doc: configDoc };
    }
  }
  // The values as given (before --revision and the mesh config are merged in), against what the built-in template reads.
  if (valuesAt !== undefined) checkKnownValues(validated.config.templates, values, valuesAt, errors, warnings);

  if (options.revision !== undefined && options.revision !== '') {
    const given = values.revision;
    if (typeof given === 'string' && given !== '' && given !== options.revision) {
      errors.push({
        file: texts.valuesFile ?? texts.configFile,
        path: 'revision',
        message: `values.revision is "${given}" but this injector serves revision "${options.revision}" (--revision): make them agree, or drop one`,
      });
    } else {
      values = { ...values, revision: options.revision };
    }
  }
  if (texts.mesh !== undefined && values.meshConfig === undefined) {
    const mesh = parseYamlOrThrow(texts.mesh, `${texts.configFile} (the istio ConfigMap's data.mesh)`, 'mesh config').value;
    if (isPlainObject(mesh)) values = { ...values, meshConfig: mesh as JsonObject };
  }
  const compatibility = detectCompatibility({ explicit: validated.compatibility, configMapName: texts.configMapName, values });
  const config: InjectorConfig = { ...validated.config, values, compatibility };
  // Istio's ConfigMap has no nativeSidecars key: in Istio mode istiod's switch in the values decides.
  if (compatibility.mode === 'istio' && !validated.nativeSidecarsExplicit) config.nativeSidecars = istioNativeSidecars(values).value;
  for (const ns of options.extraIgnoredNamespaces ?? []) if (!config.ignoredNamespaces.includes(ns)) config.ignoredNamespaces.push(ns);

  // Compile every template even after other errors, so one load reports all of them.
  const compiledTemplates = new Map<string, Template>();
  if (Object.keys(config.templates).length > 0) {
    const compile = options.compile(config.templateOptions);
    for (const [name, text] of Object.entries(config.templates)) {
      try {
        compiledTemplates.set(name, compile(name, text));
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        const path = ['templates', name];
        const templateLine = /^template: [^\n]*?:(\d+):/.exec(err.message)?.[1];
        const contentLine = configDoc.blockContentLine(path);
        const line = templateLine !== undefined && contentLine !== undefined ? contentLine + Number(templateLine) - 1 : configDoc.lineOf(path);
        errors.push({ file: texts.configFile, path: joinPath('templates', name), line, message: err.message });
      }
    }
  }

  if (errors.length > 0) throw invalid(errors);
  return freezeConfig({
    ...config,
    compiledTemplates,
    compiledSelectors: validated.selectors,
    // None here: the composition (src/profiles) binds the profile set to the built config.
    profiles: [],
    hash: configHash(config),
    source,
    warnings: warnings.map(formatIssue),
  });
}

/** The data key of the tutorial's ConfigMap (sidecar-injector-webhook-configmap). */
const TUTORIAL_CONFIG_KEY = 'sidecarconfig.yaml';

function fromConfigMap(
  root: Record<string, unknown>,
  data: Record<string, unknown>,
  texts: ConfigTexts,
  source: ConfigSource,
  options: BuildOptions,
): LoadedConfig {
  const file = texts.configFile;
  // The tutorial's ConfigMap holds its sidecar under sidecarconfig.yaml: the static form.
  if (data.config === undefined && typeof data[TUTORIAL_CONFIG_KEY] === 'string') {
    return build({ ...texts, config: data[TUTORIAL_CONFIG_KEY] as string, configFile: `${file} (data["${TUTORIAL_CONFIG_KEY}"])` }, source, options);
  }
  if (typeof data.config !== 'string') {
    throw invalid([{ file, path: 'data.config', message: 'the ConfigMap has no "config" key (a string holding the injector config)' }]);
  }
  const values = data.values;
  if (values !== undefined && typeof values !== 'string') {
    throw invalid([{ file, path: 'data.values', message: `must be a string holding JSON or YAML, got ${describeValue(values)}` }]);
  }
  const name = isPlainObject(root.metadata) && typeof root.metadata.name === 'string' ? root.metadata.name : undefined;
  return build(
    { config: data.config, configFile: `${file} (data.config)`, values, valuesFile: `${file} (data.values)`, configMapName: name, mesh: texts.mesh },
    source,
    options,
  );
}

function parseYamlOrThrow(text: string, file: string, what: string): ParsedYaml {
  try {
    return parseKubeYaml(text);
  } catch (err) {
    if (err instanceof YamlSyntaxError) {
      throw invalid([{ file, path: '', line: err.line, message: `the ${what} is not valid YAML: ${err.message}` }]);
    }
    throw err;
  }
}

/** Values are JSON in Istio's ConfigMap; YAML is accepted too (JSON.parse first: exact and fast). */
function parseValues(text: string, file: string): { value: unknown; doc?: ParsedYaml } {
  if (text.trim() === '') {
    throw invalid([{ file, path: '', message: 'the values document is empty; a half-written file? (write {} for no values)' }]);
  }
  if (text.trimStart().startsWith('{')) {
    try {
      return { value: JSON.parse(text) };
    } catch {
      // Fall through: the YAML parser reports the position of the problem.
    }
  }
  const doc = parseYamlOrThrow(text, file, 'values document');
  return { value: doc.value, doc };
}

/** Values must be a map of JSON data (no .inf/.nan): they are hashed and given to templates as JSON. */
function checkValues(value: unknown, base: string, file: string, doc: ParsedYaml | undefined, errors: FileIssue[]): void {
  if (!isPlainObject(value)) {
    errors.push({ file, path: base, line: doc?.lineOf(pathSegments(base)), message: `values must be a map (JSON object), got ${describeValue(value)}` });
    return;
  }
  const stack: [unknown, string][] = [[value, base]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) {
      errors.push({ file, path, line: doc?.lineOf(pathSegments(path)), message: `${String(v)} is not a JSON number; quote it if you mean a string` });
    } else if (Array.isArray(v)) {
      v.forEach((item: unknown, i) => stack.push([item, joinPath(path, i)]));
    } else if (isPlainObject(v)) {
      for (const [k, item] of Object.entries(v)) stack.push([item, joinPath(path, k)]);
    }
  }
}

interface ValuesSource {
  file: string;
  /** The values' path in the document (`values` for the inline map of a one-file config). */
  base: string[];
  doc?: ParsedYaml;
  /** The text, when it was read as JSON (no lines kept): re-read as YAML for lines on a problem. */
  text?: string;
}

/** The built-in template's values schema (config/builtin-values), when the config uses that template. */
function checkKnownValues(templates: Record<string, string>, values: JsonObject, at: ValuesSource, errors: FileIssue[], warnings: FileIssue[]): void {
  const found = checkBuiltinValues(templates, values);
  if (found === undefined || found.errors.length + found.warnings.length === 0) return;
  let doc = at.doc;
  if (doc === undefined && at.text !== undefined) {
    try {
      doc = parseKubeYaml(at.text);
    } catch {
      // JSON that YAML 1.1 reads otherwise: no lines, the key paths still say where.
    }
  }
  const toIssue = (i: ValuesIssue): FileIssue => ({
    file: at.file,
    path: at.base.length > 0 ? `${at.base.join('.')}${i.path === '' ? '' : `.${i.path}`}` : i.path,
    line: doc?.lineOf([...at.base, ...i.at]),
    message: i.message,
  });
  for (const i of found.errors) errors.push(toIssue(i));
  for (const i of found.warnings) warnings.push(toIssue(i));
}

/** Inverse of joinPath, for line look-ups: `a.b[0]["x.y"]` -> ['a', 'b', 0, 'x.y']. */
function pathSegments(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (const m of path.matchAll(re)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[3] !== undefined) out.push(JSON.parse(m[3]) as string);
  }
  return out;
}

function formatIssue(i: FileIssue): string {
  const where = i.line !== undefined ? `${i.file}:${i.line}` : i.file;
  return i.path ? `${where}: ${i.path}: ${i.message}` : `${where}: ${i.message}`;
}

function invalid(issues: FileIssue[]): ConfigError {
  const lines = issues.map(formatIssue);
  const message = lines.length === 1 ? lines[0] : `the injector config has ${lines.length} problems:\n  ${lines.join('\n  ')}`;
  return new ConfigError('SI_CONFIG_INVALID', message, {
    details: { issues: issues.map((i) => ({ file: i.file, path: i.path, line: i.line, message: i.message })) },
  });
}

/** sha256 of the config with keys sorted: equal content gives an equal hash, whatever the layout. */
function configHash(config: InjectorConfig): string {
  return createHash('sha256').update(stableJson(config)).digest('hex');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(obj[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Deep-freeze the data parts: one config object is shared by every request until the next reload. */
function freezeConfig(config: LoadedConfig): LoadedConfig {
  // Maps (compiled templates) are not data; frozen parts were frozen whole already.
  for (const [k, v] of Object.entries(config)) if (k !== 'compiledTemplates') deepFreeze(v, (node) => node instanceof Map || Object.isFrozen(node));
  return Object.freeze(config);
}
