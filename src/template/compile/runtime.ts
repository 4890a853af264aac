/**
 * @module template/compile/runtime
 * The per-render state of a compiled template: the interpreter's per-render state (exec-state.ts,
 * shared, so both engines fail with the same message at the same node, after the same number
 * of steps) plus the field evaluation and error helpers the compiled closures call.
 */

import type { Node } from '../ast.js';
import type { ArgProblem } from '../arg-convert.js';
import { ExecState } from '../exec-state.js';
import type { GoFunc } from '../value.js';

export { DepthExceeded, type IfaceSource } from '../exec-state.js';

/** Marks "no final value" in a pipeline (Go's missingVal). */
export const MISSING: unique symbol = Symbol('missing');

export const BREAK = 1;
export const CONTINUE = 2;

/** Calls a method found on a Go object at run time (its parameter types are known only then). */
export type MethodCaller = (rt: Runtime, dot: unknown, fn: GoFunc, name: string, final: unknown) => unknown;

export class Runtime extends ExecState {
  // ---- errors -----------------------------------------------------------------------------

  /** Report an ArgProblem (or a constant's problem) at a node. */
  problemAt(node: Node, p: ArgProblem): never {
    this.node = node;
    this.errorf(p.message);
  }

  stepError(): never {
    this.errorf(`exceeded maximum number of execution steps (${this.maxSteps})`);
  }

  // ---- fields -----------------------------------------------------------------------------

  /** The method of a Go object found by evalField (exec-state.ts), called with this engine's call state. */
  protected override callFieldMethod(dot: unknown, fn: GoFunc, _node: Node, fieldName: string, method: unknown, final: unknown): unknown {
    return (method as MethodCaller)(this, dot, fn, fieldName, final);
  }
}
