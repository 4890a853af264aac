/**
 * @module template/ast
 * Parse-tree nodes of Go's text/template, with the facts the executor needs precomputed
 * (number constants in every Go interpretation, resolved functions) and Go's `String()`
 * rendering, which execution errors quote (`executing "t" at <index .a 1>`).
 */

import { quote } from './quote.js';
import type { GoFunc } from './value.js';

export const enum NodeType {
  Text,
  Action,
  Bool,
  Chain,
  Command,
  Dot,
  Field,
  Identifier,
  If,
  List,
  Nil,
  Number,
  Pipe,
  Range,
  String,
  Template,
  Variable,
  With,
  Break,
  Continue,
  // Parse-only markers.
  Else,
  End,
}

/** The text a node was parsed from, for error positions: Go's Tree.ParseName and text. */
export interface Source {
  readonly parseName: string;
  readonly text: string;
}

interface Base {
  readonly pos: number;
  readonly src: Source;
}

interface TextNode extends Base {
  readonly type: NodeType.Text;
  readonly text: string;
}
export interface ActionNode extends Base {
  readonly type: NodeType.Action;
  readonly line: number;
  readonly pipe: PipeNode;
}
interface BoolNode extends Base {
  readonly type: NodeType.Bool;
  readonly value: boolean;
}
export interface ChainNode extends Base {
  readonly type: NodeType.Chain;
  readonly node: Node;
  readonly fields: string[];
}
export interface CommandNode extends Base {
  readonly type: NodeType.Command;
  readonly args: Node[];
}
interface DotNode extends Base {
  readonly type: NodeType.Dot;
}
export interface FieldNode extends Base {
  readonly type: NodeType.Field;
  readonly ident: string[];
}
export interface IdentifierNode extends Base {
  readonly type: NodeType.Identifier;
  readonly ident: string;
  /** The function this name resolves to (user functions override built-ins). */
  readonly fn: GoFunc | undefined;
  readonly isBuiltin: boolean;
  /** The built-in `and` (1) or `or` (2), which short-circuit; 0 for any other function. */
  readonly shortCircuit: 0 | 1 | 2;
}
export interface ListNode extends Base {
  readonly type: NodeType.List;
  readonly nodes: Node[];
}
interface NilNode extends Base {
  readonly type: NodeType.Nil;
}
export interface NumberNode extends Base {
  readonly type: NodeType.Number;
  readonly text: string;
  readonly isInt: boolean;
  readonly isUint: boolean;
  readonly isFloat: boolean;
  /** A complex constant (`1i`, `1+2i`): [real, imaginary]. */
  readonly complex: readonly [number, number] | null;
  readonly int64: bigint;
  readonly uint64: bigint;
  readonly float64: number;
}
export interface PipeNode extends Base {
  readonly type: NodeType.Pipe;
  readonly line: number;
  isAssign: boolean;
  readonly decl: VariableNode[];
  readonly cmds: CommandNode[];
}
interface StringNode extends Base {
  readonly type: NodeType.String;
  readonly quoted: string;
  readonly text: string;
}
export interface VariableNode extends Base {
  readonly type: NodeType.Variable;
  /** `$x.a.b` is ['$x', 'a', 'b']. */
  readonly ident: string[];
  /** The field names after the variable: ['a', 'b']. */
  readonly fields: string[];
}
export interface BranchNode extends Base {
  readonly type: NodeType.If | NodeType.Range | NodeType.With;
  readonly line: number;
  readonly pipe: PipeNode;
  readonly list: ListNode;
  readonly elseList: ListNode | null;
}
export interface TemplateNode extends Base {
  readonly type: NodeType.Template;
  readonly line: number;
  readonly name: string;
  readonly pipe: PipeNode | null;
}
interface BreakNode extends Base {
  readonly type: NodeType.Break;
  readonly line: number;
}
interface ContinueNode extends Base {
  readonly type: NodeType.Continue;
  readonly line: number;
}
interface ElseNode extends Base {
  readonly type: NodeType.Else;
  readonly line: number;
}
interface EndNode extends Base {
  readonly type: NodeType.End;
}

export type Node =
  | TextNode
  | ActionNode
  | BoolNode
  | ChainNode
  | CommandNode
  | DotNode
  | FieldNode
  | IdentifierNode
  | ListNode
  | NilNode
  | NumberNode
  | PipeNode
  | StringNode
  | VariableNode
  | BranchNode
  | TemplateNode
  | BreakNode
  | ContinueNode
  | ElseNode
  | EndNode;

/** A parsed template: Go's parse.Tree. */
export interface Tree {
  readonly name: string;
  readonly src: Source;
  readonly root: ListNode;
}

/** Go's Node.String(). */
export function nodeString(n: Node): string {
  switch (n.type) {
    case NodeType.Text:
      return n.text;
    case NodeType.Action:
      return `{{${nodeString(n.pipe)}}}`;
    case NodeType.Bool:
      return n.value ? 'true' : 'false';
    case NodeType.Chain: {
      let s = n.node.type === NodeType.Pipe ? `(${nodeString(n.node)})` : nodeString(n.node);
      for (const f of n.fields) s += '.' + f;
      return s;
    }
    case NodeType.Command:
      return n.args.map((a) => (a.type === NodeType.Pipe ? `(${nodeString(a)})` : nodeString(a))).join(' ');
    case NodeType.Dot:
      return '.';
    case NodeType.Field:
      return n.ident.map((id) => '.' + id).join('');
    case NodeType.Identifier:
      return n.ident;
    case NodeType.List:
      return n.nodes.map(nodeString).join('');
    case NodeType.Nil:
      return 'nil';
    case NodeType.Number:
      return n.text;
    case NodeType.Pipe: {
      let s = '';
      if (n.decl.length > 0) s = n.decl.map(nodeString).join(', ') + ' := ';
      return s + n.cmds.map(nodeString).join(' | ');
    }
    case NodeType.String:
      return n.quoted;
    case NodeType.Variable:
      return n.ident.join('.');
    case NodeType.If:
    case NodeType.Range:
    case NodeType.With: {
      const word = n.type === NodeType.If ? 'if' : n.type === NodeType.Range ? 'range' : 'with';
      let s = `{{${word} ${nodeString(n.pipe)}}}${nodeString(n.list)}`;
      if (n.elseList !== null) s += `{{else}}${nodeString(n.elseList)}`;
      return s + '{{end}}';
    }
    case NodeType.Template:
      return n.pipe === null ? `{{template ${quote(n.name)}}}` : `{{template ${quote(n.name)} ${nodeString(n.pipe)}}}`;
    case NodeType.Break:
      return '{{break}}';
    case NodeType.Continue:
      return '{{continue}}';
    case NodeType.Else:
      return '{{else}}';
    case NodeType.End:
      return '{{end}}';
  }
}

/** Text made only of what Go's unicode.IsSpace accepts (bytes.TrimSpace leaves nothing). */
const GO_SPACE_ONLY = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/** Go's parse.IsEmptyTree: only whitespace text and comments. */
export function isEmptyTree(n: Node | null): boolean {
  if (n === null) return true;
  switch (n.type) {
    case NodeType.List:
      return n.nodes.every(isEmptyTree);
    case NodeType.Text:
      return GO_SPACE_ONLY.test(n.text);
    default:
      return false;
  }
}

/**
 * Whether the tree under `root` calls a function named in `names`: an identifier in a command
 * or argument. Comments and text never count. An explicit stack: trees may nest deeply.
 */
export function callsAny(root: Node, names: ReadonlySet<string>): boolean {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    switch (n.type) {
      case NodeType.Identifier:
        if (names.has(n.ident)) return true;
        break;
      case NodeType.List:
        for (const c of n.nodes) stack.push(c);
        break;
      case NodeType.Action:
        stack.push(n.pipe);
        break;
      case NodeType.Pipe:
        for (const c of n.cmds) stack.push(c);
        break;
      case NodeType.Command:
        for (const c of n.args) stack.push(c);
        break;
      case NodeType.Chain:
        stack.push(n.node);
        break;
      case NodeType.If:
      case NodeType.Range:
      case NodeType.With:
        stack.push(n.pipe, n.list);
        if (n.elseList !== null) stack.push(n.elseList);
        break;
      case NodeType.Template:
        if (n.pipe !== null) stack.push(n.pipe);
        break;
    }
  }
  return false;
}
