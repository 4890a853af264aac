/**
 * @module patch/apply
 * A small, strict RFC 6902 applier for the CLI (`uninject`, showing what a webhook would do) and
 * for tests. It returns a new document and never mutates its inputs; a failing operation throws
 * InjectionError `SI_PATCH` naming the operation, so a patch applies entirely or not at all.
 * Keys such as `__proto__` are ordinary data here (own-property reads, defineProperty writes).
 */
import { InjectionError } from '../errors.js';
import { cloneJson, deepEqual } from '../util/json.js';
import { formatPointer, parsePointer } from './json-pointer.js';
import { kindOf } from './values.js';
import { setOwn } from '../util/own.js';
import { describeValue } from '../util/describe.js';

type Obj = Record<string, unknown>;
type Container = Obj | unknown[];

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/** Apply `ops` to a copy of `doc` and return the copy. */
export function applyPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) {
    throw new InjectionError('SI_PATCH', `a JSON patch must be a list of operations, got ${describeValue(ops)}`);
  }
  let root: unknown = cloneJson(doc);
  for (let i = 0; i < ops.length; i++) {
    try {
      root = applyOne(root, ops[i]);
    } catch (err) {
      if (err instanceof OpFailure || err instanceof InjectionError) {
        const op = ops[i] as Obj | null;
        const label = kindOf(op) === 'object' ? `${String(op?.op)} ${JSON.stringify(op?.path)}` : describeValue(op);
        throw new InjectionError('SI_PATCH', `JSON patch operation ${i} (${label}) failed: ${err.message}`, {
          cause: err,
          details: { index: i },
        });
      }
      throw err;
    }
  }
  return root;
}

class OpFailure extends Error {}

function applyOne(root: unknown, raw: unknown): unknown {
  if (kindOf(raw) !== 'object') throw new OpFailure('an operation must be a map with "op" and "path"');
  const op = raw as Obj;
  if (typeof op.path !== 'string') throw new OpFailure('"path" must be a string');
  const path = parsePointer(op.path);
  switch (op.op) {
    case 'add':
      return add(root, path, valueOf(op));
    case 'remove':
      return remove(root, path).root;
    case 'replace': {
      const value = valueOf(op);
      if (path.length === 0) return value;
      const { parent, key } = locate(root, path);
      if (Array.isArray(parent)) parent[key as number] = value;
      else setOwn(parent, key as string, value);
      return root;
    }
    case 'test': {
      const value = valueOf(op);
      if (!deepEqual(read(root, path), value)) throw new OpFailure('the value there is different');
      return root;
    }
    case 'move': {
      const from = fromOf(op);
      if (from.length < path.length && from.every((t, i) => t === path[i])) {
        throw new OpFailure('cannot move a value into one of its own children');
      }
      const removed = remove(root, from);
      return add(removed.root, path, removed.value);
    }
    case 'copy':
      return add(root, path, cloneJson(read(root, fromOf(op))));
    default:
      throw new OpFailure(`unknown op ${JSON.stringify(op.op)}; use add, remove, replace, move, copy or test`);
  }
}

function valueOf(op: Obj): unknown {
  if (!Object.hasOwn(op, 'value') || op.value === undefined) throw new OpFailure('the operation needs a "value"');
  if (kindOf(op.value) === 'invalid') throw new OpFailure(`"value" is ${describeValue(op.value)}, not JSON`);
  return cloneJson(op.value);
}

function fromOf(op: Obj): string[] {
  if (typeof op.from !== 'string') throw new OpFailure('the operation needs a "from" string');
  return parsePointer(op.from);
}

function add(root: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const parent = parentOf(root, path);
  const token = path[path.length - 1];
  if (Array.isArray(parent)) {
    const index = token === '-' ? parent.length : arrayIndex(token, parent.length, true);
    parent.splice(index, 0, value);
  } else {
    setOwn(parent, token, value);
  }
  return root;
}

function remove(root: unknown, path: string[]): { root: unknown; value: unknown } {
  if (path.length === 0) throw new OpFailure('cannot remove the whole document');
  const { parent, key } = locate(root, path);
  if (Array.isArray(parent)) return { root, value: parent.splice(key as number, 1)[0] };
  const value = parent[key as string];
  delete parent[key as string];
  return { root, value };
}

function read(root: unknown, path: string[]): unknown {
  if (path.length === 0) return root;
  const { parent, key } = locate(root, path);
  return Array.isArray(parent) ? parent[key as number] : parent[key as string];
}

/** The container of the last token, which must exist (remove/replace/test/move-from). */
function locate(root: unknown, path: string[]): { parent: Container; key: string | number } {
  const parent = parentOf(root, path);
  const token = path[path.length - 1];
  if (Array.isArray(parent)) return { parent, key: arrayIndex(token, parent.length) };
  if (!Object.hasOwn(parent, token)) throw new OpFailure(`there is no "${token}" at ${pointerOf(path.slice(0, -1))}`);
  return { parent, key: token };
}

/** Walk to the container holding the last token; every step must exist and be a container. */
function parentOf(root: unknown, path: string[]): Container {
  let node: unknown = root;
  for (let i = 0; i < path.length - 1; i++) {
    const t = path[i];
    if (Array.isArray(node)) node = node[arrayIndex(t, node.length)];
    else if (kindOf(node) === 'object' && Object.hasOwn(node as Obj, t)) node = (node as Obj)[t];
    else throw new OpFailure(`the path does not exist: nothing at ${pointerOf(path.slice(0, i + 1))}`);
  }
  const k = kindOf(node);
  if (k !== 'object' && k !== 'array') {
    throw new OpFailure(`the parent ${pointerOf(path.slice(0, -1))} is ${describeValue(node)}, not a map or a list`);
  }
  return node as Container;
}

/** An array index token: digits without leading zeros; `add` may also address the end. */
function arrayIndex(token: string, length: number, forAdd = false): number {
  if (!ARRAY_INDEX.test(token)) throw new OpFailure(`"${token}" is not a valid list index`);
  const n = Number(token);
  if (forAdd ? n > length : n >= length) throw new OpFailure(`list index ${n} is out of range for a list of ${length} items`);
  return n;
}

function pointerOf(tokens: string[]): string {
  return tokens.length === 0 ? '(root)' : formatPointer(tokens);
}
