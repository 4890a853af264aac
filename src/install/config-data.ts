/**
 * @module install/config-data
 * The injector ConfigMap's two keys, `config` and `values` (Istio's istio-sidecar-injector
 * layout, which `serve --config DIR` reads when the ConfigMap is mounted). The config is loaded
 * and validated first, so `manifests` never ships a config the server would refuse; the text
 * itself is kept verbatim where it can be (comments survive), and only a single-file config
 * with an inline `values:` key is split in two.
 */
import { readFile } from 'node:fs/promises';
import { defaultConfig, loadConfig } from '../profiles/index.js';
import type { LoadedConfig } from '../config/types.js';
import { selectConfigDocument, splitPick } from '../config/select-document.js';
import { parseKubeYaml } from '../yaml/index.js';
import { ConfigError } from '../errors.js';
import { stringifyObject } from '../yaml/index.js';
import { isPlainObject, type JsonValue } from '../util/json.js';
import { packageFilePath, readPackageFile } from '../util/package-files.js';

export interface ConfigMapData {
  config: string;
  values: string;
  /** The validated config: the injection keys and ignored namespaces the webhook scopes need. */
  loaded: LoadedConfig;
}

/** The built-in config files, for the Helm chart's copies and their staleness test. */
export const BUILTIN_CONFIG_FILES = {
  config: packageFilePath('defaults/config.yaml'),
  values: packageFilePath('defaults/values.yaml'),
} as const;

/** Load and validate the config at `path` (the built-in one when undefined) and give its ConfigMap data. */
export async function configMapData(path?: string): Promise<ConfigMapData> {
  if (path === undefined) {
    const loaded = defaultConfig();
    return { config: readPackageFile('defaults/config.yaml'), values: readPackageFile('defaults/values.yaml'), loaded };
  }
  const loaded = await loadConfig(path);
  if (loaded.source.kind === 'directory') {
    const [configFile, valuesFile] = loaded.source.files;
    return { config: await read(configFile), values: valuesFile === undefined ? '{}\n' : await read(valuesFile), loaded };
  }
  // The file may be FILE#NAME or hold several objects: ship the document the loader chose.
  const { file, pick } = splitPick(path);
  const usePick = pick !== undefined && loaded.source.path !== path;
  const selected = selectConfigDocument(await read(usePick ? file : path), usePick ? file : path, usePick ? pick : undefined);
  const data = splitSingleFile(selected.text, selected.name);
  // The data keys go verbatim: Istio's values carry global.proxy, so the server, which sees only
  // the mounted keys (not the ConfigMap's name), detects Istio mode from them as the CLI did.
  const values = loaded.values.meshConfig !== undefined && selected.mesh !== undefined ? `${JSON.stringify(loaded.values, null, 2)}\n` : data.values;
  return { config: data.config, values, loaded };
}

/**
 * A single YAML file: a ConfigMap manifest (its data keys), a config with `values:` inline
 * (split: the config re-emitted without it, the values as JSON, as Istio stores them), or a
 * config alone (values `{}`).
 */
export function splitSingleFile(text: string, name: string): { config: string; values: string } {
  const root = parseKubeYaml(text).value;
  if (!isPlainObject(root)) throw new ConfigError('SI_CONFIG_INVALID', `${name}: the config must be a map of keys`);
  if (root.kind === 'ConfigMap' && isPlainObject(root.data)) {
    const { config, values } = root.data;
    if (typeof config !== 'string') throw new ConfigError('SI_CONFIG_INVALID', `${name}: the ConfigMap has no "config" key`);
    return { config, values: typeof values === 'string' ? values : '{}\n' };
  }
  if (!Object.hasOwn(root, 'values')) return { config: text, values: '{}\n' };
  const { values, ...rest } = root;
  const valuesText = typeof values === 'string' ? values : `${JSON.stringify(values ?? {}, null, 2)}\n`;
  return { config: stringifyObject(rest as JsonValue), values: valuesText };
}

async function read(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError('SI_CONFIG_READ', `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
}
