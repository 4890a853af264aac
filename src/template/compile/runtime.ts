/**
 * @module template/compile/runtime
 * The per-render state of a compiled template: output, step budget, variable stack, the
 * "current node" for error messages, and the helpers the compiled closures share. It is the
 * interpreter's State (exec.ts) with the tree walk taken out: every field and every check is
 * kept as the interpreter has it, in the same order, because the compiled engine must fail
 * with the same message at the same node, after the same number of steps.
 */

import { TemplateError } from '../../errors.js';
import { nodeString, type Node } from '../ast.js';
import { ArgProblem, validateType } from '../convert.js';
import { isStackOverflow, location, type ExecConfig, type MissingKey } from '../exec.js';
import { formatValue, formatForTemplate } from '../format.js';
import { Kind, kindOf, mapElemType } from '../kinds.js';
import { quote } from '../quote.js';
import { GO_OBJECT, INTERFACE, NO_FIELD, goTypeName, isGoFuncValue, zeroValue, type GoFunc, type GoObject } from '../value.js';

/** Marks "no final value" in a pipeline (Go's missingVal). */
export const MISSING: unique symbol = Symbol('missing');

export const BREAK = 1;
export const CONTINUE = 2;

/** Thrown at the depth limit so the error is reported at the right node. */
export class DepthExceeded extends Error {}

/** Whether a value's static type is interface {}: known, or decided by the map it came from. */
export type IfaceSource = boolean | Record<string, unknown>;

/** Calls a method found on a Go object at run time (its parameter types are known only then). */
export type MethodCaller = (rt: Runtime, dot: unknown, fn: GoFunc, name: string, final: unknown) => unknown;

export class Runtime {
  out = '';
  node: Node | null = null;
  dotIface = false;
  /** Where the last field lookup's value came from (see exec.ts lastFrom). */
  lastFrom: IfaceSource = false;
  readonly names: string[] = [];
  readonly values: unknown[] = [];
  readonly ifaces: boolean[] = [];
  sp = 0;
  base = 0;
  depth = 0;
  stepsLeft: number;
  readonly missingKey: MissingKey;
  readonly maxDepth: number;
  readonly maxSteps: number;
  readonly maxOutput: number;

  constructor(
    config: ExecConfig,
    public tmplName: string,
  ) {
    this.missingKey = config.missingKey;
    this.maxDepth = config.maxDepth;
    this.maxSteps = config.maxSteps;
    this.stepsLeft = config.maxSteps;
    this.maxOutput = config.maxOutput;
  }

  // ---- errors -----------------------------------------------------------------------------

  errorf(message: string, cause?: unknown): never {
    const name = this.tmplName;
    const n = this.node;
    const text = n === null
      ? `template: ${name}: ${message}`
      : `template: ${location(n)}: executing ${quote(name)} at <${nodeString(n)}>: ${message}`;
    throw new TemplateError('SI_TEMPLATE_EXEC', text, cause === undefined ? undefined : { cause });
  }

  /** Report an ArgProblem (or a constant's problem) at a node. */
  problemAt(node: Node, p: ArgProblem): never {
    this.node = node;
    this.errorf(p.message);
  }

  stepError(): never {
    this.errorf(`exceeded maximum number of execution steps (${this.maxSteps})`);
  }

  outputTooLarge(): never {
    this.errorf(`exceeded maximum output size (${this.maxOutput} characters)`);
  }

  toTemplateError(err: unknown): TemplateError {
    if (err instanceof TemplateError) return err;
    if (err instanceof DepthExceeded || isStackOverflow(err)) {
      try {
        this.errorf(`exceeded maximum template depth (${this.maxDepth})`);
      } catch (e) {
        return e as TemplateError;
      }
    }
    const message = err instanceof Error ? err.message : String(err);
    try {
      this.errorf(`internal error: ${message}`, err);
    } catch (e) {
      return e as TemplateError;
    }
  }

  // ---- variables --------------------------------------------------------------------------

  push(name: string, value: unknown, iface: boolean): void {
    const sp = this.sp++;
    this.names[sp] = name;
    this.values[sp] = value;
    this.ifaces[sp] = iface;
  }

  pop(mark: number): void {
    for (let i = mark; i < this.sp; i++) this.values[i] = undefined;
    this.sp = mark;
  }

  setVar(name: string, value: unknown): void {
    for (let i = this.sp - 1; i >= this.base; i--) {
      if (this.names[i] === name) {
        this.values[i] = value;
        this.ifaces[i] = false;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  varIndex(name: string): number {
    for (let i = this.sp - 1; i >= this.base; i--) if (this.names[i] === name) return i;
    this.errorf(`undefined variable: ${name}`);
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

  mapField(m: Record<string, unknown>, fieldName: string, hasArgs: boolean): unknown {
    if (hasArgs) this.errorf(`${fieldName} is not a method but has arguments`);
    if (Object.hasOwn(m, fieldName)) {
      const result = m[fieldName];
      this.lastFrom = m;
      if (result !== undefined) return result;
    }
    switch (this.missingKey) {
      case 'zero':
        return zeroValue(mapElemType(m));
      case 'error':
        this.errorf(`map has no entry for key ${quote(fieldName)}`);
      default:
        return undefined;
    }
  }

  lastIsIface(): boolean {
    const from = this.lastFrom;
    return typeof from === 'boolean' ? from : mapElemType(from) === INTERFACE;
  }

  /** exec.ts validateType at the current node. */
  validate(value: unknown, typ: string): unknown {
    const v = validateType(value, typ);
    if (v instanceof ArgProblem) this.errorf(v.message);
    return v;
  }

  // ---- output -----------------------------------------------------------------------------

  printValue(node: Node, v: unknown): void {
    this.node = node;
    if (this.out.length > this.maxOutput) this.outputTooLarge();
    switch (typeof v) {
      case 'string':
        this.out += v;
        return;
      case 'undefined':
        this.out += '<no value>';
        return;
      case 'number': case 'boolean': case 'bigint':
        this.out += formatValue(v);
        return;
    }
    if (isGoFuncValue(v)) this.errorf(`can't print ${nodeString(node)} of type ${goTypeName(v)}`);
    this.out += formatForTemplate(v);
  }
}
