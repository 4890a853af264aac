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
  UninjectResult,
} from './inject/index.js';

// Config: Istio's ConfigMap layout (a directory with config + values, or one YAML file).
export { defaultConfig, loadConfig, parseConfig } from './config/load.js';
export type { InjectorConfig, InjectionKeys, LoadedConfig } from './config/types.js';

// Manifests: multi-document YAML/JSON in, injected / uninjected / explained out.
export { explainManifest, injectManifest, uninjectManifest } from './manual/index.js';
export type { DocumentNote, ExplainEntry, ManualOptions, ManualOutput } from './manual/index.js';

// Go text/template with Sprig and Istio's injector functions.
export { parseTemplate, parseTemplateSet, formatValue, sprintf } from './template/index.js';
export type { ExecuteOptions, FuncMap, GoFunc, ParseOptions, Template, TemplateSet } from './template/index.js';
export { sprigFuncs, templateFuncs, injectorFuncs } from './template/funcs/index.js';

// Patch engines: Kubernetes strategic merge (Pod schema) and RFC 6902.
export { applyPatch, createPatch, strategicMerge } from './patch/index.js';
export type { JsonPatchOperation } from './patch/index.js';

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
export type { ErrorCode, ErrorInfo, SourceLocation } from './errors.js';
