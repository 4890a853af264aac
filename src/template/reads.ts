/**
 * @module template/reads
 * Which parts of its data a template can read, from the parse tree alone: the field chains it
 * starts at the top-level data (`.Spec.Containers` where `.` is still the data, `$.ObjectMeta`
 * anywhere). Everything a render computes comes from those chains' values, constants and pure
 * functions: `range` and `with` move dot only to values derived from a chain, variables hold
 * derived values, and `{{template}}` passes one (or the data itself: then the called template's
 * reads count as the caller's). So two data values that agree on every chain render the same
 * text, which is what the injection core's render memo relies on.
 *
 * The answer is `null` (read everything: do not memoise) when the data escapes whole — a bare
 * `.` or `$` used as a value (`toJson .`, `$d := .`), or `$` reassigned — or when the set calls
 * a function whose result does not depend on its arguments alone (`env`).
 */
import { NodeType, type Node, type PipeNode, type Tree } from './ast.js';

/** Functions whose result depends on more than their arguments. */
const IMPURE: ReadonlySet<string> = new Set(['env', 'expandenv']);

export { IMPURE as IMPURE_FUNCTIONS };

class ReadsAll extends Error {}

/**
 * The field chains `tree` reads from the top-level data (each a list of field names, deduplicated,
 * a chain left out when a shorter one covers it), or null when it reads the data whole.
 */
export function rootReads(tree: Tree, lookup: (name: string) => Tree | undefined): string[][] | null {
  const chains = new Map<string, string[]>();
  const called = new Set<string>();
  const reader: Reader = {
    record(fields) {
      if (fields.length === 0) throw new ReadsAll();
      chains.set(fields.join('.'), [...fields]);
    },
    // `{{template "x" .}}`: x's dot and `$` are the data; each template is walked once.
    callWithData(name) {
      if (called.has(name)) return;
      called.add(name);
      const callee = lookup(name);
      if (callee === undefined) throw new ReadsAll(); // the render fails; nothing to remember
      walk(callee.root, true, reader);
    },
  };
  try {
    walk(tree.root, true, reader);
  } catch (err) {
    // A tree too deep to walk is treated as reading everything (never memoised).
    if (err instanceof ReadsAll || err instanceof RangeError) return null;
    throw err;
  }
  return covering([...chains.values()]);
}

/** Drop chains that extend another chain (`.Spec` covers `.Spec.Containers`). */
function covering(chains: string[][]): string[][] {
  chains.sort((a, b) => a.length - b.length);
  const kept: string[][] = [];
  for (const c of chains) {
    if (!kept.some((k) => k.every((f, i) => c[i] === f))) kept.push(c);
  }
  return kept;
}

interface Reader {
  record(fields: readonly string[]): void;
  callWithData(name: string): void;
}

/** `dotIsData`: whether `.` here is still the top-level data. `$` always is (the tree is the top template). */
function walk(n: Node, dotIsData: boolean, reader: Reader): void {
  switch (n.type) {
    case NodeType.List:
      for (const c of n.nodes) walk(c, dotIsData, reader);
      return;
    case NodeType.Action:
      pipe(n.pipe, dotIsData, reader);
      return;
    case NodeType.If:
      pipe(n.pipe, dotIsData, reader);
      walk(n.list, dotIsData, reader);
      if (n.elseList !== null) walk(n.elseList, dotIsData, reader);
      return;
    case NodeType.Range:
    case NodeType.With:
      // The body's dot is the pipeline's value (derived); `else` runs with the outer dot.
      pipe(n.pipe, dotIsData, reader);
      walk(n.list, false, reader);
      if (n.elseList !== null) walk(n.elseList, dotIsData, reader);
      return;
    case NodeType.Template: {
      // The called template sees only this value (its `.` and `$`): what it reads is derived,
      // unless the value is the data itself.
      if (n.pipe === null) return;
      const only = n.pipe.decl.length === 0 && n.pipe.cmds.length === 1 && n.pipe.cmds[0].args.length === 1 ? n.pipe.cmds[0].args[0] : undefined;
      const isData =
        only !== undefined &&
        ((only.type === NodeType.Dot && dotIsData) || (only.type === NodeType.Variable && only.ident.length === 1 && only.ident[0] === '$'));
      if (isData) reader.callWithData(n.name);
      else pipe(n.pipe, dotIsData, reader);
      return;
    }
    default:
      // Text, comments, break, continue: no reads.
      return;
  }
}

function pipe(p: PipeNode, dotIsData: boolean, reader: Reader): void {
  for (const v of p.decl) if (v.ident[0] === '$') throw new ReadsAll(); // `$` reassigned: no longer the data
  for (const cmd of p.cmds) for (const arg of cmd.args) operand(arg, dotIsData, reader);
}

function operand(n: Node, dotIsData: boolean, reader: Reader): void {
  switch (n.type) {
    case NodeType.Field:
      // A method in the chain is fine: the memo's key stops at the receiver (its value decides the call).
      if (dotIsData) reader.record(n.ident);
      return;
    case NodeType.Dot:
      if (dotIsData) throw new ReadsAll();
      return;
    case NodeType.Variable:
      if (n.ident[0] === '$') reader.record(n.fields);
      return;
    case NodeType.Chain:
      operand(n.node, dotIsData, reader);
      return;
    case NodeType.Pipe:
      pipe(n, dotIsData, reader);
      return;
    default:
      // Identifiers (functions), constants, nil.
      return;
  }
}
