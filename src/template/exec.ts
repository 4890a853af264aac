/**
 * @module template/exec
 * The executor of Go's text/template (exec.go): walks a parsed tree against data and writes
 * text. It mirrors Go's evaluation order and its notion of the "current node" (`s.at(node)`)
 * so execution errors read exactly like Go's:
 * `template: t:1:4: executing "t" at <.a.b>: nil pointer evaluating interface {}.b`.
 *
 * Values are value.ts values as they are: `undefined` is Go's invalid value, `null` a nil
 * interface. One executor state is made per render; the tree is never modified, so a parsed
 * template is rendered any number of times, concurrently if need be.
 *
 * Differences from Go, on purpose: nested template calls are limited to `maxDepth`
 * (default {@link DEFAULT_MAX_DEPTH}, Go: 100,000) because JavaScript's stack is smaller; a
 * stack overflow anywhere becomes the same "exceeded maximum template depth" error. And a
 * render is bounded in work (`maxSteps`) and output (`maxOutput`), where Go would run until
 * done: a template that recurses twice per level or nests loops over the same list can take
 * longer than any webhook deadline, so it fails instead.
 */

import {
  NodeType,
  nodeString,
  type BranchNode,
  type ChainNode,
  type CommandNode,
  type FieldNode,
  type IdentifierNode,
  type ListNode,
  type Node,
  type NumberNode,
  type PipeNode,
  type TemplateNode,
  type Tree,
  type VariableNode,
} from './ast.js';
import { formatForTemplate } from './go-fmt.js';
import { quote, sortStrings } from './quote.js';
import { isTrue } from './truth.js';
import { ArgProblem, constantArg, idealConstant, nilArg, validateType } from './arg-convert.js';
import { Kind, REFLECT_VALUE, kindOf, mapElemType, sliceElemType } from './reflect-kinds.js';
import { INTERFACE, type GoFunc } from './value.js';
import { DepthExceeded, ExecState, isStackOverflow, type ExecConfig, type IfaceSource } from './exec-state.js';

export { isStackOverflow, type ExecConfig, type MissingKey } from './exec-state.js';

/**
 * Default limit on nested {{template}} calls (Go allows 100,000). Measured on Node 20 with its
 * default stack (src/template/exec.test.ts has the shapes): the stack runs out after about
 * 820 levels when each level ranges over a map and branches twice, about 1,750 when it uses
 * `with`. 500 keeps the common shapes well clear of that, with room for the caller's stack.
 * Should the stack run out anyway, the same error is reported.
 */
export const DEFAULT_MAX_DEPTH = 500;

/** Default work limit: far above real templates (the 24 KB sidecar benchmark template takes 568 steps). */
export const DEFAULT_MAX_STEPS = 10_000_000;
/**
 * Functions whose work does not grow with their arguments (Go passes slices, maps and strings
 * by reference): they cost one step like any node, whatever the size of what they are given.
 */
export const CONSTANT_COST: ReadonlySet<string> = new Set([
  'len',
  'index',
  'first',
  'mustFirst',
  'last',
  'mustLast',
  'get',
  'hasKey',
  'dig',
  'default',
  'empty',
  'coalesce',
  'ternary',
  'required',
  'typeOf',
  'typeIs',
  'typeIsLike',
  'kindOf',
  'kindIs',
  'not',
  'and',
  'or',
  'call',
  'fail',
]);

/** Steps for a value a function read or built: list elements, or string length / 4. */
export function costOf(v: unknown): number {
  if (typeof v === 'string') return v.length >>> 2;
  if (Array.isArray(v)) return v.length;
  return 0;
}

/** Default output limit: 64 Mi characters. */
export const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;

/** Looks up a template by name in the set the executing template belongs to. */
export type TreeLookup = (name: string) => Tree | undefined;

/** Marks "no final value" in a pipeline (Go's missingVal). */
const MISSING: unique symbol = Symbol('missing');
type Final = unknown;

const BREAK = 1;
const CONTINUE = 2;

export function executeTree(tree: Tree, lookup: TreeLookup, data: unknown, config: ExecConfig): string {
  // A nil top-level value is Go's reflect.ValueOf(nil): the invalid value.
  if (data === null) data = undefined;
  const state = new State(lookup, config, tree.name);
  state.push('$', data, false);
  try {
    state.walk(data, tree.root);
  } catch (err) {
    throw state.toTemplateError(err);
  }
  return state.out;
}

class State extends ExecState {
  constructor(
    private readonly lookup: TreeLookup,
    config: ExecConfig,
    tmplName: string,
  ) {
    super(config, tmplName);
  }

  private mark(): number {
    return this.sp;
  }

  // ---- walking ----------------------------------------------------------------------------

  /**
   * Returns BREAK or CONTINUE when a {{break}}/{{continue}} unwinds, else 0. Control
   * structures loop over their bodies here rather than through a helper, which keeps the
   * JavaScript stack shallow for recursive templates.
   */
  walk(dot: unknown, node: Node): number {
    this.node = node;
    if (--this.stepsLeft < 0) this.errorf(`exceeded maximum number of execution steps (${this.maxSteps})`);
    switch (node.type) {
      case NodeType.Text:
        this.out += node.text;
        if (this.out.length > this.maxOutput) this.outputTooLarge();
        return 0;
      case NodeType.Action: {
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return 0;
      }
      case NodeType.List:
        return this.walkList(dot, node);
      case NodeType.If:
      case NodeType.With: {
        const mark = this.mark();
        const val = this.evalPipeline(dot, node.pipe);
        let list: ListNode | null;
        let d = dot;
        const savedIface = this.dotIface;
        if (isTrue(val)) {
          list = node.list;
          if (node.type === NodeType.With) {
            d = val;
            this.dotIface = false;
          }
        } else {
          list = node.elseList;
        }
        let signal = 0;
        if (list !== null) {
          const nodes = list.nodes;
          for (let i = 0; i < nodes.length; i++) {
            signal = this.walk(d, nodes[i]);
            if (signal !== 0) break;
          }
        }
        this.dotIface = savedIface;
        this.pop(mark);
        return signal;
      }
      case NodeType.Range:
        this.walkRange(dot, node);
        return 0;
      case NodeType.Template:
        this.walkTemplate(dot, node);
        return 0;
      case NodeType.Break:
        return BREAK;
      case NodeType.Continue:
        return CONTINUE;
      default:
        this.errorf(`unknown node: ${nodeString(node)}`);
    }
  }

  private walkList(dot: unknown, list: ListNode): number {
    const nodes = list.nodes;
    for (let i = 0; i < nodes.length; i++) {
      const signal = this.walk(dot, nodes[i]);
      if (signal !== 0) return signal;
    }
    return 0;
  }

  private walkRange(dot: unknown, r: BranchNode): void {
    this.node = r;
    const outer = this.mark();
    const val = this.evalPipeline(dot, r.pipe);
    const mark = this.mark();
    const decls = r.pipe.decl.length;
    const savedIface = this.dotIface;
    const body = r.list.nodes;
    let ran = false;
    switch (kindOf(val)) {
      case Kind.Slice: {
        const a = val as unknown[];
        if (a.length === 0) break;
        ran = true;
        const iface = sliceElemType(a) === INTERFACE;
        this.dotIface = iface;
        loop: for (let i = 0; i < a.length; i++) {
          const elem = a[i];
          if (decls > 0) this.setTopVar(1, elem, iface);
          if (decls > 1) this.setTopVar(2, BigInt(i), false);
          for (let j = 0; j < body.length; j++) {
            const signal = this.walk(elem, body[j]);
            if (signal === BREAK) break loop;
            if (signal === CONTINUE) break;
          }
          this.pop(mark);
        }
        break;
      }
      case Kind.Map: {
        const m = val as Record<string, unknown>;
        const keys = sortStrings(Object.keys(m));
        if (keys.length === 0) break;
        ran = true;
        const iface = mapElemType(m) === INTERFACE;
        this.dotIface = iface;
        loop: for (let i = 0; i < keys.length; i++) {
          const elem = m[keys[i]];
          if (decls > 0) this.setTopVar(1, elem, iface);
          if (decls > 1) this.setTopVar(2, keys[i], false);
          for (let j = 0; j < body.length; j++) {
            const signal = this.walk(elem, body[j]);
            if (signal === BREAK) break loop;
            if (signal === CONTINUE) break;
          }
          this.pop(mark);
        }
        break;
      }
      case Kind.Invalid:
        break;
      default:
        this.errorf(`range can't iterate over ${formatForTemplate(val)}`);
    }
    this.dotIface = savedIface;
    if (!ran && r.elseList !== null) this.walkList(dot, r.elseList);
    this.pop(outer);
  }

  private walkTemplate(dot: unknown, t: TemplateNode): void {
    this.node = t;
    const tree = this.lookup(t.name);
    if (tree === undefined) this.errorf(`template ${quote(t.name)} not defined`);
    if (this.depth >= this.maxDepth) throw new DepthExceeded();
    const newDot = this.evalPipeline(dot, t.pipe);
    const { base, tmplName, dotIface } = this;
    this.base = this.sp;
    this.push('$', newDot, false);
    this.tmplName = tree.name;
    this.dotIface = false;
    this.depth++;
    const nodes = tree.root.nodes;
    for (let i = 0; i < nodes.length; i++) this.walk(newDot, nodes[i]);
    this.depth--;
    this.pop(this.base);
    this.base = base;
    this.tmplName = tmplName;
    this.dotIface = dotIface;
  }

  // ---- pipelines and commands ----------------------------------------------------------------

  evalPipeline(dot: unknown, pipe: PipeNode | null): unknown {
    if (pipe === null) return undefined;
    this.node = pipe;
    let value: unknown = MISSING;
    const cmds = pipe.cmds;
    for (let i = 0; i < cmds.length; i++) {
      value = this.evalCommand(dot, cmds[i], value);
      // A nil interface{} result unwraps to the invalid value (Go's "dig down one level").
      if (value === null) value = undefined;
    }
    const decl = pipe.decl;
    for (let i = 0; i < decl.length; i++) {
      if (pipe.isAssign) this.setVar(decl[i].ident[0], value);
      else this.push(decl[i].ident[0], value, false);
    }
    return value;
  }

  private notAFunction(args: readonly Node[] | null, final: Final): void {
    if ((args !== null && args.length > 1) || final !== MISSING) {
      this.errorf(`can't give argument to non-function ${nodeString((args as Node[])[0])}`);
    }
  }

  private evalCommand(dot: unknown, cmd: CommandNode, final: Final): unknown {
    const first = cmd.args[0];
    switch (first.type) {
      case NodeType.Field:
        return this.evalFieldNode(dot, first, cmd.args, final);
      case NodeType.Chain:
        return this.evalChainNode(dot, first, cmd.args, final);
      case NodeType.Identifier:
        return this.evalFunction(dot, first, cmd, cmd.args, final);
      case NodeType.Pipe:
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case NodeType.Variable:
        return this.evalVariableNode(dot, first, cmd.args, final);
    }
    this.node = first;
    this.notAFunction(cmd.args, final);
    switch (first.type) {
      case NodeType.Bool:
        return first.value;
      case NodeType.Dot:
        return dot;
      case NodeType.Nil:
        this.errorf('nil is not a command');
      case NodeType.Number:
        return this.idealConstant(first);
      case NodeType.String:
        return first.text;
    }
    this.errorf(`can't evaluate command ${quote(nodeString(first))}`);
  }

  private idealConstant(n: NumberNode): unknown {
    this.node = n;
    const v = idealConstant(n);
    if (v instanceof ArgProblem) this.errorf(v.message);
    return v;
  }

  // ---- fields -----------------------------------------------------------------------------

  private evalFieldNode(dot: unknown, field: FieldNode, args: readonly Node[] | null, final: Final): unknown {
    this.node = field;
    return this.evalFieldChain(dot, dot, this.dotIface, field, field.ident, args, final);
  }

  private evalChainNode(dot: unknown, chain: ChainNode, args: readonly Node[] | null, final: Final): unknown {
    this.node = chain;
    if (chain.node.type === NodeType.Nil) this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const pipe = this.evalArg(dot, null, chain.node);
    return this.evalFieldChain(dot, pipe, false, chain, chain.fields, args, final);
  }

  private evalVariableNode(dot: unknown, v: VariableNode, args: readonly Node[] | null, final: Final): unknown {
    this.node = v;
    const i = this.varIndex(v.ident[0]);
    const value = this.values[i];
    if (v.ident.length === 1) {
      this.notAFunction(args, final);
      this.lastFrom = this.ifaces[i];
      return value;
    }
    return this.evalFieldChain(dot, value, this.ifaces[i], v, v.fields, args, final);
  }

  /**
   * Where the last evalField result came from, to tell later whether its static Go type is
   * interface {}: `true`/`false`, or the map it was read from (decided only if an error needs it).
   */

  private evalFieldChain(
    dot: unknown,
    receiver: unknown,
    iface: IfaceSource,
    node: Node,
    ident: readonly string[],
    args: readonly Node[] | null,
    final: Final,
  ): unknown {
    const n = ident.length;
    for (let i = 0; i < n - 1; i++) {
      receiver = this.fieldOf(dot, ident[i], node, null, MISSING, receiver, iface);
      iface = this.lastFrom;
    }
    return this.fieldOf(dot, ident[n - 1], node, args, final, receiver, iface);
  }

  /** A field of `receiver` (exec-state.ts evalField), with the command's arguments for a method. */
  private fieldOf(dot: unknown, fieldName: string, node: Node, args: readonly Node[] | null, final: Final, receiver: unknown, iface: IfaceSource): unknown {
    return this.evalField(dot, fieldName, node, (args !== null && args.length > 1) || final !== MISSING, args, final, receiver, iface);
  }

  /** The method of a Go object found by evalField (exec-state.ts), called with the command's arguments. */
  protected override callFieldMethod(dot: unknown, fn: GoFunc, node: Node, fieldName: string, args: unknown, final: unknown): unknown {
    return this.evalCall(dot, fn, 0, node, fieldName, args as readonly Node[] | null, final as Final);
  }

  // ---- function calls ---------------------------------------------------------------------

  private evalFunction(dot: unknown, node: IdentifierNode, cmd: Node, args: readonly Node[] | null, final: Final): unknown {
    this.node = node;
    const fn = node.fn;
    if (fn === undefined) this.errorf(`${quote(node.ident)} is not a defined function`);
    return this.evalCall(dot, fn, node.shortCircuit, cmd, node.ident, args, final);
  }

  private evalCall(dot: unknown, fn: GoFunc, shortCircuit: 0 | 1 | 2, node: Node, name: string, argNodes: readonly Node[] | null, final: Final): unknown {
    // argNodes[0] is the function's own node; arguments start at 1.
    const nargs = argNodes === null ? 0 : argNodes.length - 1;
    const numIn = nargs + (final !== MISSING ? 1 : 0);
    const params = fn.params;
    const variadic = fn.variadic;
    let numFixed = nargs;
    if (variadic !== undefined) {
      numFixed = params.length;
      if (numIn < numFixed) this.errorf(`wrong number of args for ${name}: want at least ${params.length} got ${nargs}`);
    } else if (numIn !== params.length) {
      this.errorf(`wrong number of args for ${name}: want ${params.length} got ${numIn}`);
    }

    if (shortCircuit !== 0) {
      let v: unknown;
      const isOr = shortCircuit === 2;
      for (let i = 1; i <= nargs; i++) {
        v = this.evalArg(dot, REFLECT_VALUE, (argNodes as Node[])[i]);
        if (isTrue(v === null ? undefined : v) === isOr) return v;
      }
      if (final !== MISSING) v = this.validate(final, REFLECT_VALUE);
      return v;
    }

    const argv: unknown[] = [];
    let i = 0;
    for (; i < numFixed && i < nargs; i++) argv.push(this.evalArg(dot, params[i], (argNodes as Node[])[i + 1]));
    if (variadic !== undefined) {
      for (; i < nargs; i++) argv.push(this.evalArg(dot, variadic, (argNodes as Node[])[i + 1]));
    }
    if (final !== MISSING) {
      let t = params[params.length - 1];
      if (variadic !== undefined) t = numIn - 1 < numFixed ? params[numIn - 1] : variadic;
      argv.push(this.validate(final, t));
    }
    let result: unknown;
    try {
      result = (fn.call as (...a: unknown[]) => unknown)(...argv);
    } catch (err) {
      if (err instanceof DepthExceeded || isStackOverflow(err)) throw err;
      this.node = node;
      this.errorf(`error calling ${name}: ${err instanceof Error ? err.message : String(err)}`, err);
    }
    if (!CONSTANT_COST.has(name)) this.charge(node, argv, result);
    return result;
  }

  /**
   * A function's real work counts against the step budget: the lists and strings it reads or
   * builds (`append` copies its whole list, `printf "%s%s" $acc .x` its whole string), so a
   * template that copies a list per element stops with the step error long before it blocks the
   * process for seconds. Lists count one step per element, strings one per 4 characters.
   */
  private charge(node: Node, argv: readonly unknown[], result: unknown): void {
    let cost = costOf(result);
    for (const a of argv) cost += costOf(a);
    if (cost === 0) return;
    this.stepsLeft -= cost;
    if (this.stepsLeft < 0) {
      this.node = node;
      this.errorf(`exceeded maximum number of execution steps (${this.maxSteps})`);
    }
  }

  /** Go's evalArg: evaluate an argument node for a parameter of type `typ` (null: untyped). */
  private evalArg(dot: unknown, typ: string | null, n: Node): unknown {
    this.node = n;
    let v: unknown;
    switch (n.type) {
      case NodeType.Dot:
        v = validateType(dot, typ, this.dotIface);
        break;
      case NodeType.Nil:
        v = nilArg(typ);
        break;
      case NodeType.Field:
        v = this.evalFieldNode(dot, n, [n], MISSING);
        v = validateType(v, typ, v === null && this.lastIsIface());
        break;
      case NodeType.Variable:
        v = this.evalVariableNode(dot, n, null, MISSING);
        v = validateType(v, typ, v === null && this.lastIsIface());
        break;
      case NodeType.Pipe:
        v = validateType(this.evalPipeline(dot, n), typ);
        break;
      case NodeType.Identifier:
        v = validateType(this.evalFunction(dot, n, n, null, MISSING), typ);
        break;
      case NodeType.Chain:
        v = this.evalChainNode(dot, n, null, MISSING);
        v = validateType(v, typ, v === null && this.lastIsIface());
        break;
      default:
        this.node = n;
        v = constantArg(n, typ);
    }
    if (v instanceof ArgProblem) this.errorf(v.message);
    return v;
  }
}
