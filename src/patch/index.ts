/**
 * @module patch
 * The patch engines' public surface: Kubernetes strategic merge for the Pod subtree, RFC 6902
 * patch generation against the pod as received, a strict applier, and JSON Pointer helpers.
 */
export { strategicMerge, type MergeOptions } from './smp.js';
export {
  CONTAINER_SCHEMA,
  OBJECT_META_SCHEMA,
  OPAQUE_SCHEMA,
  POD_SCHEMA,
  POD_SPEC_SCHEMA,
  POD_STATUS_SCHEMA,
  type SmpField,
  type SmpSchema,
} from './smp-schema.js';
export type { JsonPatchOperation } from './types.js';
export { createPatch } from './diff.js';
export { patchJson } from './patch-json.js';
export { applyPatch } from './apply.js';
export { escapePointerToken, formatPointer, parsePointer, unescapePointerToken } from './json-pointer.js';
