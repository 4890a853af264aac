/**
 * @module patch
 * The patch engines' public surface: Kubernetes strategic merge for the Pod subtree, RFC 6902
 * patch generation against the pod as received, a strict applier, and JSON Pointer helpers.
 */
export { strategicMerge, type MergeOptions } from './smp.js';
export {
  type SmpField,
  type SmpSchema,
} from './smp-schema.js';
export type { JsonPatchOperation } from './types.js';
export { createPatch } from './json-patch-diff.js';
export { patchJson } from './patch-json.js';
export { applyPatch } from './apply.js';
export { escapePointerToken, parsePointer } from './json-pointer.js';
