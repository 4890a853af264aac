/**
 * @module check/serve-gate
 * The `config check` rule `serve` applies when it loads or reloads a config: a config whose
 * default sidecar gives a pod the API server refuses for every representative pod is refused
 * (so a reload keeps the last good config serving, with this reason in the log and /readyz).
 * A config that fails only for some pods still loads: those pods fail with their own reason.
 */
import type { LoadedConfig } from '../config/types.js';
import { ConfigError } from '../errors.js';
import { checkConfig, formatFinding, type CheckFinding } from './check.js';
import { basePods } from './pods.js';

/**
 * The gate as `serve` applies it at start and on reload: it needs no warnings, so it stops at
 * the first representative pod the default sidecar is valid for (one injection instead of
 * four on a good config, most of the gate's cost at start, where every function still runs
 * cold) and checks them all only to say why none is.
 */
export function assertServable(config: LoadedConfig): LoadedConfig {
  if (config.defaultTemplates.length === 0) return config;
  for (const pod of basePods(config)) if (checkConfig(config, [pod], { templates: null }).failures.length === 0) return config;
  configGate(config);
  return config;
}

/**
 * The gate itself, for `serve` and for the commands that inject offline (inject, policy,
 * template render --config): throws SI_CONFIG_INVALID when the default sidecar is invalid for
 * every representative pod; returns one warning per pod it is invalid for when only some are.
 */
export function configGate(config: LoadedConfig): string[] {
  if (config.defaultTemplates.length === 0) return [];
  const pods = basePods(config);
  const report = checkConfig(config, pods, { templates: null });
  const failed = new Map<string, CheckFinding>();
  const names = new Set(pods.map((p) => p.name));
  for (const f of report.failures) if (names.has(f.pod) && !failed.has(f.pod)) failed.set(f.pod, f);
  if (failed.size < pods.length) {
    return [...failed.values()].map(
      (f) =>
        `the default sidecar gives pod "${f.pod}" a pod the API server would refuse: ${formatFinding(f)} (sidecar-injector config check shows every finding)`,
    );
  }
  const first = report.failures[0];
  throw new ConfigError(
    'SI_CONFIG_INVALID',
    `the config's default sidecar (${config.defaultTemplates.join(', ')}) gives a pod the API server would refuse for every representative pod, so it is not used: ${formatFinding(first)} (run sidecar-injector config check for the full report)`,
  );
}
