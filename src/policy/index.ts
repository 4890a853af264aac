/**
 * @module policy
 * Policy mode: a config compiled into a MutatingAdmissionPolicy (see compile.ts).
 */
export { compilePolicy } from './compile.js';
