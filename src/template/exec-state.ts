/**
 * @module template/exec-state
 * What both engines keep per render and check the same way: the output and its limit, the step
 * and depth limits, the variable stack, the "current node" that errors are reported at, map
 * field lookup with the missingkey modes, and printing a value. The interpreter (exec.ts) and
 * the compiled engine (compile/runtime.ts) extend it, so an error reads the same, at the same
 * node, whichever engine renders.
 */

import { TemplateError } from '../errors.js';
import { nodeString, type Node } from './ast.js';
import { ArgProblem, validateType } from './arg-convert.js';
import { formatValue, formatForTemplate } from './go-fmt.js';
import { Kind, kindOf, mapElemType } from './reflect-kinds.js';
import { byteLength, quote } from './quote.js';
import { GO_OBJECT, INTERFACE, NO_FIELD, goTypeName, isGoFuncValue, zeroValue, type GoFunc, type GoObject } from './value.js';

export type MissingKey = 'default' | 'invalid' | 'zero' | 'error';

export interface ExecConfig {
  readonly missingKey: MissingKey;
  readonly maxDepth: number;
  /** Limit on executed nodes (actions, text, loop bodies, control structures). */
  readonly maxSteps: number;
  /** Limit on the length of the output, in UTF-16 code units. */
  readonly maxOutput: number;
}

/** Whether a value's static type is interface {}: known, or decided by the map it came from. */
export type IfaceSource = boolean | Record<string, unknown>;

/** Thrown at the depth limit so the error is reported at the right node. */
export class DepthExceeded extends Error {}

export function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError && /call stack/i.test(err.message);
}

/** Error context of a node: Go's `NAME:LINE:COL` with a 0-based byte column. */
function location(n: Node): string {
  const text = n.src.text;
  const before = text.slice(0, n.pos);
  const nl = before.lastIndexOf('\n');
  let line = 1;
  for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) line++;
  const col = byteLength(nl === -1 ? before : before.slice(nl + 1));
  return `${n.src.parseName}:${line}:${col}`;
}

/** Render a tree. Throws TemplateError (SI_TEMPLATE_EXEC) and nothing else. */

export class ExecState {
  out = '';
  /** The node being evaluated, for error messages (Go's s.at). */
  node: Node | null = null;
  /** Whether dot's static Go type is interface {} (it came out of an untyped map or slice). */
  dotIface = false;
  /** Where the last field lookup's value came from (see lastIsIface). */
  lastFrom: IfaceSource = false;
  // The variable stack: parallel arrays, live entries are [base, sp). A {{template}} call
  // starts a new frame at sp (templates see none of their caller's variables).
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

  /** Throw Go's execution error at the current node; `cause` keeps a function's own error. */
  errorf(message: string, cause?: unknown): never {
    const name = this.tmplName;
    const n = this.node;
    const text = n === null ? `template: ${name}: ${message}` : `template: ${location(n)}: executing ${quote(name)} at <${nodeString(n)}>: ${message}`;
    throw new TemplateError('SI_TEMPLATE_EXEC', text, cause === undefined ? undefined : { cause });
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

  outputTooLarge(): never {
    this.errorf(`exceeded maximum output size (${this.maxOutput} characters)`);
  }

  // ---- variables --------------------------------------------------------------------------

  push(name: string, value: unknown, iface: boolean): void {
    const sp = this.sp++;
    this.names[sp] = name;
    this.values[sp] = value;
    this.ifaces[sp] = iface;
  }

  pop(mark: number): void {
    // Drop references so popped values can be collected; the arrays keep their capacity.
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

  /** Set the n-th variable from the top (a range's element and key variables). */
  setTopVar(n: number, value: unknown, iface: boolean): void {
    this.values[this.sp - n] = value;
    this.ifaces[this.sp - n] = iface;
  }

  /** Index of a variable in the stack (innermost first). */
  varIndex(name: string): number {
    for (let i = this.sp - 1; i >= this.base; i--) if (this.names[i] === name) return i;
    this.errorf(`undefined variable: ${name}`);
  }

  // ---- fields and values ------------------------------------------------------------------

  /** A map's entry as a field (`.key`); `hasArgs`: the command passes it arguments or a final value. */
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

  /**
   * Go's evalField on `receiver`, for both engines: a map's entry, a Go object's method or field,
   * or the error Go gives. `hasArgs`: the command passes this field arguments or a final value.
   * A method is called through the engine's own {@link callFieldMethod}, which gets `a` and `b`
   * (the engine's call state, passed through untouched).
   */
  evalField(dot: unknown, fieldName: string, node: Node, hasArgs: boolean, a: unknown, b: unknown, receiver: unknown, iface: IfaceSource): unknown {
    this.lastFrom = false;
    if (receiver === undefined) {
      if (this.missingKey === 'error') this.errorf(`nil data; no entry for key ${quote(fieldName)}`);
      return undefined;
    }
    if (receiver === null) this.errorf(`nil pointer evaluating ${INTERFACE}.${fieldName}`);
    if (typeof receiver === 'object') {
      // Fast path: a plain JSON object (map[string]interface {}).
      const proto = Object.getPrototypeOf(receiver);
      if ((proto === Object.prototype || proto === null) && (receiver as { [GO_OBJECT]?: true })[GO_OBJECT] !== true && !isGoFuncValue(receiver)) {
        return this.mapField(receiver as Record<string, unknown>, fieldName, hasArgs);
      }
      const kind = kindOf(receiver);
      if (kind === Kind.Struct || kind === Kind.Pointer) {
        const obj = receiver as GoObject;
        const fn = obj.getMethod(fieldName);
        if (fn !== undefined) {
          const result = this.callFieldMethod(dot, fn, node, fieldName, a, b);
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

  /** Call a Go object's method found by {@link evalField}; each engine calls with its own call state (`a`, `b`). */
  protected callFieldMethod(_dot: unknown, _fn: GoFunc, _node: Node, fieldName: string, _a: unknown, _b: unknown): unknown {
    this.errorf(`${fieldName}: method calls are not supported here`);
  }

  /** Whether the value the last field lookup produced has static type interface {}. */
  lastIsIface(): boolean {
    const from = this.lastFrom;
    return typeof from === 'boolean' ? from : mapElemType(from) === INTERFACE;
  }

  /** validateType at the current node. */
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
      case 'number':
      case 'boolean':
      case 'bigint':
        this.out += formatValue(v);
        return;
    }
    if (isGoFuncValue(v)) this.errorf(`can't print ${nodeString(node)} of type ${goTypeName(v)}`);
    this.out += formatForTemplate(v);
  }
}
