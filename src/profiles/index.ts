/**
 * @module profiles
 * The composition: which profiles a loaded config carries, and the config loaders that bind
 * them. The general core (src/inject, src/config, src/patch, src/template) knows the hook
 * contract (inject/profile-hooks.ts) but no profile; this module, above both, picks the default set
 * (Istio emulation, src/istio) and is what the CLI, the webhook and the library load configs
 * through. Each profile is bound at load, so what it computes from the config (Istio's mesh
 * config) is computed once and a bad value fails the load, not every pod later.
 */
import {
  defaultConfig as defaultConfigWithoutProfiles,
  loadConfig as loadConfigWithoutProfiles,
  parseConfig as parseConfigWithoutProfiles,
  type LoadOptions,
} from '../config/load.js';
import type { LoadedConfig } from '../config/types.js';
import type { Profile } from '../inject/profile-hooks.js';
import { istioProfile } from '../istio/istio-profile.js';

/** Binds a profile to one loaded config (throws ConfigError when the config does not suit it). */
export type ProfileFactory = (config: LoadedConfig) => Profile;

/** The profiles every config gets: Istio emulation (its hooks decide for themselves when they apply). */
export const DEFAULT_PROFILES: readonly ProfileFactory[] = Object.freeze([istioProfile]);

/** `config` with `profiles` bound to it (a new frozen config; the given one is left alone). */
export function withProfiles(config: LoadedConfig, profiles: readonly ProfileFactory[] = DEFAULT_PROFILES): LoadedConfig {
  return Object.freeze({ ...config, profiles: Object.freeze(profiles.map((bind) => bind(config))) });
}

/** config/load's loadConfig, with the default profiles. */
export async function loadConfig(path: string, options: LoadOptions = {}): Promise<LoadedConfig> {
  return withProfiles(await loadConfigWithoutProfiles(path, options));
}

/** config/load's parseConfig, with the default profiles. */
export function parseConfig(configText: string, valuesText?: string, name?: string, options: LoadOptions = {}): LoadedConfig {
  return withProfiles(parseConfigWithoutProfiles(configText, valuesText, name, options));
}

let cachedDefault: LoadedConfig | undefined;

/** The built-in config (config/load's defaultConfig) with the default profiles, loaded once (anew with options). */
export function defaultConfig(options: LoadOptions = {}): LoadedConfig {
  if (Object.keys(options).length > 0) return withProfiles(defaultConfigWithoutProfiles(options));
  cachedDefault ??= withProfiles(defaultConfigWithoutProfiles());
  return cachedDefault;
}
