/**
 * @module template/truth
 * Go template truthiness (text/template's `IsTrue`): the zero value of a type is false, as are
 * nil and empty maps, slices and strings; structs are always true. Shared by `if`, `with`,
 * `and`, `or`, `not` and by Sprig's `empty`/`default`.
 */

import { GoComplex, GoNumber, isGoObject } from './value.js';

/** Whether a Go value is "true" in `{{if}}`. */
export function isTrue(v: unknown): boolean {
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'string':
      return v.length > 0;
    case 'number':
      return v !== 0;
    case 'bigint':
      return v !== 0n;
    case 'undefined':
      return false;
    case 'object':
      if (v === null) return false;
      if (Array.isArray(v)) return v.length > 0;
      if (v instanceof GoNumber) return typeof v.value === 'bigint' ? v.value !== 0n : v.value !== 0;
      if (isGoObject(v)) return true;
      if (v instanceof GoComplex) return v.re !== 0 || v.im !== 0;
      for (const key in v) if (Object.hasOwn(v, key)) return true;
      // A GoFunc (non-nil function) is true; its own keys are `params` and `call`, so the
      // loop above already returned.
      return false;
    default:
      return true;
  }
}
