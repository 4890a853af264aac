/**
 * @module sidecar-injector
 * The library's public surface: the pure injection core, config loading, the Go template
 * engine, the patch engines and manifest-level operations. Everything the CLI and the webhook
 * do goes through these functions. Named exports only, no `export *`: what is listed here is
 * the contract; everything else is internal.
 */

// The injection core: one pod (or pod template) in, a decision, a pod and a JSON patch out.
export { injectPod, uninjectPod, decide } from './inject/index.js';
export type {
  Decision,
  DecisionReason,
  DecisionStep,
  InjectedResult,
  InjectionContext,
  InjectionResult,
  InjectionStatus,
  SkippedResult,
  UndoEntry,
  UninjectResult,
} from './inject/index.js';
// Types the core's signatures and results mention (src/package-types.test.ts checks that every
// type a consumer meets can be named from here), the typed pod and the profile hook contract
// (LoadedConfig.profiles).
export type { DecisionConfig } from './inject/decide.js';
export type { PodLimits } from './inject/limits.js';
export type { StatusKeyring } from './inject/status-mac.js';
export type { JsonObject, JsonValue } from './util/json.js';
export type { Container, LocalObjectReference, ObjectMeta, Pod, PodSpec, StringMap, Volume } from './inject/index.js';
export type { Overrides, PodHooks, PodProfileInput, Profile, RemovedItems, TemplateField } from './inject/index.js';

// Config: Istio's ConfigMap layout (a directory with config + values, or one YAML file), loaded
// with the default profiles (Istio emulation) bound.
export { defaultConfig, loadConfig, parseConfig } from './profiles/index.js';
export { DEFAULT_PROFILES, withProfiles } from './profiles/index.js';
export type { ProfileFactory } from './profiles/index.js';
export type { LoadOptions } from './config/load.js';
export type {
  ConfigSource,
  InjectionKeys,
  InjectionPolicy,
  InjectionValues,
  InjectorConfig,
  LoadedConfig,
  TemplateOptions,
} from './config/types.js';
export type { BuildOptions, TemplateCompilerFactory } from './config/build-config.js';
export type { ValidateOptions } from './config/validate-config.js';
export type { Compatibility, CompatibilityMode } from './config/compat.js';
export type { CompiledSelector, LabelSelector, LabelSelectorRequirement, Requirement as CompiledRequirement, SelectorOperator } from './config/selector.js';

// Manifests: multi-document YAML/JSON in, injected / uninjected / explained out.
export { explainManifest, injectManifest, uninjectManifest } from './manual-inject/index.js';
export type { DocumentNote, ExplainEntry, ExplainOptions, ExplainStep, ManualOptions, ManualOutput, TemplateSubject } from './manual-inject/index.js';
export type { ExplainReason } from './manual-inject/explain-manifest.js';
export type { JsonPath } from './manifest-io/workload-kinds.js';

// Go text/template with Sprig and Istio's injector functions.
export { parseTemplate, parseTemplateSet, formatValue, sprintf } from './template/index.js';
export type { ExecuteOptions, FuncMap, GoFunc, MissingKey, ParseOptions, Template, TemplateEngine, TemplateSet } from './template/index.js';
export type { GoNumberType, GoParamType } from './template/value.js';
export type { InjectorOptions } from './template/funcs/index.js';
export { sprigFuncs, templateFuncs, injectorFuncs } from './template/funcs/index.js';

// Patch engines: Kubernetes strategic merge (Pod schema) and RFC 6902.
export { applyPatch, createPatch, strategicMerge } from './patch/index.js';
export type { MergeOptions } from './patch/index.js';
export type { JsonPatchOperation, SmpField, SmpSchema } from './patch/index.js';

// Errors: one catalogue with stable codes.
export {
  AdmissionError,
  CertError,
  ClusterError,
  ConfigError,
  InjectionError,
  InjectorError,
  InputError,
  TemplateError,
  allErrorCodes,
  errorInfo,
} from './errors.js';
export type { ErrorCode, ErrorInfo, InjectorErrorOptions, SourceLocation } from './errors.js';
