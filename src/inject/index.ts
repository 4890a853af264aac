/**
 * @module inject
 * The pure injection core's public API, used unchanged by the webhook, the CLI (`inject -f`,
 * `uninject`, `explain`), the KRM function and the tests.
 */
export { injectPod } from './inject.js';
export { uninjectPod } from './uninject.js';
export { decide } from './decide.js';
export type {
  Decision,
  DecisionReason,
  DecisionStep,
  InjectedResult,
  InjectionContext,
  InjectionResult,
  InjectionStatus,
  JsonPatchOperation,
  SkippedResult,
  UndoEntry,
  UninjectResult,
} from './types.js';
