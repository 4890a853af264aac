/**
 * @module config/load
 * Where configs come from: `--config PATH` (a directory laid out like the mounted
 * istio-sidecar-injector ConfigMap, with `config` and `values` files, or one YAML file with
 * the same keys plus `values:`, or a ConfigMap manifest), text in memory (reload, tests), or
 * the default embedded in the package. Templates are compiled here with the real engine.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { packageFilePath, readPackageFile } from '../util/package-files.js';
import { templateFuncs } from '../template/funcs/index.js';
import { parseTemplate, type TemplateEngine } from '../template/index.js';
import { buildConfig, type BuildOptions, type TemplateCompilerFactory } from './build-config.js';
import { selectConfigDocument, splitPick } from './select-document.js';
import type { ConfigSource, LoadedConfig } from './types.js';

/** A config file larger than this is not a config (and would be slow to parse). */
const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;

export type LoadOptions = Omit<BuildOptions, 'compile'>;

/** Environment variable that picks the template engine: `compiled` (default) or `interpreter`. */
export const TEMPLATE_ENGINE_ENV = 'SIDECAR_INJECTOR_TEMPLATE_ENGINE';

/**
 * The engine renders use: the compiled closures, unless the environment asks for the reference
 * interpreter (to rule the compiler out when a render looks wrong).
 */
export function templateEngine(env: NodeJS.ProcessEnv = process.env): TemplateEngine {
  const value = env[TEMPLATE_ENGINE_ENV];
  if (value === undefined || value === '' || value === 'compiled') return 'compiled';
  if (value === 'interpreter') return 'interpreter';
  throw new ConfigError(
    'SI_CONFIG_INVALID',
    `${TEMPLATE_ENGINE_ENV}=${JSON.stringify(value)} is not a template engine; use compiled (the default) or interpreter`,
  );
}

/**
 * Parses each template with the Go text/template engine and the function map its options
 * allow, and compiles it to closures once here, so every render (webhook, CLI) runs compiled.
 */
const compileWithEngine: TemplateCompilerFactory = (options) => {
  const funcs = templateFuncs({ allowEnv: options.allowEnv });
  const engine = templateEngine();
  return (name, text) => parseTemplate(name, text, { funcs, engine });
};

/**
 * Load the config at `path`: a directory holding `config` (and usually `values`), as a
 * ConfigMap is mounted (its `..data` symlink is resolved once so both files come from the same
 * version), or a single YAML file. Throws `ConfigError` SI_CONFIG_READ / SI_CONFIG_INVALID.
 */
export async function loadConfig(given: string, options: LoadOptions = {}): Promise<LoadedConfig> {
  // `FILE#NAME` picks a ConfigMap out of a multi-document file (unless a file has that very name).
  const split = splitPick(given);
  const pick = split.pick !== undefined && !(await exists(given)) ? split.pick : undefined;
  const path = pick !== undefined ? split.file : given;
  const info = await statOrThrow(path);
  if (info.isDirectory()) {
    // A mounted ConfigMap: `config -> ..data/config`, `..data -> ..2024_01_01_...`; read one snapshot.
    const dir = await realpath(join(path, '..data')).catch(() => path);
    const configName = await oneOf(dir, path, 'config', CONFIG_NAMES);
    if (configName === undefined) {
      throw new ConfigError(
        'SI_CONFIG_READ',
        `${path} is a directory without a config file; --config DIR takes a directory holding ${CONFIG_NAMES.join(', ')} (and ${VALUES_NAMES.join(', ')}), or one YAML file`,
      );
    }
    const valuesName = await oneOf(dir, path, 'values', VALUES_NAMES);
    const meshName = await oneOf(dir, path, 'mesh config', MESH_NAMES);
    const configFile = join(path, configName);
    const valuesFile = join(path, valuesName ?? 'values');
    const config = (await readText(join(dir, configName), configFile, undefined)) as string;
    const values = valuesName === undefined ? undefined : await readText(join(dir, valuesName), valuesFile, undefined);
    const mesh = meshName === undefined ? undefined : await readText(join(dir, meshName), join(path, meshName), undefined);
    const files = [configFile, ...(valuesName !== undefined ? [valuesFile] : []), ...(meshName !== undefined ? [join(path, meshName)] : [])];
    const source: ConfigSource = { kind: 'directory', path, files };
    const loaded = buildConfig({ config, configFile, values, valuesFile, mesh }, source, { ...options, compile: compileWithEngine });
    if (values !== undefined) return loaded;
    return Object.freeze({
      ...loaded,
      warnings: Object.freeze([...loaded.warnings, `${path}: no values file (${VALUES_NAMES.join(', ')}); .Values is empty`]) as string[],
    });
  }
  if (!info.isFile()) throw new ConfigError('SI_CONFIG_READ', `${path} is not a regular file or a directory; --config takes a directory or a YAML file`);
  const text = (await readText(path, path, undefined)) as string;
  const selected = selectConfigDocument(text, path, pick);
  return buildConfig(
    { config: selected.text, configFile: selected.name, mesh: selected.mesh },
    { kind: 'file', path, files: [path] },
    { ...options, compile: compileWithEngine },
  );
}

/**
 * Build a config from text: the `config` document and, optionally, the `values` document
 * (JSON or YAML). `name` is used in messages. Pure: no file access.
 */
export function parseConfig(configText: string, valuesText?: string, name = 'config', options: LoadOptions = {}): LoadedConfig {
  const valuesFile = name === 'config' ? 'values' : `${name} (values)`;
  return buildConfig(
    { config: configText, configFile: name, values: valuesText, valuesFile },
    { kind: 'text', path: name, files: [] },
    { ...options, compile: compileWithEngine },
  );
}

let cachedDefault: LoadedConfig | undefined;

/**
 * The config embedded in the package (`defaults/config.yaml` + `defaults/values.yaml`), loaded
 * once; with options (a revision) it is built anew each time.
 */
export function defaultConfig(options: LoadOptions = {}): LoadedConfig {
  const plain = Object.keys(options).length === 0;
  if (plain && cachedDefault) return cachedDefault;
  let config: string;
  let values: string;
  try {
    config = readPackageFile('defaults/config.yaml');
    values = readPackageFile('defaults/values.yaml');
  } catch (err) {
    throw new ConfigError(
      'SI_CONFIG_READ',
      `the built-in default config is missing from the package (${packageFilePath('defaults/config.yaml')}): ${errText(err)}; reinstall the package`,
      { cause: err },
    );
  }
  const files = [packageFilePath('defaults/config.yaml'), packageFilePath('defaults/values.yaml')];
  const built = buildConfig(
    { config, configFile: 'built-in defaults/config.yaml', values, valuesFile: 'built-in defaults/values.yaml' },
    { kind: 'builtin', files },
    { ...options, compile: compileWithEngine },
  );
  if (plain) cachedDefault = built;
  return built;
}

/**
 * The file names a config directory may use, in the layouts users have: a mounted ConfigMap
 * (`config`, `values`), a copy of this package's defaults/ (`config.yaml`, `values.yaml`), and
 * Istio's rendered injector files (`inject-config.yaml` with `values.json`, or istioctl's
 * `inject-values.yaml`; `mesh.yaml`/`mesh-config.yaml` for the mesh config).
 */
const CONFIG_NAMES = ['config', 'config.yaml', 'config.yml', 'inject-config.yaml', 'inject-config.yml'] as const;
const VALUES_NAMES = ['values', 'values.yaml', 'values.yml', 'values.json', 'inject-values.yaml', 'inject-values.json'] as const;
const MESH_NAMES = ['mesh', 'mesh.yaml', 'mesh-config.yaml'] as const;

/** The one of `names` present in `dir`; two present is ambiguous and refused. */
async function oneOf(dir: string, shown: string, role: string, names: readonly string[]): Promise<string | undefined> {
  const present: string[] = [];
  for (const name of names) if (await exists(join(dir, name))) present.push(name);
  if (present.length > 1) throw new ConfigError('SI_CONFIG_READ', `${shown} holds more than one ${role} file (${present.join(', ')}): keep one`);
  return present[0];
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function statOrThrow(path: string) {
  try {
    return await stat(path);
  } catch (err) {
    throw new ConfigError('SI_CONFIG_READ', `cannot read the injector config at ${path}: ${errText(err)}`, { cause: err });
  }
}

/**
 * Read one config file. `onMissing`: `optional` returns undefined when the file does not
 * exist; a string is the error message to give instead; undefined reports the OS error.
 */
async function readText(realPath: string, shownPath: string, onMissing: 'optional' | string | undefined): Promise<string | undefined> {
  try {
    const info = await stat(realPath);
    if (!info.isFile()) throw new ConfigError('SI_CONFIG_READ', `${shownPath} is not a regular file`);
    if (info.size > MAX_CONFIG_FILE_BYTES) {
      throw new ConfigError('SI_CONFIG_READ', `${shownPath} is ${info.size} bytes, over the ${MAX_CONFIG_FILE_BYTES}-byte limit for a config file`);
    }
    return await readFile(realPath, 'utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    if (missing && onMissing === 'optional') return undefined;
    if (missing && onMissing !== undefined) throw new ConfigError('SI_CONFIG_READ', onMissing, { cause: err });
    throw new ConfigError('SI_CONFIG_READ', `cannot read ${shownPath}: ${errText(err)}`, { cause: err });
  }
}

function errText(err: unknown): string {
  if (err && typeof err === 'object' && 'code' in err && (err as NodeJS.ErrnoException).code === 'ENOENT') return 'no such file or directory';
  return err instanceof Error ? err.message : String(err);
}
