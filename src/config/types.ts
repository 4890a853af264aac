/**
 * @module config/types
 * The injector configuration after validation. `InjectorConfig` is Istio's
 * `istio-sidecar-injector` ConfigMap (`config` + `values`) with defaults filled in, plus our
 * extension keys (renamable annotation/label keys, template options, extra ignored
 * namespaces). `LoadedConfig` adds what is computed once per load: compiled templates and
 * selectors, a content hash, where it came from and the load-time warnings.
 */
import type { Template } from '../template/index.js';
import type { Compatibility } from './compat.js';
import type { JsonObject } from '../util/json.js';
import type { CompiledSelector, LabelSelector } from './selector.js';
// Type only: the hook contract belongs to the pipeline; config only carries the bound profiles.
import type { Profile } from '../inject/profile-hooks.js';

/**
 * The label/annotation names the injector reads and writes. Istio's by default; rename them to
 * run beside a real Istio without either injector reacting to the other's pods.
 */
export interface InjectionKeys {
  /** Pod label or annotation with the opt-in/opt-out: exactly "true" or "false". */
  inject: string;
  /** Pod annotation recording what was injected (JSON). */
  status: string;
  /** Pod annotation selecting templates (comma-separated names). */
  templates: string;
  /** Namespace label that turns injection on (`enabled`) or off (`disabled`): used by manifests and hints. */
  namespaceLabel: string;
  /** Namespace/pod label selecting a revision: used by manifests. */
  revisionLabel: string;
}

/** The values of the injection keys, where they differ from Istio's (config/validate readInjectionValues). */
export interface InjectionValues {
  /** Opt-in values of the inject key, lower case, compared without case; null: exactly "true" (Istio). */
  inject: string[] | null;
  /** Status annotation values that mean the pod was injected by another webhook (skip it). */
  injected: string[];
}

/** Options for compiling and running templates. */
export interface TemplateOptions {
  /** Allow the `env` function (reads the injector's environment). Off by default: templates are config, not code. */
  allowEnv: boolean;
  /**
   * Go's `missingkey` option: `default` (a missing map key prints `<no value>` / is empty, as
   * Istio and Helm run), `zero`, or `error` (a missing `.Values` key fails the render, so a typo
   * such as `.Values.imag` is caught instead of injecting a container with no image).
   */
  missingKey: 'default' | 'zero' | 'error';
}

/**
 * Istio's `policy`: `enabled` (inject unless opted out), `disabled` (only when opted in);
 * any other string turns injection off for every pod (Istio logs an error; we warn at load).
 */
export type InjectionPolicy = string;

export interface InjectorConfig {
  policy: InjectionPolicy;
  /** Templates used when the pod has no templates annotation; may name aliases. */
  defaultTemplates: string[];
  /**
   * Template name -> Go text/template source. Null-prototype record. Each template is parsed
   * on its own, as Istio does: a `define` is visible only inside the template that holds it,
   * so two templates may define the same helper name without clashing.
   */
  templates: Record<string, string>;
  /** Alias -> template names, expanded one level (Istio). Null-prototype record. */
  aliases: Record<string, string[]>;
  neverInjectSelector: LabelSelector[];
  alwaysInjectSelector: LabelSelector[];
  /** Annotations added to every injected pod. Null-prototype record. */
  injectedAnnotations: Record<string, string>;
  /** The `values` document (`.Values` in templates). */
  values: JsonObject;
  injectionKeys: InjectionKeys;
  injectionValues: InjectionValues;
  templateOptions: TemplateOptions;
  /** Namespaces never injected: Istio's four plus any the config adds. */
  ignoredNamespaces: string[];
  /** `.NativeSidecars` in template data (Istio's templates read it to inject the proxy as a native sidecar). */
  nativeSidecars: boolean;
  /**
   * Istio's behaviour (probe rewriting, Prometheus merge, native sidecars from Istio's values)
   * or ours alone: the `compatibility` key, else detected from the config (config/compat).
   */
  compatibility: Compatibility;
}

/** Where a config came from. */
export interface ConfigSource {
  /** `directory`: a mounted ConfigMap (`config` + `values` files); `file`: one YAML file; `builtin`: the embedded default; `text`: given in memory. */
  kind: 'directory' | 'file' | 'builtin' | 'text';
  /** The path given by the user (directory or file). */
  path?: string;
  /** The files actually read. */
  files: string[];
}

export interface LoadedConfig extends InjectorConfig {
  /** Each template parsed once at load, by name. */
  compiledTemplates: ReadonlyMap<string, Template>;
  compiledSelectors: {
    never: readonly CompiledSelector[];
    always: readonly CompiledSelector[];
  };
  /**
   * The profiles bound to this config (src/profiles composes them at load: Istio emulation by
   * default), each holding what it computed from the config once (Istio's mesh config). The
   * pipeline calls their hooks in this order.
   */
  profiles: readonly Profile[];
  /** sha256 (hex) of the normalised config and values: same content, same hash. */
  hash: string;
  source: ConfigSource;
  /** Problems that did not stop the load (unknown policy, legacy `template:` key, ...). */
  warnings: string[];
}
