/**
 * @module inject/select
 * Which templates render for a pod (Istio's selectTemplates/resolveAliases): the names in the
 * templates annotation (comma-separated, trimmed) when the pod has it, else the config's
 * `defaultTemplates`; each name that is an alias expands to its templates, one level deep
 * (an alias naming an alias is not expanded again, as in Istio). Order is kept and is the
 * order the overlays are merged in. Ours: empty entries (`a,,b`, a trailing comma) are
 * ignored where Istio would fail on a template named "".
 */
import type { LoadedConfig } from '../config/types.js';
import { InjectionError } from '../errors.js';
import { quote } from '../util/describe.js';

export interface Selection {
  /** Template names, aliases expanded, in merge order. */
  names: string[];
  /** Where they came from, for messages. */
  source: 'annotation' | 'defaultTemplates';
}

export function selectTemplates(
  annotations: Readonly<Record<string, unknown>>,
  config: Pick<LoadedConfig, 'defaultTemplates' | 'aliases' | 'compiledTemplates' | 'injectionKeys'>,
): Selection {
  const key = config.injectionKeys.templates;
  const raw = Object.hasOwn(annotations, key) ? annotations[key] : undefined;
  let requested: string[];
  let source: Selection['source'];
  if (typeof raw === 'string') {
    requested = raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    source = 'annotation';
    if (requested.length === 0) {
      throw new InjectionError(
        'SI_INJECT_TEMPLATE_MISSING',
        `annotation ${key} names no template; write template names separated by commas (${known(config)}), or remove it to use the defaults`,
      );
    }
  } else {
    requested = [...config.defaultTemplates];
    source = 'defaultTemplates';
  }
  const names: string[] = [];
  for (const name of requested) {
    const alias = Object.hasOwn(config.aliases, name) ? config.aliases[name] : undefined;
    for (const n of alias ?? [name]) {
      if (!config.compiledTemplates.has(n)) {
        const via = alias !== undefined ? ` (from alias ${quote(name)})` : '';
        const where = source === 'annotation' ? `annotation ${key}` : "the config's defaultTemplates";
        throw new InjectionError('SI_INJECT_TEMPLATE_MISSING', `template ${quote(n)}${via} requested by ${where} is not defined; ${known(config)}`, {
          details: { template: n, known: [...config.compiledTemplates.keys()].sort() },
        });
      }
      names.push(n);
    }
  }
  return { names, source };
}

function known(config: Pick<LoadedConfig, 'aliases' | 'compiledTemplates'>): string {
  const templates = [...config.compiledTemplates.keys()].sort();
  const aliases = Object.keys(config.aliases).sort();
  const t = templates.length > 0 ? `known templates: ${templates.join(', ')}` : 'the config defines no templates';
  return aliases.length > 0 ? `${t}; aliases: ${aliases.join(', ')}` : t;
}
