/**
 * @module patch/patch-json
 * A patch's JSON text, made once per patch. The core measures it (the patch size limit) and the
 * webhook encodes it (the AdmissionReview's base64 `patch`); on a cache miss both ran
 * `JSON.stringify` over the same operations. Patches are not changed once built (they are the
 * core's result), so the text is kept by the array's identity.
 */
import type { JsonPatchOperation } from './types.js';

const texts = new WeakMap<readonly JsonPatchOperation[], string>();

/** `JSON.stringify(patch)`, computed once per patch array. */
export function patchJson(patch: readonly JsonPatchOperation[]): string {
  let text = texts.get(patch);
  if (text === undefined) {
    text = JSON.stringify(patch);
    texts.set(patch, text);
  }
  return text;
}
