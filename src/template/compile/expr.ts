/**
 * @module template/compile/expr
 * Pipelines, commands, arguments, field chains and function calls compiled to closures. Each
 * closure does what exec.ts does for its node, with everything that depends only on the tree
 * decided once: which kind of command it is, the function and its parameter types, each
 * argument's conversion, constants already converted, the field names of a chain, the cost
 * class of a function. What stays at run time is what depends on the data, in the
 * interpreter's order, including every assignment to `rt.node` (the node errors are reported
 * at): that is what keeps the error messages identical.
 */

import {
  NodeType, nodeString, type ChainNode, type CommandNode, type FieldNode, type IdentifierNode, type Node, type PipeNode,
  type VariableNode,
} from '../ast.js';
import { ArgProblem, constantArg, idealConstant, nilArg, validateType } from '../convert.js';
import { REFLECT_VALUE, typeKind } from '../kinds.js';
import { quote } from '../quote.js';
import { isTrue } from '../truth.js';
import { INTERFACE, type GoFunc } from '../value.js';
import { DepthExceeded, MISSING, isStackOverflow, type IfaceSource, type MethodCaller, type Runtime } from './runtime.js';

/** Evaluates a pipeline (or nothing, for `{{template "x"}}`). */
export type PipeFn = (rt: Runtime, dot: unknown) => unknown;
/** Evaluates a command given the previous command's value (MISSING for the first). */
type CmdFn = (rt: Runtime, dot: unknown, final: unknown) => unknown;
/** Evaluates an argument for a parameter whose type was fixed at compile time. */
type ArgFn = (rt: Runtime, dot: unknown) => unknown;
/** Calls a function of the signature it was compiled for (methods are found per call). */
type CallFn = (rt: Runtime, dot: unknown, final: unknown, fn: GoFunc) => unknown;
/** A field chain from a receiver (exec.ts evalFieldChain). */
type ChainFn = (rt: Runtime, dot: unknown, receiver: unknown, iface: IfaceSource, final: unknown) => unknown;

/**
 * Functions whose work does not grow with their arguments; the others are charged for the
 * lists and strings they read and build. The same set as exec.ts (by name, as there).
 */
const CONSTANT_COST = new Set([
  'len', 'index', 'first', 'mustFirst', 'last', 'mustLast', 'get', 'hasKey', 'dig', 'default', 'empty', 'coalesce', 'ternary',
  'required', 'typeOf', 'typeIs', 'typeIsLike', 'kindOf', 'kindIs', 'not', 'and', 'or', 'call', 'fail',
]);

function costOf(v: unknown): number {
  if (typeof v === 'string') return v.length >>> 2;
  if (Array.isArray(v)) return v.length;
  return 0;
}

/** exec.ts validateType for one parameter type, specialised where the answer is known. */
type Validator = (v: unknown, nilInterface: boolean) => unknown;
const IDENTITY: Validator = (v) => v;
const TO_INTERFACE: Validator = (v) => (v === undefined ? null : v);

function validator(typ: string | null): Validator {
  if (typ === null || typ === REFLECT_VALUE) return IDENTITY;
  if (typ === INTERFACE || typeKind(typ) === 'interface') return TO_INTERFACE;
  return (v, nilInterface) => validateType(v, typ, nilInterface);
}

// ---- pipelines -----------------------------------------------------------------------------

export function compilePipe(pipe: PipeNode | null): PipeFn {
  if (pipe === null) return () => undefined;
  const cmds = pipe.cmds.map((c, i) => compileCommand(c, i > 0));
  const names = pipe.decl.map((d) => d.ident[0]);
  const isAssign = pipe.isAssign;
  if (cmds.length === 1 && names.length === 0) {
    const c0 = cmds[0];
    return (rt, dot) => {
      rt.node = pipe;
      const v = c0(rt, dot, MISSING);
      return v === null ? undefined : v;
    };
  }
  return (rt, dot) => {
    rt.node = pipe;
    let value: unknown = MISSING;
    for (let i = 0; i < cmds.length; i++) {
      value = cmds[i](rt, dot, value);
      if (value === null) value = undefined;
    }
    for (let i = 0; i < names.length; i++) {
      if (isAssign) rt.setVar(names[i], value);
      else rt.push(names[i], value, false);
    }
    return value;
  };
}

// ---- commands ------------------------------------------------------------------------------

/** exec.ts notAFunction, for a command whose argument list is `args` (null: none given). */
function notAFunction(rt: Runtime, args: readonly Node[] | null, final: unknown): void {
  if ((args !== null && args.length > 1) || final !== MISSING) {
    rt.errorf(`can't give argument to non-function ${nodeString((args as Node[])[0])}`);
  }
}

function compileCommand(cmd: CommandNode, hasFinal: boolean): CmdFn {
  const args = cmd.args;
  const first = args[0];
  switch (first.type) {
    case NodeType.Field:
      return compileFieldNode(first, args);
    case NodeType.Chain:
      return compileChainNode(first, args);
    case NodeType.Identifier:
      return compileFunction(first, cmd, args, hasFinal);
    case NodeType.Pipe: {
      const pipe = compilePipe(first);
      return (rt, dot, final) => {
        notAFunction(rt, args, final);
        return pipe(rt, dot);
      };
    }
    case NodeType.Variable:
      return compileVariableNode(first, args);
  }
  let value: unknown;
  let problem: string | undefined;
  switch (first.type) {
    case NodeType.Bool:
      value = first.value;
      break;
    case NodeType.Dot:
      return (rt, dot, final) => {
        rt.node = first;
        notAFunction(rt, args, final);
        return dot;
      };
    case NodeType.Nil:
      problem = 'nil is not a command';
      break;
    case NodeType.Number: {
      const v = idealConstant(first);
      if (v instanceof ArgProblem) problem = v.message;
      else value = v;
      break;
    }
    case NodeType.String:
      value = first.text;
      break;
    default:
      problem = `can't evaluate command ${quote(nodeString(first))}`;
  }
  return (rt, _dot, final) => {
    rt.node = first;
    notAFunction(rt, args, final);
    if (problem !== undefined) rt.errorf(problem);
    return value;
  };
}

// ---- fields and variables ------------------------------------------------------------------

/**
 * A chain of field names from a receiver, reported at `node`. `args` are the command's
 * operands when the chain heads a command (its last field may then be a method taking them).
 */
function compileChain(node: Node, ident: readonly string[], args: readonly Node[] | null): ChainFn {
  const n = ident.length;
  const head = ident.slice(0, n - 1);
  const last = ident[n - 1];
  const lastHasArgs = args !== null && args.length > 1;
  const lastCall = methodCaller(node, args);
  if (n === 1) {
    return (rt, dot, receiver, iface, final) => rt.evalField(dot, last, node, lastHasArgs || final !== MISSING, lastCall, final, receiver, iface);
  }
  const noArgCall = methodCaller(node, null);
  return (rt, dot, receiver, iface, final) => {
    for (let i = 0; i < head.length; i++) {
      receiver = rt.evalField(dot, head[i], node, false, noArgCall, MISSING, receiver, iface);
      iface = rt.lastFrom;
    }
    return rt.evalField(dot, last, node, lastHasArgs || final !== MISSING, lastCall, final, receiver, iface);
  };
}

function compileFieldNode(field: FieldNode, args: readonly Node[] | null): CmdFn {
  if (field.ident.length === 1) {
    // `.name`, the most common operand: the chain inlined.
    const name = field.ident[0];
    const hasArgs = args !== null && args.length > 1;
    const call = methodCaller(field, args);
    return (rt, dot, final) => {
      rt.node = field;
      return rt.evalField(dot, name, field, hasArgs || final !== MISSING, call, final, dot, rt.dotIface);
    };
  }
  const chain = compileChain(field, field.ident, args);
  return (rt, dot, final) => {
    rt.node = field;
    return chain(rt, dot, dot, rt.dotIface, final);
  };
}

function compileChainNode(chain: ChainNode, args: readonly Node[] | null): CmdFn {
  if (chain.node.type === NodeType.Nil) {
    const message = `indirection through explicit nil in ${nodeString(chain)}`;
    return (rt) => {
      rt.node = chain;
      rt.errorf(message);
    };
  }
  const receiver = compileArg(chain.node, null);
  const fields = compileChain(chain, chain.fields, args);
  return (rt, dot, final) => {
    rt.node = chain;
    const pipe = receiver(rt, dot);
    return fields(rt, dot, pipe, false, final);
  };
}

function compileVariableNode(v: VariableNode, args: readonly Node[] | null): CmdFn {
  const name = v.ident[0];
  if (v.ident.length === 1) {
    return (rt, _dot, final) => {
      rt.node = v;
      const i = rt.varIndex(name);
      notAFunction(rt, args, final);
      rt.lastFrom = rt.ifaces[i];
      return rt.values[i];
    };
  }
  const chain = compileChain(v, v.fields, args);
  return (rt, dot, final) => {
    rt.node = v;
    const i = rt.varIndex(name);
    return chain(rt, dot, rt.values[i], rt.ifaces[i], final);
  };
}

// ---- arguments -----------------------------------------------------------------------------

/** exec.ts evalArg: an argument node for a parameter of type `typ` (null: untyped). */
export function compileArg(n: Node, typ: string | null): ArgFn {
  const check = validator(typ);
  switch (n.type) {
    case NodeType.Dot:
      return (rt, dot) => {
        rt.node = n;
        const v = check(dot, rt.dotIface);
        if (v instanceof ArgProblem) rt.errorf(v.message);
        return v;
      };
    case NodeType.Field: {
      const cmd = compileFieldNode(n, [n]);
      return (rt, dot) => {
        rt.node = n;
        let v = cmd(rt, dot, MISSING);
        v = check(v, v === null && rt.lastIsIface());
        if (v instanceof ArgProblem) rt.errorf(v.message);
        return v;
      };
    }
    case NodeType.Variable: case NodeType.Chain: {
      if (n.type === NodeType.Variable && n.ident.length === 1) {
        // `$x`: the variable node inlined (no arguments to refuse).
        const name = n.ident[0];
        return (rt) => {
          rt.node = n;
          const i = rt.varIndex(name);
          rt.lastFrom = rt.ifaces[i];
          let v = rt.values[i];
          v = check(v, v === null && rt.lastIsIface());
          if (v instanceof ArgProblem) rt.errorf(v.message);
          return v;
        };
      }
      const cmd = n.type === NodeType.Variable ? compileVariableNode(n, null) : compileChainNode(n, null);
      return (rt, dot) => {
        rt.node = n;
        let v = cmd(rt, dot, MISSING);
        v = check(v, v === null && rt.lastIsIface());
        if (v instanceof ArgProblem) rt.errorf(v.message);
        return v;
      };
    }
    case NodeType.Pipe: case NodeType.Identifier: {
      const eval_: CmdFn = n.type === NodeType.Pipe ? compilePipe(n) : compileFunction(n, n, null, false);
      return (rt, dot) => {
        rt.node = n;
        const v = check(eval_(rt, dot, MISSING), false);
        if (v instanceof ArgProblem) rt.errorf(v.message);
        return v;
      };
    }
  }
  const value = n.type === NodeType.Nil ? nilArg(typ) : constantArg(n, typ);
  if (value instanceof ArgProblem) {
    return (rt) => {
      rt.node = n;
      rt.errorf(value.message);
    };
  }
  return (rt) => {
    rt.node = n;
    return value;
  };
}

// ---- function calls ------------------------------------------------------------------------

function compileFunction(node: IdentifierNode, cmd: Node, args: readonly Node[] | null, hasFinal: boolean): CmdFn {
  const fn = node.fn;
  if (fn === undefined) {
    const message = `${quote(node.ident)} is not a defined function`;
    return (rt) => {
      rt.node = node;
      rt.errorf(message);
    };
  }
  const call = compileCall(fn, node.shortCircuit, cmd, node.ident, args, hasFinal, node);
  return (rt, dot, final) => call(rt, dot, final, fn);
}

/**
 * exec.ts evalCall with the function known: arity checked and argument conversions chosen
 * once. `hasFinal` tells whether a previous pipeline stage passes its value (every stage but
 * the first does). `at`: the identifier node made current first (exec.ts evalFunction's
 * `s.at(node)`), folded in here to save a closure per call; null for methods.
 */
function compileCall(
  fn: Pick<GoFunc, 'params' | 'variadic'>, shortCircuit: 0 | 1 | 2, node: Node, name: string, argNodes: readonly Node[] | null, hasFinal: boolean,
  at: Node | null = null,
): CallFn {
  const nargs = argNodes === null ? 0 : argNodes.length - 1;
  const numIn = nargs + (hasFinal ? 1 : 0);
  const params = fn.params;
  const variadic = fn.variadic;
  let numFixed = nargs;
  let arity: string | undefined;
  if (variadic !== undefined) {
    numFixed = params.length;
    if (numIn < numFixed) arity = `wrong number of args for ${name}: want at least ${params.length} got ${nargs}`;
  } else if (numIn !== params.length) {
    arity = `wrong number of args for ${name}: want ${params.length} got ${numIn}`;
  }
  if (arity !== undefined) {
    const message = arity;
    return (rt) => {
      if (at !== null) rt.node = at;
      return rt.errorf(message);
    };
  }
  const operands = (argNodes ?? []).slice(1);

  if (shortCircuit !== 0) {
    const isOr = shortCircuit === 2;
    const evals = operands.map((a) => compileArg(a, REFLECT_VALUE));
    return (rt, dot, final) => {
      if (at !== null) rt.node = at;
      let v: unknown;
      for (let i = 0; i < evals.length; i++) {
        v = evals[i](rt, dot);
        if (isTrue(v === null ? undefined : v) === isOr) return v;
      }
      // validateType(final, reflect.Value) is the value itself.
      if (final !== MISSING) v = final;
      return v;
    };
  }

  const evals: ArgFn[] = [];
  let i = 0;
  for (; i < numFixed && i < nargs; i++) evals.push(compileArg(operands[i], params[i]));
  if (variadic !== undefined) for (; i < nargs; i++) evals.push(compileArg(operands[i], variadic));
  let finalType: string | null = null;
  if (hasFinal) {
    finalType = params[params.length - 1];
    if (variadic !== undefined) finalType = numIn - 1 < numFixed ? params[numIn - 1] : variadic;
  }
  const finalCheck = finalType === null ? IDENTITY : validator(finalType);
  const charged = !CONSTANT_COST.has(name);

  const failed = (rt: Runtime, err: unknown): never => {
    if (err instanceof DepthExceeded || isStackOverflow(err)) throw err;
    rt.node = node;
    rt.errorf(`error calling ${name}: ${err instanceof Error ? err.message : String(err)}`, err);
  };
  const charge = (rt: Runtime, cost: number): void => {
    if (cost === 0) return;
    rt.stepsLeft -= cost;
    if (rt.stepsLeft < 0) {
      rt.node = node;
      rt.stepError();
    }
  };
  const checkFinal = (rt: Runtime, final: unknown): unknown => {
    const v = finalCheck(final, false);
    if (v instanceof ArgProblem) rt.errorf(v.message);
    return v;
  };

  // The common arities without an argument array.
  const total = evals.length + (hasFinal ? 1 : 0);
  if (total === 0) {
    return (rt, _dot, _final, fn) => {
      if (at !== null) rt.node = at;
      let result: unknown;
      try {
        result = (fn as Callable).call();
      } catch (err) {
        failed(rt, err);
      }
      if (charged) charge(rt, costOf(result));
      return result;
    };
  }
  if (total === 1) {
    const e0 = hasFinal ? null : evals[0];
    return (rt, dot, final, fn) => {
      if (at !== null) rt.node = at;
      const a0 = e0 === null ? checkFinal(rt, final) : e0(rt, dot);
      let result: unknown;
      try {
        result = (fn as Callable).call(a0);
      } catch (err) {
        failed(rt, err);
      }
      if (charged) charge(rt, costOf(result) + costOf(a0));
      return result;
    };
  }
  if (total === 2) {
    const e0 = evals[0];
    const e1 = hasFinal ? null : evals[1];
    return (rt, dot, final, fn) => {
      if (at !== null) rt.node = at;
      const a0 = e0(rt, dot);
      const a1 = e1 === null ? checkFinal(rt, final) : e1(rt, dot);
      let result: unknown;
      try {
        result = (fn as Callable).call(a0, a1);
      } catch (err) {
        failed(rt, err);
      }
      if (charged) charge(rt, costOf(result) + costOf(a0) + costOf(a1));
      return result;
    };
  }
  if (total === 3) {
    const e0 = evals[0];
    const e1 = evals[1];
    const e2 = hasFinal ? null : evals[2];
    return (rt, dot, final, fn) => {
      if (at !== null) rt.node = at;
      const a0 = e0(rt, dot);
      const a1 = e1(rt, dot);
      const a2 = e2 === null ? checkFinal(rt, final) : e2(rt, dot);
      let result: unknown;
      try {
        result = (fn as Callable).call(a0, a1, a2);
      } catch (err) {
        failed(rt, err);
      }
      if (charged) charge(rt, costOf(result) + costOf(a0) + costOf(a1) + costOf(a2));
      return result;
    };
  }
  return (rt, dot, final, fn) => {
    if (at !== null) rt.node = at;
    const argv: unknown[] = [];
    for (let j = 0; j < evals.length; j++) argv.push(evals[j](rt, dot));
    if (hasFinal) argv.push(checkFinal(rt, final));
    let result: unknown;
    try {
      result = (fn as Callable).call(...argv);
    } catch (err) {
      failed(rt, err);
    }
    if (charged) {
      let cost = costOf(result);
      for (const a of argv) cost += costOf(a);
      charge(rt, cost);
    }
    return result;
  };
}

type Callable = { call(...a: unknown[]): unknown };

/**
 * A method of a Go object, found only at run time (objects make a new function value per
 * lookup): its signature is known then, so the call is compiled on first use for each
 * signature and name, and kept.
 */
function methodCaller(node: Node, argNodes: readonly Node[] | null): MethodCaller {
  // Made on the first method call: most field chains only ever read maps.
  let calls: Map<string, CallFn> | undefined;
  return (rt, dot, fn, name, final) => {
    const hasFinal = final !== MISSING;
    const key = `${name}\u0000${fn.params.join('\u0000')}\u0001${fn.variadic ?? ''}\u0001${hasFinal ? 1 : 0}`;
    calls ??= new Map();
    let call = calls.get(key);
    if (call === undefined) {
      call = compileCall(fn, 0, node, name, argNodes, hasFinal);
      if (calls.size < 64) calls.set(key, call);
    }
    return call(rt, dot, final, fn);
  };
}
