/**
 * @module check/no-values
 * A config whose templates read `.Values` but that came with no values at all fails deep inside
 * a render (`executing "sidecar" at <$proxy.image>: invalid value; expected string`), which
 * points at the template rather than at the missing file. Say what is missing instead: no
 * values were given, and where the loader looks for them.
 */
import type { LoadedConfig } from '../config/types.js';

/** Whether the config has no values while a template reads them. */
export function valuesMissing(config: Pick<LoadedConfig, 'values' | 'templates'>): boolean {
  return Object.keys(config.values).length === 0 && Object.values(config.templates).some((t) => t.includes('.Values'));
}

/** The sentence to put before a render error that no values explain. */
export function noValuesMessage(config: Pick<LoadedConfig, 'source'>): string {
  const where = config.source.path ?? 'the config';
  const how =
    config.source.kind === 'directory'
      ? `put a values file beside the config in ${where} (values, values.yaml or values.json)`
      : `pass the directory that holds it and its values file (--config DIR: config or config.yaml or inject-config.yaml, with values, values.yaml or values.json), or add a values: key to ${where}`;
  return `no values given: the templates read .Values but ${where} came with none; ${how}`;
}
