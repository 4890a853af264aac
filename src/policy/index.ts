/**
 * @module policy
 * Policy mode: a config compiled into a MutatingAdmissionPolicy (see compile.ts).
 */
export { compilePolicy, DEFAULT_POLICY_NAME, POLICY_API_VERSION, type CompiledPolicy, type PolicyOptions } from './compile.js';
export { policyMatchConditions, decisionCel, selectorCel } from './match.js';
