/**
 * @module template/arg-convert
 * How an argument reaches a function parameter of a given Go type, as text/template's
 * evalArg and validateType decide: untyped constants convert to the parameter's type
 * (`3` to int, int64 or float64; `1.5` only to floats), computed values must already have
 * that type (`wrong type for value; expected int; got float64`), and nil fits only where Go
 * allows a nil. Failures are returned as {@link ArgProblem}, which the executor reports at
 * the argument's node.
 */

import { NodeType, nodeString, type Node, type NumberNode } from './ast.js';
import { Kind, REFLECT_VALUE, assignable, canBeNil, floatOfType, intOfType, nilOf, typeKind } from './reflect-kinds.js';
import { GoComplex, INTERFACE, goTypeName } from './value.js';

/** Why an argument cannot be passed; its message is Go's. */
export class ArgProblem {
  constructor(readonly message: string) {}
}

/**
 * Go's validateType: check (and for nil, convert) a computed value for a parameter type
 * (null: untyped). `nilInterface` tells whether a null was read from an interface {} slot
 * (a JSON null in a map or list): Go refuses that for map, slice and pointer parameters,
 * while a typed nil (a nil pointer field of a Go struct) fits them.
 */
export function validateType(value: unknown, typ: string | null, nilInterface = false): unknown {
  if (value === undefined) {
    if (typ === null) return undefined;
    if (canBeNil(typ)) return nilOf(typ);
    return new ArgProblem(`invalid value; expected ${typ}`);
  }
  if (typ === null || typ === REFLECT_VALUE || typ === INTERFACE) return value;
  if (typeKind(typ) === 'interface') return value;
  if (value === null) {
    if (!nilInterface && canBeNil(typ)) return null;
    return new ArgProblem(`wrong type for value; expected ${typ}; got ${INTERFACE}`);
  }
  if (!assignable(value, typ)) return new ArgProblem(`wrong type for value; expected ${typ}; got ${goTypeName(value)}`);
  return value;
}

/** A `nil` argument for a parameter of type `typ`. */
export function nilArg(typ: string | null): unknown {
  if (typ !== null && canBeNil(typ)) return nilOf(typ);
  return new ArgProblem(`cannot assign nil to ${typ}`);
}

/** A constant (bool, number or string node) for a parameter of type `typ` (null: untyped). */
export function constantArg(n: Node, typ: string | null): unknown {
  switch (typeKind(typ ?? INTERFACE)) {
    case Kind.Bool:
      if (n.type === NodeType.Bool) return n.value;
      return new ArgProblem(`expected bool; found ${nodeString(n)}`);
    case Kind.Float:
      if (n.type === NodeType.Number && n.isFloat) return floatOfType(n.float64, typ as string);
      return new ArgProblem(`expected float; found ${nodeString(n)}`);
    case Kind.Int:
      if (n.type === NodeType.Number && n.isInt) return intOfType(n.int64, typ as string);
      return new ArgProblem(`expected integer; found ${nodeString(n)}`);
    case Kind.Uint:
      if (n.type === NodeType.Number && n.isUint) return intOfType(n.uint64, typ as string);
      return new ArgProblem(`expected unsigned integer; found ${nodeString(n)}`);
    case Kind.String:
      if (n.type === NodeType.String) return n.text;
      return new ArgProblem(`expected string; found ${nodeString(n)}`);
    case 'interface':
    case 'reflect':
      switch (n.type) {
        case NodeType.Bool:
          return n.value;
        case NodeType.Number:
          return idealConstant(n);
        case NodeType.String:
          return n.text;
      }
      return new ArgProblem(`can't handle assignment of ${nodeString(n)} to empty interface argument`);
  }
  return new ArgProblem(`can't handle ${nodeString(n)} for arg of type ${typ}`);
}

/**
 * An untyped number constant used as a value (Go's idealConstant): complex if imaginary,
 * float64 if written as a float, else int; an integer beyond int64 is an error.
 */
export function idealConstant(n: NumberNode): unknown {
  const text = n.text;
  if (n.complex !== null) return new GoComplex(n.complex[0], n.complex[1]);
  const hexInt = text.length > 2 && text[0] === '0' && (text[1] === 'x' || text[1] === 'X') && !/[pP]/.test(text);
  if (n.isFloat && !hexInt && text[0] !== "'" && /[.eEpP]/.test(text)) return n.float64;
  if (n.isInt) return n.int64;
  if (n.isUint) return new ArgProblem(`${text} overflows int`);
  return undefined;
}
