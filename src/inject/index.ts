/**
 * @module inject
 * The pure injection core's public API, used unchanged by the webhook, the CLI (`inject -f`,
 * `uninject`, `explain`), the KRM function and the tests. Also the types a consumer meets in
 * it: the result and status shapes, the context's keyring and limits, the typed pod, and the
 * profile hook contract (LoadedConfig.profiles).
 */
export { injectPod, renderPodTemplates } from './pipeline.js';
export { uninjectPod } from './uninject.js';
export { decide } from './decide.js';
export type { Container, LocalObjectReference, ObjectMeta, Pod, PodSpec, StringMap, Volume } from './pod-types.js';
export type { Overrides, PodHooks, PodProfileInput, Profile, RemovedItems, TemplateField } from './profile-hooks.js';
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
} from './types.js';
