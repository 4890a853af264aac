/**
 * @module check/serve-gate
 * The `config check` rule `serve` applies when it loads or reloads a config: a config whose
 * default sidecar gives a pod the API server refuses for every representative pod is refused
 * (so a reload keeps the last good config serving, with this reason in the log and /readyz).
 * A config that fails only for some pods still loads: those pods fail with their own reason.
 */
import type { LoadedConfig } from '../config/types.js';
import { ConfigError } from '../errors.js';
import { checkConfig, formatFinding } from './check.js';
import { basePods } from './pods.js';

export function assertServable(config: LoadedConfig): LoadedConfig {
  if (config.defaultTemplates.length === 0) return config;
  const pods = basePods(config);
  const report = checkConfig(config, pods, { templates: null });
  const failed = new Set(report.failures.map((f) => f.pod));
  if (failed.size < pods.length) return config;
  const first = report.failures[0];
  throw new ConfigError(
    'SI_CONFIG_INVALID',
    `the config's default sidecar (${config.defaultTemplates.join(', ')}) gives a pod the API server would refuse for every representative pod, so it is not used: ${formatFinding(first)} (run sidecar-injector config check for the full report)`,
  );
}
