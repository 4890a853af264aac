/**
 * @module template/funcs/lists
 * Sprig's list functions. They accept any Go slice (reflection in Sprig) and return new
 * `[]interface {}` values; the input is never modified. A non-list argument fails with Sprig's
 * message ("Cannot find first on type map"), and nil fails as Go does when Sprig calls a method
 * on reflect.TypeOf(nil).
 */
import { goFunc, GoFuncError, INTERFACE, taggedGoType, withGoType, type FuncMap } from '../value.js';
import { goDeepEqual, ifaceResult, isEmpty, isNil, kindForError, toInt64 } from './coerce.js';
import { nilSlice } from './nil.js';

const NIL_DEREF = 'runtime error: invalid memory address or nil pointer dereference';

/** The list, or Sprig's error for what reflect.TypeOf(v).Kind() says it is. */
function listOf(v: unknown, message: (kind: string) => string): unknown[] {
  if (Array.isArray(v)) return v;
  if (isNil(v)) throw new GoFuncError(NIL_DEREF);
  throw new GoFuncError(message(kindForError(v)));
}

const find =
  (what: string) =>
  (kind: string): string =>
    `Cannot find ${what} on type ${kind}`;

function first(list: unknown): unknown {
  const l = listOf(list, find('first'));
  return l.length === 0 ? undefined : ifaceResult(l[0]);
}

function last(list: unknown): unknown {
  const l = listOf(list, find('last'));
  return l.length === 0 ? undefined : ifaceResult(l[l.length - 1]);
}

function rest(list: unknown): unknown[] {
  const l = listOf(list, find('rest'));
  return l.length === 0 ? nilSlice() : l.slice(1);
}

function initial(list: unknown): unknown[] {
  const l = listOf(list, find('initial'));
  return l.length === 0 ? nilSlice() : l.slice(0, l.length - 1);
}

function push(list: unknown, v: unknown): unknown[] {
  return [...listOf(list, (k) => `Cannot push on type ${k}`), v];
}

function prepend(list: unknown, v: unknown): unknown[] {
  return [v, ...listOf(list, (k) => `Cannot prepend on type ${k}`)];
}

function reverse(v: unknown): unknown[] {
  return [...listOf(v, find('reverse'))].reverse();
}

function compact(list: unknown): unknown[] {
  return listOf(list, (k) => `Cannot compact on type ${k}`).filter((x) => !isEmpty(x));
}

function inList(haystack: readonly unknown[], needle: unknown): boolean {
  return haystack.some((h) => goDeepEqual(needle, h));
}

function uniq(list: unknown): unknown[] {
  const dest: unknown[] = [];
  for (const item of listOf(list, find('uniq'))) if (!inList(dest, item)) dest.push(item);
  return dest;
}

function without(list: unknown, ...omit: unknown[]): unknown[] {
  return listOf(list, find('without')).filter((item) => !inList(omit, item));
}

function has(needle: unknown, haystack: unknown): boolean {
  if (isNil(haystack)) return false;
  return inList(listOf(haystack, find('has')), needle);
}

/** Sprig's slice (it replaces Go's builtin of the same name): keeps the list's Go type. */
function slice(list: unknown, ...indices: unknown[]): unknown {
  const l = listOf(list, (k) => `list should be type of slice or array but ${k}`);
  if (l.length === 0) return undefined;
  const start = indices.length > 0 ? toInt64(indices[0]) : 0n;
  const end = indices.length < 2 ? BigInt(l.length) : toInt64(indices[1]);
  if (start < 0n || end < start || end > BigInt(l.length)) {
    throw new GoFuncError('reflect.Value.Slice: slice index out of bounds');
  }
  const out = l.slice(Number(start), Number(end));
  const tag = taggedGoType(l);
  return tag === undefined ? out : withGoType(out, tag);
}

function concat(...lists: unknown[]): unknown[] {
  const res: unknown[] = [];
  for (const list of lists) {
    if (isNil(list)) throw new GoFuncError(NIL_DEREF);
    if (!Array.isArray(list)) throw new GoFuncError(`Cannot concat type ${kindForError(list)} as list`);
    res.push(...list);
  }
  // Sprig appends to a nil slice, so nothing appended leaves it nil.
  return res.length === 0 ? nilSlice() : res;
}

function chunk(size: bigint, list: unknown): unknown[][] {
  const l = listOf(list, (k) => `Cannot chunk type ${k}`);
  const out = withGoType<unknown[][]>([], '[][]interface {}');
  if (l.length === 0 && size > 0n) return out;
  // Sprig computes the chunk count in float64; a size below 1 makes Go's make() panic, except
  // for a one-element list with a negative size, which yields that element alone.
  if (size <= 0n) {
    if (size < 0n && l.length === 1) {
      out.push([l[0]]);
      return out;
    }
    throw new GoFuncError('runtime error: makeslice: len out of range');
  }
  const n = Number(size);
  for (let i = 0; i < l.length; i += n) out.push(l.slice(i, i + n));
  return out;
}

const I = INTERFACE;

export const listFuncs: FuncMap = {
  list: goFunc([], (...v: unknown[]) => v, I),
  tuple: goFunc([], (...v: unknown[]) => v, I),
  first: goFunc([I], first),
  mustFirst: goFunc([I], first),
  last: goFunc([I], last),
  mustLast: goFunc([I], last),
  rest: goFunc([I], rest),
  mustRest: goFunc([I], rest),
  initial: goFunc([I], initial),
  mustInitial: goFunc([I], initial),
  append: goFunc([I, I], push),
  push: goFunc([I, I], push),
  mustAppend: goFunc([I, I], push),
  mustPush: goFunc([I, I], push),
  prepend: goFunc([I, I], prepend),
  mustPrepend: goFunc([I, I], prepend),
  concat: goFunc([], concat, I),
  reverse: goFunc([I], reverse),
  mustReverse: goFunc([I], reverse),
  uniq: goFunc([I], uniq),
  mustUniq: goFunc([I], uniq),
  without: goFunc([I], without, I),
  mustWithout: goFunc([I], without, I),
  has: goFunc([I, I], has),
  mustHas: goFunc([I, I], has),
  compact: goFunc([I], compact),
  mustCompact: goFunc([I], compact),
  slice: goFunc([I], slice, I),
  mustSlice: goFunc([I], slice, I),
  chunk: goFunc(['int', I], chunk),
  mustChunk: goFunc(['int', I], chunk),
};
