/**
 * @module template/funcs/flow
 * Defaults and flow control: Sprig's `default`, `empty`, `coalesce`, `all`, `any`, `ternary`,
 * `fail`, and Helm's `required` (not in Sprig itself; Helm registers it, and templates written
 * for Helm-style charts expect it). "Empty" is Go's zero value: 0, "", false, nil, empty
 * list/map; structs never.
 */
import { sprintf } from '../go-fmt.js';
import { goFunc, GoFuncError, INTERFACE, type FuncMap } from '../value.js';
import { ifaceResult, isEmpty, isNil } from './coerce.js';

function dfault(d: unknown, ...given: unknown[]): unknown {
  if (given.length === 0 || isEmpty(given[0])) return ifaceResult(d);
  return ifaceResult(given[0]);
}

function coalesce(...v: unknown[]): unknown {
  for (const x of v) if (!isEmpty(x)) return x;
  return undefined;
}

/** Helm's required: fails on nil or "" with the message (which Helm treats as a format string). */
function required(warn: string, val: unknown): unknown {
  if (isNil(val) || val === '') throw new GoFuncError(sprintf(warn, []));
  return val;
}

export const defaultFuncs: FuncMap = {
  default: goFunc([INTERFACE], dfault, INTERFACE),
  empty: goFunc([INTERFACE], isEmpty),
  coalesce: goFunc([], coalesce, INTERFACE),
  all: goFunc([], (...v: unknown[]) => v.every((x) => !isEmpty(x)), INTERFACE),
  any: goFunc([], (...v: unknown[]) => v.some((x) => !isEmpty(x)), INTERFACE),
  ternary: goFunc([INTERFACE, INTERFACE, 'bool'], (vt: unknown, vf: unknown, v: boolean) => ifaceResult(v ? vt : vf)),
  fail: goFunc(['string'], (msg: string): never => {
    throw new GoFuncError(msg);
  }),
  required: goFunc(['string', INTERFACE], required),
};
