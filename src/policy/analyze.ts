/**
 * @module policy/analyze
 * Which templates can become CEL: a walk over the Go template parse tree that accepts only
 * what the policy can reproduce in the apiserver, and names the first thing it cannot.
 *
 * Accepted: anything computed from the config alone (`.Values`, `.Revision`,
 * `.NativeSidecars`, constants, functions of those, `if`/`range`/`with` over them,
 * `define`/`template`), because it renders to the same text for every pod and so can be
 * rendered once, now. From the pod, only five fields, and only printed as they are (optionally
 * through `quote`): `.ObjectMeta.Name`, `.ObjectMeta.Namespace`, `.Spec.ServiceAccountName`,
 * one label (`index .ObjectMeta.Labels "k"` or `.ObjectMeta.Labels.k`) and one annotation
 * (the same with `Annotations`, or Istio's `annotation .ObjectMeta "k" DEFAULT`). A printed
 * value becomes a CEL expression in the patch; a value that steers the template (`if`,
 * `range`, a function argument) would need the template engine in the apiserver, so it is
 * refused. This is a static, conservative check: it may refuse a template that would in fact
 * render the same for every pod, never the reverse.
 */
import { NodeType, nodeString, type ActionNode, type Node, type PipeNode, type Tree } from '../template/ast.js';
import { InjectorError } from '../errors.js';

/** A pod field the sidecar prints. */
export type PodField =
  | { kind: 'name' }
  | { kind: 'namespace' }
  | { kind: 'serviceAccountName' }
  | { kind: 'label'; key: string }
  | { kind: 'annotation'; key: string };

export interface FieldUse {
  field: PodField;
  template: string;
  line: number;
  construct: string;
}

/** Data roots that come from the config, not the pod. */
const CONFIG_ROOTS = new Set(['Values', 'Revision', 'NativeSidecars']);

type Ctx = 'root' | 'config';

export function fieldKey(f: PodField): string {
  return f.kind === 'label' || f.kind === 'annotation' ? `${f.kind}:${f.key}` : f.kind;
}

/** `.ObjectMeta.Name` etc. for messages. */
export function fieldText(f: PodField): string {
  switch (f.kind) {
    case 'name':
      return '.ObjectMeta.Name';
    case 'namespace':
      return '.ObjectMeta.Namespace';
    case 'serviceAccountName':
      return '.Spec.ServiceAccountName';
    case 'label':
      return `label ${JSON.stringify(f.key)}`;
    case 'annotation':
      return `annotation ${JSON.stringify(f.key)}`;
  }
}

export function refusal(template: string, line: number | undefined, construct: string, why: string): InjectorError {
  const where = line === undefined ? `template ${JSON.stringify(template)}` : `template ${JSON.stringify(template)}, line ${line}`;
  return new InjectorError('SI_POLICY_UNSUPPORTED', `${where}: ${construct}: ${why}; or use the webhook for this config`, {
    details: { template, line, construct },
  });
}

/**
 * Check every tree reachable from `name` (its own text and the `define`s it calls) and list
 * the pod fields it prints. Throws SI_POLICY_UNSUPPORTED at the first construct it cannot
 * compile.
 */
export function analyzeTemplate(name: string, trees: ReadonlyMap<string, Tree>): FieldUse[] {
  const a = new Analyzer(name, trees);
  const root = trees.get(name);
  if (root === undefined) return [];
  a.tree(root, 'root');
  return a.uses;
}

class Analyzer {
  readonly uses: FieldUse[] = [];
  private readonly visited = new Set<string>();
  private vars: Map<string, Ctx>[] = [];

  constructor(
    private readonly template: string,
    private readonly trees: ReadonlyMap<string, Tree>,
  ) {}

  tree(t: Tree, ctx: Ctx): void {
    const key = `${t.name}\u0000${ctx}`;
    if (this.visited.has(key)) return;
    this.visited.add(key);
    const saved = this.vars;
    this.vars = [new Map([['$', ctx]])];
    this.node(t.root, ctx);
    this.vars = saved;
  }

  private lineOf(n: Node): number {
    if ('line' in n && typeof n.line === 'number') return n.line;
    let line = 1;
    const text = n.src.text;
    for (let i = 0; i < n.pos && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
    return line;
  }

  private refuse(n: Node, why: string): never {
    throw refusal(this.template, this.lineOf(n), construct(n), why);
  }

  private node(n: Node, ctx: Ctx): void {
    switch (n.type) {
      case NodeType.List:
        for (const c of n.nodes) this.node(c, ctx);
        return;
      case NodeType.Text:
      case NodeType.Break:
      case NodeType.Continue:
        return;
      case NodeType.Action:
        this.action(n, ctx);
        return;
      case NodeType.If:
      case NodeType.Range:
      case NodeType.With: {
        this.vars.push(new Map());
        this.pipe(n.pipe, ctx, n);
        const inner: Ctx = n.type === NodeType.If ? ctx : 'config';
        this.vars.push(new Map());
        this.node(n.list, inner);
        this.vars.pop();
        if (n.elseList !== null) this.node(n.elseList, ctx);
        this.vars.pop();
        return;
      }
      case NodeType.Template: {
        const t = this.trees.get(n.name);
        let argCtx: Ctx = 'config';
        if (n.pipe !== null) {
          const only = n.pipe.cmds.length === 1 && n.pipe.decl.length === 0 && n.pipe.cmds[0].args.length === 1 ? n.pipe.cmds[0].args[0] : undefined;
          const passesRoot =
            only !== undefined &&
            ctx === 'root' &&
            (only.type === NodeType.Dot || (only.type === NodeType.Variable && only.ident.length === 1 && this.lookup(only.ident[0]) === 'root'));
          if (passesRoot) argCtx = 'root';
          else this.pipe(n.pipe, ctx, n);
        }
        if (t !== undefined) this.tree(t, argCtx);
        return;
      }
      default:
        this.refuse(n, 'this construct is not supported in policy mode');
    }
  }

  private lookup(name: string): Ctx | undefined {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i].get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  private action(n: ActionNode, ctx: Ctx): void {
    const use = n.pipe.decl.length === 0 ? this.printedField(n.pipe, ctx) : undefined;
    if (use !== undefined) {
      this.uses.push({ field: use, template: this.template, line: n.line, construct: `{{${nodeString(n.pipe)}}}` });
      return;
    }
    this.pipe(n.pipe, ctx, n);
  }

  /** A pipeline and its declarations: must not read the pod. */
  private pipe(p: PipeNode, ctx: Ctx, at: Node): void {
    for (const cmd of p.cmds) {
      const read = this.podMapRead(cmd.args, ctx);
      if (read !== undefined) this.refuse(at, steersWhy(read));
      for (const arg of cmd.args) this.arg(arg, ctx, at);
    }
    for (const d of p.decl) {
      if (!p.isAssign) this.vars[this.vars.length - 1].set(d.ident[0], 'config');
    }
  }

  private arg(a: Node, ctx: Ctx, at: Node): void {
    switch (a.type) {
      case NodeType.Field:
        if (ctx === 'root' && !CONFIG_ROOTS.has(a.ident[0])) {
          const field = podField(a.ident);
          this.refuse(at, field === undefined ? unseenWhy(nodeString(a)) : steersWhy(fieldText(field)));
        }
        return;
      case NodeType.Variable: {
        const base = this.lookup(a.ident[0]);
        if (base === 'root' && (a.fields.length === 0 || !CONFIG_ROOTS.has(a.fields[0]))) {
          this.refuse(at, `reads ${nodeString(a)} (pod data), which the policy cannot use here`);
        }
        return;
      }
      case NodeType.Dot:
        if (ctx === 'root') this.refuse(at, 'passes the whole template data (the pod) to a function');
        return;
      case NodeType.Chain:
        this.arg(a.node, ctx, at);
        return;
      case NodeType.Pipe:
        this.vars.push(new Map());
        this.pipe(a, ctx, at);
        this.vars.pop();
        return;
      case NodeType.Identifier:
      case NodeType.String:
      case NodeType.Number:
      case NodeType.Bool:
      case NodeType.Nil:
        return;
      default:
        this.refuse(at, 'this construct is not supported in policy mode');
    }
  }

  /** The pod field an action prints as is (optionally through `quote`), if that is what it does. */
  private printedField(p: PipeNode, ctx: Ctx): PodField | undefined {
    let cmds = p.cmds;
    if (cmds.length === 2 && isIdent(cmds[1].args, 'quote') && cmds[1].args.length === 1) cmds = cmds.slice(0, 1);
    if (cmds.length !== 1) return undefined;
    let args = cmds[0].args;
    if (args.length === 2 && isIdent(args, 'quote')) args = args.slice(1);
    if (args.length === 1) {
      const path = this.rootPath(args[0], ctx);
      return path === undefined ? undefined : podField(path);
    }
    if (args.length === 3 && isIdent(args, 'index') && args[2].type === NodeType.String) {
      const path = this.rootPath(args[1], ctx);
      if (path?.length === 2 && path[0] === 'ObjectMeta' && (path[1] === 'Labels' || path[1] === 'Annotations')) {
        return { kind: path[1] === 'Labels' ? 'label' : 'annotation', key: args[2].text };
      }
      return undefined;
    }
    if (args.length === 4 && isIdent(args, 'annotation') && args[2].type === NodeType.String) {
      const path = this.rootPath(args[1], ctx);
      if (path?.length !== 1 || path[0] !== 'ObjectMeta') return undefined;
      // The default must come from the config: checked like any argument.
      this.arg(args[3], ctx, args[3]);
      return { kind: 'annotation', key: args[2].text };
    }
    return undefined;
  }

  /** `annotation .ObjectMeta "k" D` or `index .ObjectMeta.Labels "k"` (a pod label or annotation read), named. */
  private podMapRead(args: readonly Node[], ctx: Ctx): string | undefined {
    if (args.length < 3 || args[2].type !== NodeType.String) return undefined;
    const path = this.rootPath(args[1], ctx);
    if (path === undefined) return undefined;
    if (args.length === 4 && isIdent(args, 'annotation') && path.length === 1 && path[0] === 'ObjectMeta') return `annotation ${JSON.stringify(args[2].text)}`;
    if (args.length === 3 && isIdent(args, 'index') && path.length === 2 && path[0] === 'ObjectMeta' && (path[1] === 'Labels' || path[1] === 'Annotations')) {
      return `${path[1] === 'Labels' ? 'label' : 'annotation'} ${JSON.stringify(args[2].text)}`;
    }
    return undefined;
  }

  /** The field path from the template data's root, when `a` is `.A.B` in root context or `$.A.B`. */
  private rootPath(a: Node, ctx: Ctx): string[] | undefined {
    if (a.type === NodeType.Field && ctx === 'root') return a.ident;
    if (a.type === NodeType.Variable && this.lookup(a.ident[0]) === 'root') return a.fields;
    return undefined;
  }
}

/**
 * Why a pod field that steers the template is refused, and what to write instead: the policy
 * has no template engine in the apiserver, so a pod field can only be printed as it is.
 */
function steersWhy(field: string): string {
  return (
    `uses the pod's ${field} to decide what to render (a condition, a variable, a function argument), and a policy can only print a pod field as it is. ` +
    'Instead, take the setting from .Values (the same for every pod), or print the field where it is needed, e.g. ' +
    '{{ annotation .ObjectMeta "KEY" .Values.DEFAULT | quote }} (examples/policy-log-shipper)'
  );
}

/** Why other pod data is refused, and what to write instead. */
function unseenWhy(field: string): string {
  return (
    `reads ${field} from the pod; a policy sees only .ObjectMeta.Name, .ObjectMeta.Namespace, .Spec.ServiceAccountName, one label or one annotation, printed as they are. ` +
    'Instead, take the setting from .Values, or pass it to the pod in a label or an annotation'
  );
}

/** The action as written, without the body of a branch: `{{range .Spec.Containers}}`. */
function construct(n: Node): string {
  switch (n.type) {
    case NodeType.Action:
      return `{{${nodeString(n.pipe)}}}`;
    case NodeType.If:
    case NodeType.Range:
    case NodeType.With:
      return `{{${n.type === NodeType.If ? 'if' : n.type === NodeType.Range ? 'range' : 'with'} ${nodeString(n.pipe)}}}`;
    case NodeType.Template:
      return n.pipe === null ? `{{template ${JSON.stringify(n.name)}}}` : `{{template ${JSON.stringify(n.name)} ${nodeString(n.pipe)}}}`;
    default:
      return nodeString(n);
  }
}

function isIdent(args: readonly Node[], name: string): boolean {
  const first = args[0];
  return first !== undefined && first.type === NodeType.Identifier && first.ident === name;
}

function podField(path: readonly string[]): PodField | undefined {
  const p = path.join('.');
  if (p === 'ObjectMeta.Name') return { kind: 'name' };
  if (p === 'ObjectMeta.Namespace') return { kind: 'namespace' };
  if (p === 'Spec.ServiceAccountName') return { kind: 'serviceAccountName' };
  if (path.length === 3 && path[0] === 'ObjectMeta' && (path[1] === 'Labels' || path[1] === 'Annotations')) {
    return { kind: path[1] === 'Labels' ? 'label' : 'annotation', key: path[2] };
  }
  return undefined;
}
