/**
 * @module template/compile/program
 * Closure compilation of a template set: every statement node (text, action, if, with, range,
 * template, break, continue) becomes a JavaScript function made once, when the set is built,
 * and a render calls those functions instead of walking the tree (exec.ts). The interpreter is
 * the reference: same output, same errors at the same nodes, and the same step count (one step
 * per statement executed, plus what functions are charged), so the same templates hit the
 * same limits. src/template/compile/compiled-vs-interpreter.test.ts holds the two engines to that.
 */

import { NodeType, nodeString, type BranchNode, type ListNode, type Node, type TemplateNode, type Tree } from '../ast.js';
import type { ExecConfig } from '../exec.js';
import { formatForTemplate } from '../go-fmt.js';
import { Kind, kindOf, mapElemType, sliceElemType } from '../reflect-kinds.js';
import { quote, sortStrings } from '../quote.js';
import { isTrue } from '../truth.js';
import { INTERFACE } from '../value.js';
import { compilePipe } from './expr.js';
import { BREAK, CONTINUE, DepthExceeded, Runtime } from './runtime.js';

/** Runs one statement; returns BREAK or CONTINUE when one unwinds, else 0. */
type Stmt = (rt: Runtime, dot: unknown) => number;

interface CompiledTree {
  readonly tree: Tree;
  readonly body: Stmt[];
}

/** The compiled templates of one set, by name. */
export class Program {
  private readonly compiled = new Map<string, CompiledTree>();

  /** `trees` must not change afterwards (a set is complete once parsed). */
  constructor(trees: ReadonlyMap<string, Tree>) {
    // Every tree first, so {{template}} calls can be bound to their callee as they compile.
    for (const [name, tree] of trees) this.compiled.set(name, { tree, body: [] });
    for (const entry of this.compiled.values()) {
      for (const node of entry.tree.root.nodes) entry.body.push(this.stmt(node));
    }
  }

  /** Render the tree called `name` (present in the set); throws TemplateError only. */
  execute(tree: Tree, data: unknown, config: ExecConfig): string {
    const entry = this.compiled.get(tree.name);
    if (entry === undefined || entry.tree !== tree) throw new Error(`template ${tree.name} is not part of this compiled set`);
    if (data === null) data = undefined;
    const rt = new Runtime(config, tree.name);
    rt.push('$', data, false);
    const body = entry.body;
    try {
      // The root list is one step, as in the interpreter's walk.
      rt.node = tree.root;
      if (--rt.stepsLeft < 0) rt.stepError();
      for (let i = 0; i < body.length; i++) if (body[i](rt, data) !== 0) break;
    } catch (err) {
      throw rt.toTemplateError(err);
    }
    return rt.out;
  }

  private list(list: ListNode | null): Stmt[] | null {
    return list === null ? null : list.nodes.map((n) => this.stmt(n));
  }

  private stmt(node: Node): Stmt {
    switch (node.type) {
      case NodeType.Text: {
        const text = node.text;
        return (rt) => {
          rt.node = node;
          if (--rt.stepsLeft < 0) rt.stepError();
          rt.out += text;
          if (rt.out.length > rt.maxOutput) rt.outputTooLarge();
          return 0;
        };
      }
      case NodeType.Action: {
        const pipe = compilePipe(node.pipe);
        if (node.pipe.decl.length > 0) {
          return (rt, dot) => {
            rt.node = node;
            if (--rt.stepsLeft < 0) rt.stepError();
            pipe(rt, dot);
            return 0;
          };
        }
        return (rt, dot) => {
          rt.node = node;
          if (--rt.stepsLeft < 0) rt.stepError();
          rt.printValue(node, pipe(rt, dot));
          return 0;
        };
      }
      case NodeType.If:
      case NodeType.With:
        return this.branch(node);
      case NodeType.Range:
        return this.range(node);
      case NodeType.Template:
        return this.template(node);
      case NodeType.Break:
      case NodeType.Continue: {
        const signal = node.type === NodeType.Break ? BREAK : CONTINUE;
        return (rt) => {
          rt.node = node;
          if (--rt.stepsLeft < 0) rt.stepError();
          return signal;
        };
      }
      default: {
        // A list (only ever a tree's root) or a parse-only marker: the interpreter reports these.
        const message = `unknown node: ${nodeString(node)}`;
        return (rt) => {
          rt.node = node;
          if (--rt.stepsLeft < 0) rt.stepError();
          return rt.errorf(message);
        };
      }
    }
  }

  private branch(node: BranchNode): Stmt {
    const pipe = compilePipe(node.pipe);
    const body = this.list(node.list) as Stmt[];
    const elseBody = this.list(node.elseList);
    const isWith = node.type === NodeType.With;
    return (rt, dot) => {
      rt.node = node;
      if (--rt.stepsLeft < 0) rt.stepError();
      const mark = rt.sp;
      const val = pipe(rt, dot);
      let list: Stmt[] | null;
      let d = dot;
      const savedIface = rt.dotIface;
      if (isTrue(val)) {
        list = body;
        if (isWith) {
          d = val;
          rt.dotIface = false;
        }
      } else {
        list = elseBody;
      }
      let signal = 0;
      if (list !== null) {
        for (let i = 0; i < list.length; i++) {
          signal = list[i](rt, d);
          if (signal !== 0) break;
        }
      }
      rt.dotIface = savedIface;
      rt.pop(mark);
      return signal;
    };
  }

  private range(r: BranchNode): Stmt {
    const pipe = compilePipe(r.pipe);
    const body = this.list(r.list) as Stmt[];
    const elseBody = this.list(r.elseList);
    const decls = r.pipe.decl.length;
    return (rt, dot) => {
      rt.node = r;
      if (--rt.stepsLeft < 0) rt.stepError();
      const outer = rt.sp;
      const val = pipe(rt, dot);
      const mark = rt.sp;
      const savedIface = rt.dotIface;
      let ran = false;
      switch (kindOf(val)) {
        case Kind.Slice: {
          const a = val as unknown[];
          if (a.length === 0) break;
          ran = true;
          const iface = sliceElemType(a) === INTERFACE;
          rt.dotIface = iface;
          loop: for (let i = 0; i < a.length; i++) {
            const elem = a[i];
            if (decls > 0) rt.setTopVar(1, elem, iface);
            if (decls > 1) rt.setTopVar(2, BigInt(i), false);
            for (let j = 0; j < body.length; j++) {
              const signal = body[j](rt, elem);
              if (signal === BREAK) break loop;
              if (signal === CONTINUE) break;
            }
            rt.pop(mark);
          }
          break;
        }
        case Kind.Map: {
          const m = val as Record<string, unknown>;
          const keys = sortStrings(Object.keys(m));
          if (keys.length === 0) break;
          ran = true;
          const iface = mapElemType(m) === INTERFACE;
          rt.dotIface = iface;
          loop: for (let i = 0; i < keys.length; i++) {
            const elem = m[keys[i]];
            if (decls > 0) rt.setTopVar(1, elem, iface);
            if (decls > 1) rt.setTopVar(2, keys[i], false);
            for (let j = 0; j < body.length; j++) {
              const signal = body[j](rt, elem);
              if (signal === BREAK) break loop;
              if (signal === CONTINUE) break;
            }
            rt.pop(mark);
          }
          break;
        }
        case Kind.Invalid:
          break;
        default:
          rt.errorf(`range can't iterate over ${formatForTemplate(val)}`);
      }
      rt.dotIface = savedIface;
      if (!ran && elseBody !== null) {
        for (let i = 0; i < elseBody.length; i++) if (elseBody[i](rt, dot) !== 0) break;
      }
      rt.pop(outer);
      return 0;
    };
  }

  private template(t: TemplateNode): Stmt {
    const pipe = compilePipe(t.pipe);
    const callee = this.compiled.get(t.name);
    const notDefined = `template ${quote(t.name)} not defined`;
    return (rt, dot) => {
      rt.node = t;
      if (--rt.stepsLeft < 0) rt.stepError();
      if (callee === undefined) return rt.errorf(notDefined);
      if (rt.depth >= rt.maxDepth) throw new DepthExceeded();
      const newDot = pipe(rt, dot);
      const { base, tmplName, dotIface } = rt;
      rt.base = rt.sp;
      rt.push('$', newDot, false);
      rt.tmplName = callee.tree.name;
      rt.dotIface = false;
      rt.depth++;
      const nodes = callee.body;
      for (let i = 0; i < nodes.length; i++) nodes[i](rt, newDot);
      rt.depth--;
      rt.pop(rt.base);
      rt.base = base;
      rt.tmplName = tmplName;
      rt.dotIface = dotIface;
      return 0;
    };
  }
}
