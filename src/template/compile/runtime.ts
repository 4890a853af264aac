/**
 * @module template/compile/runtime
 * The per-render state of a compiled template: the interpreter's per-render state (exec-state.ts,
 * shared, so both engines fail with the same message at the same node, after the same number
 * of steps) plus the field evaluation and error helpers the compiled closures call.
 */

import type { Node } from '../ast.js';
import type { ArgProblem } from '../convert.js';
import { ExecState, type IfaceSource } from '../exec-state.js';
import { Kind, kindOf, mapElemType } from '../kinds.js';
import { quote } from '../quote.js';
import { GO_OBJECT, INTERFACE, NO_FIELD, goTypeName, isGoFuncValue, type GoFunc, type GoObject } from '../value.js';

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

  /**
   * exec.ts evalField. `hasArgs` is whether the command gives arguments (or a final value)
   * to this, the last field of a chain; `method` calls a Go object's method with them.
   */
  evalField(
    dot: unknown, fieldName: string, node: Node, hasArgs: boolean, method: MethodCaller | null, final: unknown, receiver: unknown, iface: IfaceSource,
  ): unknown {
    this.lastFrom = false;
    if (receiver === undefined) {
      if (this.missingKey === 'error') this.errorf(`nil data; no entry for key ${quote(fieldName)}`);
      return undefined;
    }
    if (receiver === null) this.errorf(`nil pointer evaluating ${INTERFACE}.${fieldName}`);
    if (typeof receiver === 'object') {
      const proto = Object.getPrototypeOf(receiver);
      if ((proto === Object.prototype || proto === null) && (receiver as { [GO_OBJECT]?: true })[GO_OBJECT] !== true && !isGoFuncValue(receiver)) {
        return this.mapField(receiver as Record<string, unknown>, fieldName, hasArgs);
      }
      const kind = kindOf(receiver);
      if (kind === Kind.Struct || kind === Kind.Pointer) {
        const obj = receiver as GoObject;
        const fn = obj.getMethod(fieldName);
        if (fn !== undefined) {
          const result = (method as MethodCaller)(this, dot, fn, fieldName, final);
          this.lastFrom = false;
          return result;
        }
        const field = obj.getField(fieldName);
        if (field !== NO_FIELD) {
          if (hasArgs) this.errorf(`${fieldName} has arguments but cannot be invoked as function`);
          return field;
        }
      } else if (kind === Kind.Map) {
        return this.mapField(receiver as Record<string, unknown>, fieldName, hasArgs);
      }
    }
    const isIface = typeof iface === 'boolean' ? iface : mapElemType(iface) === INTERFACE;
    this.errorf(`can't evaluate field ${fieldName} in type ${isIface ? INTERFACE : goTypeName(receiver)}`);
  }
}
