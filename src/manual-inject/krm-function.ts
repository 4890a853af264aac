/**
 * @module manual-inject/krm-function
 * KRM function mode (`kpt fn eval --exec`, `kpt fn render`, kustomize exec transformers): the
 * input is one `ResourceList`; its items are injected (or uninjected) in place and written back
 * with their orchestrator annotations, `functionConfig` is returned unchanged, and skips,
 * warnings and errors become `results` entries pointing at the resource and field.
 *
 * functionConfig: a ConfigMap whose `data.config` (+ `data.values`) holds an injector config in
 * the single-file or ConfigMap layout replaces `--config`; `data.namespace` replaces
 * `--namespace` (`kpt fn eval DIR --exec ./fn -- namespace=prod` makes such a ConfigMap).
 * All or nothing, as in file mode: if any item fails, every item is returned as it came, with
 * the errors as results, and the exit code is 1.
 */
import { parseConfig } from '../profiles/index.js';
import type { LoadedConfig } from '../config/types.js';
import { InjectorError, toInjectorError } from '../errors.js';
import { krmExitCode, resultFor, writeResourceList, type KrmResult, type ResourceList } from '../manifest-io/index.js';
import { formatPath } from '../yaml/index.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { injectObject, type ObjectResult } from './inject-manifest.js';
import { uninjectObject } from './uninject-manifest.js';
import type { DocumentNote, ManualOptions } from './types.js';

export type KrmOperation = 'inject' | 'uninject';

export interface KrmSettings {
  /** The injector config from functionConfig, if it carries one. */
  config?: LoadedConfig;
  namespace?: string;
  /** Remarks about the functionConfig (unused keys, ignored kinds). */
  results: KrmResult[];
}

export interface KrmOutput {
  /** The ResourceList to write to stdout. */
  text: string;
  results: KrmResult[];
  exitCode: 0 | 1;
  /** The first error, for a caller that also reports on stderr. */
  error?: InjectorError;
}

const FUNCTION_CONFIG_KEYS = ['config', 'values', 'namespace'];

/** Read the functionConfig. Throws ConfigError when `data.config` is not a valid injector config. */
export function krmSettings(rl: ResourceList): KrmSettings {
  const fc = rl.functionConfig;
  const settings: KrmSettings = { results: [] };
  if (fc === undefined) return settings;
  const name = isPlainObject(fc.metadata) && typeof fc.metadata.name === 'string' ? fc.metadata.name : '';
  if (fc.kind !== 'ConfigMap' || !(fc.apiVersion === 'v1' || fc.apiVersion === undefined)) {
    settings.results.push({
      severity: 'warning',
      message: `functionConfig ${String(fc.kind)} "${name}" is not used; give a ConfigMap with data.config (and data.values, data.namespace)`,
    });
    return settings;
  }
  const data = isPlainObject(fc.data) ? fc.data : {};
  for (const key of Object.keys(data)) {
    if (!FUNCTION_CONFIG_KEYS.includes(key)) {
      settings.results.push({ severity: 'warning', message: `functionConfig data.${key} is not used; known keys: ${FUNCTION_CONFIG_KEYS.join(', ')}` });
    }
  }
  if (typeof data.namespace === 'string' && data.namespace !== '') settings.namespace = data.namespace;
  if (data.values !== undefined && data.config === undefined) {
    settings.results.push({ severity: 'warning', message: 'functionConfig data.values is ignored without data.config' });
  }
  if (typeof data.config === 'string') {
    const values = typeof data.values === 'string' ? data.values : undefined;
    settings.config = parseConfig(data.config, values, `functionConfig ConfigMap "${name}" data.config`);
  }
  return settings;
}

/** Run the operation over the items. Never throws for a bad item: errors become results. */
export function runKrm(rl: ResourceList, operation: KrmOperation, config: LoadedConfig, options: ManualOptions, extra: readonly KrmResult[] = []): KrmOutput {
  const results: KrmResult[] = [...extra];
  const errors: KrmResult[] = [];
  let first: InjectorError | undefined;
  const items = rl.items.map((item, i) => {
    const where = { file: rl.document.source, document: rl.document.index };
    let result: ObjectResult;
    try {
      result = (operation === 'inject' ? injectObject : uninjectObject)(item, i, where, config, options);
    } catch (err) {
      const e = toInjectorError(err);
      first ??= e;
      errors.push(resultFor(item, 'error', `[${e.code}] ${e.message}`));
      return item;
    }
    for (const note of result.notes) results.push(noteResult(item, note));
    return result.value as JsonObject;
  });
  if (errors.length > 0) return { ...output(rl, rl.items, [...results, ...errors]), error: first };
  return output(rl, items, results);
}

/** The answer when nothing can be done (e.g. a broken functionConfig): items as they came, one error result. */
export function krmFailure(rl: ResourceList, err: unknown, extra: readonly KrmResult[] = []): KrmOutput {
  const e = toInjectorError(err);
  return { ...output(rl, rl.items, [...extra, { severity: 'error', message: `[${e.code}] ${e.describe()}` }]), error: e };
}

function output(rl: ResourceList, items: readonly JsonObject[], results: KrmResult[]): KrmOutput {
  return { text: writeResourceList(rl, items, results), results, exitCode: krmExitCode(results) };
}

function noteResult(item: JsonObject, note: DocumentNote): KrmResult {
  const field = note.path.length > 0 ? formatPath(note.path) : undefined;
  const prefix = note.type === 'skipped' ? 'skipped: ' : note.type === 'not-injected' ? 'not injected: ' : '';
  const suffix = note.reason !== undefined ? ` (${note.reason})` : '';
  const result = resultFor(item, note.severity, `${prefix}${note.message}${suffix}`, field);
  // A template inside a List item: say which workload, since resourceRef names the List.
  if (note.item !== undefined) result.message = `${note.kind} "${note.name}" at ${note.item}: ${result.message}`;
  return result;
}
