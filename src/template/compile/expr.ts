/**
 * @module template/compile/expr
 * Pipelines, commands, arguments and field chains compiled to closures (calls: call.ts). Each
 * closure does what exec.ts does for its node, with everything that depends only on the tree
 * decided once: which kind of command it is, the function and its parameter types, each
 * argument's conversion, constants already converted, the field names of a chain, the cost
 * class of a function. What stays at run time is what depends on the data, in the
 * interpreter's order, including every assignment to `rt.node` (the node errors are reported
 * at): that is what keeps the error messages identical.
 */

import {
  NodeType,
  nodeString,
  type ChainNode,
  type CommandNode,
  type FieldNode,
  type IdentifierNode,
  type Node,
  type PipeNode,
  type VariableNode,
} from '../ast.js';
import { ArgProblem, constantArg, idealConstant, nilArg } from '../arg-convert.js';
import { quote } from '../quote.js';
import { compileCall, methodCaller, validator, type ArgFn } from './call.js';
import { MISSING, type IfaceSource, type Runtime } from './runtime.js';

/** Evaluates a pipeline (or nothing, for `{{template "x"}}`). */
export type PipeFn = (rt: Runtime, dot: unknown) => unknown;
/** Evaluates a command given the previous command's value (MISSING for the first). */
type CmdFn = (rt: Runtime, dot: unknown, final: unknown) => unknown;
/** A field chain from a receiver (exec.ts evalFieldChain). */
type ChainFn = (rt: Runtime, dot: unknown, receiver: unknown, iface: IfaceSource, final: unknown) => unknown;

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
  const lastCall = methodCaller(compileArg, node, args);
  if (n === 1) {
    return (rt, dot, receiver, iface, final) => rt.evalField(dot, last, node, lastHasArgs || final !== MISSING, lastCall, final, receiver, iface);
  }
  const noArgCall = methodCaller(compileArg, node, null);
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
    const call = methodCaller(compileArg, field, args);
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

/** A field, chain or variable argument: evaluated as a command, then checked against its parameter. */
function checkedCommand(n: Node, cmd: CmdFn, check: ReturnType<typeof validator>): ArgFn {
  return (rt, dot) => {
    rt.node = n;
    let v = cmd(rt, dot, MISSING);
    v = check(v, v === null && rt.lastIsIface());
    if (v instanceof ArgProblem) rt.errorf(v.message);
    return v;
  };
}

/** exec.ts evalArg: an argument node for a parameter of type `typ` (null: untyped). */
function compileArg(n: Node, typ: string | null): ArgFn {
  const check = validator(typ);
  switch (n.type) {
    case NodeType.Dot:
      return (rt, dot) => {
        rt.node = n;
        const v = check(dot, rt.dotIface);
        if (v instanceof ArgProblem) rt.errorf(v.message);
        return v;
      };
    case NodeType.Field:
      return checkedCommand(n, compileFieldNode(n, [n]), check);
    case NodeType.Variable:
    case NodeType.Chain: {
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
      return checkedCommand(n, n.type === NodeType.Variable ? compileVariableNode(n, null) : compileChainNode(n, null), check);
    }
    case NodeType.Pipe:
    case NodeType.Identifier: {
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
  // The function is bound into the call closure: a command is one closure call, not two.
  return compileCall(compileArg, fn, node.shortCircuit, cmd, node.ident, args, hasFinal, node, fn);
}
