/**
 * @module template/compile/call
 * Function and method calls compiled (exec.ts evalCall): arity checked once, each argument's
 * conversion chosen for its parameter type, the common arities called without an argument
 * array, and the call's cost class (exec.ts CONSTANT_COST) decided once. Arguments are compiled
 * by the `ArgCompiler` given (expr.ts compileArg), which keeps the two modules acyclic.
 */

import type { Node } from '../ast.js';
import { ArgProblem, validateType } from '../arg-convert.js';
import { CONSTANT_COST, costOf, isStackOverflow } from '../exec.js';
import { REFLECT_VALUE, typeKind } from '../reflect-kinds.js';
import { isTrue } from '../truth.js';
import { INTERFACE, type GoFunc } from '../value.js';
import { DepthExceeded, MISSING, type MethodCaller, type Runtime } from './runtime.js';

/** Evaluates an argument for a parameter whose type was fixed at compile time. */
export type ArgFn = (rt: Runtime, dot: unknown) => unknown;
/** Compiles an argument node for a parameter type (null: untyped). */
export type ArgCompiler = (n: Node, typ: string | null) => ArgFn;
/** Calls a function of the signature it was compiled for (methods are found per call). */
export type CallFn = (rt: Runtime, dot: unknown, final: unknown, fn?: GoFunc) => unknown;

/** exec.ts validateType for one parameter type, specialised where the answer is known. */
export type Validator = (v: unknown, nilInterface: boolean) => unknown;
const IDENTITY: Validator = (v) => v;
const TO_INTERFACE: Validator = (v) => (v === undefined ? null : v);

export function validator(typ: string | null): Validator {
  if (typ === null || typ === REFLECT_VALUE) return IDENTITY;
  if (typ === INTERFACE || typeKind(typ) === 'interface') return TO_INTERFACE;
  return (v, nilInterface) => validateType(v, typ, nilInterface);
}

/**
 * exec.ts evalCall with the function known: arity checked and argument conversions chosen
 * once. `hasFinal` tells whether a previous pipeline stage passes its value (every stage but
 * the first does). `at`: the identifier node made current first (exec.ts evalFunction's
 * `s.at(node)`), folded in here to save a closure per call; null for methods. `fixed`: the
 * function, when known at compile time (else each call passes the method it found).
 */
export function compileCall(
  compileArg: ArgCompiler,
  fn: Pick<GoFunc, 'params' | 'variadic'>,
  shortCircuit: 0 | 1 | 2,
  node: Node,
  name: string,
  argNodes: readonly Node[] | null,
  hasFinal: boolean,
  at: Node | null = null,
  fixed: GoFunc | null = null,
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
        result = ((fixed ?? fn) as Callable).call();
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
        result = ((fixed ?? fn) as Callable).call(a0);
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
        result = ((fixed ?? fn) as Callable).call(a0, a1);
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
        result = ((fixed ?? fn) as Callable).call(a0, a1, a2);
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
      result = ((fixed ?? fn) as Callable).call(...argv);
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
export function methodCaller(compileArg: ArgCompiler, node: Node, argNodes: readonly Node[] | null): MethodCaller {
  // Made on first use: most field chains only ever read maps. Getters (no parameters) are
  // keyed by name alone; other signatures by name and parameter types.
  let getters: Map<string, CallFn>[] | undefined;
  let calls: Map<string, CallFn> | undefined;
  return (rt, dot, fn, name, final) => {
    const hasFinal = final !== MISSING;
    let cache: Map<string, CallFn>;
    let key: string;
    if (fn.params.length === 0 && fn.variadic === undefined) {
      getters ??= [new Map(), new Map()];
      cache = getters[hasFinal ? 1 : 0];
      key = name;
    } else {
      cache = calls ??= new Map();
      key = `${name}\u0000${fn.params.join('\u0000')}\u0001${fn.variadic ?? ''}\u0001${hasFinal ? 1 : 0}`;
    }
    let call = cache.get(key);
    if (call === undefined) {
      call = compileCall(compileArg, fn, 0, node, name, argNodes, hasFinal);
      if (cache.size < 64) cache.set(key, call);
    }
    return call(rt, dot, final, fn);
  };
}
