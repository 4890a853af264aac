/**
 * @module template/parse
 * The parser of Go's text/template (parse.Tree), production for production, so that the same
 * texts parse and fail with the same messages (`template: t:3: unexpected EOF`, `function "x"
 * not defined`, `undefined variable "$x"`). One `parseText` call parses one named text and
 * returns every tree it defines (the text itself plus each `define` and `block`).
 * Beyond Go 1.19: `{{else with}}` (Go 1.23) is accepted.
 */

import { TemplateError } from '../errors.js';
import {
  NodeType,
  isEmptyTree,
  nodeString,
  type BranchNode,
  type CommandNode,
  type ListNode,
  type Node,
  type NumberNode,
  type PipeNode,
  type Source,
  type Tree,
  type VariableNode,
} from './ast.js';
import { ItemType, itemString, lex, type Item } from './lex.js';
import { SyntaxError as GoSyntaxError, parseFloat64, parseInt64, parseUint, unquote, unquoteChar } from './literal.js';
import { sprintf } from './go-fmt.js';
import type { FuncMap, GoFunc } from './value.js';

export interface ParseConfig {
  readonly funcs: FuncMap;
  readonly builtins: FuncMap;
  readonly leftDelim?: string;
  readonly rightDelim?: string;
}

/** Parse one named text; returns the trees it defines, keyed by name, in definition order. */
export function parseText(name: string, text: string, config: ParseConfig): Map<string, Tree> {
  const hasFunction = (n: string): boolean => Object.hasOwn(config.funcs, n) || Object.hasOwn(config.builtins, n);
  const items = lex(text, config.leftDelim ?? '', config.rightDelim ?? '', !hasFunction('break'), !hasFunction('continue'));
  const shared: Shared = { items, index: 0, treeSet: new Map(), config, src: { parseName: name, text }, hasFunction };
  const root = new TreeParser(name, shared);
  root.parse();
  root.add();
  return shared.treeSet;
}

interface Shared {
  readonly items: Item[];
  index: number;
  readonly treeSet: Map<string, Tree>;
  readonly config: ParseConfig;
  readonly src: Source;
  readonly hasFunction: (name: string) => boolean;
}

const ZERO_ITEM: Item = { typ: ItemType.Error, pos: 0, val: '', line: 0 };

class TreeParser {
  private root: ListNode | null = null;
  private readonly token: Item[] = [ZERO_ITEM, ZERO_ITEM, ZERO_ITEM];
  private peekCount = 0;
  private vars: string[] = ['$'];
  private rangeDepth = 0;
  private actionLine = 0;

  constructor(
    private name: string,
    private readonly s: Shared,
  ) {}

  // ---- token stream (Go's three-token look-ahead) -----------------------------------------

  private nextItem(): Item {
    const { items } = this.s;
    return this.s.index < items.length ? items[this.s.index++] : ZERO_ITEM;
  }

  private next(): Item {
    if (this.peekCount > 0) this.peekCount--;
    else this.token[0] = this.nextItem();
    return this.token[this.peekCount];
  }

  private backup(): void {
    this.peekCount++;
  }

  private backup2(t1: Item): void {
    this.token[1] = t1;
    this.peekCount = 2;
  }

  private backup3(t2: Item, t1: Item): void {
    this.token[1] = t1;
    this.token[2] = t2;
    this.peekCount = 3;
  }

  private peek(): Item {
    if (this.peekCount > 0) return this.token[this.peekCount - 1];
    this.peekCount = 1;
    this.token[0] = this.nextItem();
    return this.token[0];
  }

  private nextNonSpace(): Item {
    let token: Item;
    do token = this.next();
    while (token.typ === ItemType.Space);
    return token;
  }

  private peekNonSpace(): Item {
    const token = this.nextNonSpace();
    this.backup();
    return token;
  }

  // ---- errors -----------------------------------------------------------------------------

  private errorf(message: string): never {
    throw new TemplateError('SI_TEMPLATE_PARSE', `template: ${this.s.src.parseName}:${this.token[0].line}: ${message}`);
  }

  private expect(expected: ItemType, context: string): Item {
    const token = this.nextNonSpace();
    if (token.typ !== expected) this.unexpected(token, context);
    return token;
  }

  private expectOneOf(a: ItemType, b: ItemType, context: string): Item {
    const token = this.nextNonSpace();
    if (token.typ !== a && token.typ !== b) this.unexpected(token, context);
    return token;
  }

  private unexpected(token: Item, context: string): never {
    if (token.typ === ItemType.Error) {
      let extra = '';
      if (this.actionLine !== 0 && this.actionLine !== token.line) {
        extra = ` in action started at ${this.s.src.parseName}:${this.actionLine}`;
        if (token.val.endsWith(' action')) extra = extra.slice(' in action'.length);
      }
      this.errorf(`${itemString(token)}${extra}`);
    }
    this.errorf(`unexpected ${itemString(token)} in ${context}`);
  }

  // ---- trees ------------------------------------------------------------------------------

  /** Go's Tree.add: register this tree, allowing an empty definition to be replaced. */
  add(): void {
    const existing = this.s.treeSet.get(this.name);
    const root = this.root as ListNode;
    if (existing === undefined || isEmptyTree(existing.root)) {
      this.s.treeSet.set(this.name, { name: this.name, src: this.s.src, root });
      return;
    }
    if (!isEmptyTree(root)) this.errorf(`template: multiple definition of template ${sprintf('%q', [this.name])}`);
  }

  private newList(pos: number): ListNode {
    return { type: NodeType.List, pos, src: this.s.src, nodes: [] };
  }

  parse(): void {
    this.root = this.newList(this.peek().pos);
    while (this.peek().typ !== ItemType.EOF) {
      if (this.peek().typ === ItemType.LeftDelim) {
        const delim = this.next();
        if (this.nextNonSpace().typ === ItemType.Define) {
          const def = new TreeParser('definition', this.s);
          def.parseDefinition();
          continue;
        }
        this.backup2(delim);
      }
      const n = this.textOrAction();
      if (n.type === NodeType.End || n.type === NodeType.Else) this.errorf(`unexpected ${nodeString(n)}`);
      this.root.nodes.push(n);
    }
  }

  private parseDefinition(): void {
    const context = 'define clause';
    const name = this.expectOneOf(ItemType.String, ItemType.RawString, context);
    this.name = this.unquote(name.val);
    this.expect(ItemType.RightDelim, context);
    const [list, end] = this.itemList();
    this.root = list;
    if (end.type !== NodeType.End) this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.add();
  }

  private unquote(s: string): string {
    try {
      return unquote(s);
    } catch (err) {
      if (err instanceof GoSyntaxError) this.errorf(err.message);
      throw err;
    }
  }

  private itemList(): [ListNode, Node] {
    const list = this.newList(this.peekNonSpace().pos);
    while (this.peekNonSpace().typ !== ItemType.EOF) {
      const n = this.textOrAction();
      if (n.type === NodeType.End || n.type === NodeType.Else) return [list, n];
      list.nodes.push(n);
    }
    this.errorf('unexpected EOF');
  }

  private textOrAction(): Node {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case ItemType.Text:
        return { type: NodeType.Text, pos: token.pos, src: this.s.src, text: token.val };
      case ItemType.LeftDelim:
        this.actionLine = token.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      default:
        this.unexpected(token, 'input');
    }
  }

  private action(): Node {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case ItemType.Block:
        return this.blockControl();
      case ItemType.Break:
        return this.breakControl(token, NodeType.Break, 'break');
      case ItemType.Continue:
        return this.breakControl(token, NodeType.Continue, 'continue');
      case ItemType.Else:
        return this.elseControl();
      case ItemType.End:
        return { type: NodeType.End, pos: this.expect(ItemType.RightDelim, 'end').pos, src: this.s.src };
      case ItemType.If:
        return this.control(NodeType.If, 'if');
      case ItemType.Range:
        return this.control(NodeType.Range, 'range');
      case ItemType.Template:
        return this.templateControl();
      case ItemType.With:
        return this.control(NodeType.With, 'with');
    }
    this.backup();
    const first = this.peek();
    return { type: NodeType.Action, pos: first.pos, src: this.s.src, line: first.line, pipe: this.pipeline('command', ItemType.RightDelim) };
  }

  private breakControl(token: Item, type: NodeType.Break | NodeType.Continue, word: string): Node {
    const next = this.nextNonSpace();
    if (next.typ !== ItemType.RightDelim) this.unexpected(next, `{{${word}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${word}}} outside {{range}}`);
    return { type, pos: token.pos, src: this.s.src, line: token.line };
  }

  private elseControl(): Node {
    const peek = this.peekNonSpace();
    if (peek.typ === ItemType.If || peek.typ === ItemType.With) {
      // "{{else if ...": the else is its own node; the "if" (or "with") stays pending.
      return { type: NodeType.Else, pos: peek.pos, src: this.s.src, line: peek.line };
    }
    const token = this.expect(ItemType.RightDelim, 'else');
    return { type: NodeType.Else, pos: token.pos, src: this.s.src, line: token.line };
  }

  private control(type: BranchNode['type'], context: 'if' | 'range' | 'with'): BranchNode {
    const mark = this.vars.length;
    try {
      const pipe = this.pipeline(context, ItemType.RightDelim);
      if (context === 'range') this.rangeDepth++;
      let [list, next] = this.itemList();
      if (context === 'range') this.rangeDepth--;
      let elseList: ListNode | null = null;
      if (next.type === NodeType.Else) {
        // {{if a}}_{{else if b}}_{{end}} is {{if a}}_{{else}}{{if b}}_{{end}}{{end}}; the same
        // for "else with" (Go 1.23). Only one {{end}} closes the chain.
        const peek = this.peek().typ;
        if (context === 'if' && peek === ItemType.If) {
          this.next();
          elseList = this.newList(next.pos);
          elseList.nodes.push(this.control(NodeType.If, 'if'));
        } else if (context === 'with' && peek === ItemType.With) {
          this.next();
          elseList = this.newList(next.pos);
          elseList.nodes.push(this.control(NodeType.With, 'with'));
        } else {
          [elseList, next] = this.itemList();
          if (next.type !== NodeType.End) this.errorf(`expected end; found ${nodeString(next)}`);
        }
      }
      list = list as ListNode;
      return { type, pos: pipe.pos, src: this.s.src, line: pipe.line, pipe, list, elseList };
    } finally {
      this.vars.length = mark;
    }
  }

  private blockControl(): Node {
    const context = 'block clause';
    const token = this.nextNonSpace();
    const name = this.parseTemplateName(token, context);
    const pipe = this.pipeline(context, ItemType.RightDelim);
    const block = new TreeParser(name, this.s);
    const [list, end] = block.itemList();
    block.root = list;
    if (end.type !== NodeType.End) this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    block.add();
    return { type: NodeType.Template, pos: token.pos, src: this.s.src, line: token.line, name, pipe };
  }

  private templateControl(): Node {
    const context = 'template clause';
    const token = this.nextNonSpace();
    const name = this.parseTemplateName(token, context);
    let pipe: PipeNode | null = null;
    if (this.nextNonSpace().typ !== ItemType.RightDelim) {
      this.backup();
      pipe = this.pipeline(context, ItemType.RightDelim);
    }
    return { type: NodeType.Template, pos: token.pos, src: this.s.src, line: token.line, name, pipe };
  }

  private parseTemplateName(token: Item, context: string): string {
    if (token.typ === ItemType.String || token.typ === ItemType.RawString) return this.unquote(token.val);
    this.unexpected(token, context);
  }

  // ---- pipelines --------------------------------------------------------------------------

  private newVariable(pos: number, name: string): VariableNode {
    const ident = name.split('.');
    return { type: NodeType.Variable, pos, src: this.s.src, ident, fields: ident.slice(1) };
  }

  private pipeline(context: string, end: ItemType): PipeNode {
    const token = this.peekNonSpace();
    const pipe: PipeNode = { type: NodeType.Pipe, pos: token.pos, src: this.s.src, line: token.line, isAssign: false, decl: [], cmds: [] };
    decls: for (;;) {
      const v = this.peekNonSpace();
      if (v.typ !== ItemType.Variable) break;
      this.next();
      const tokenAfterVariable = this.peek();
      const next = this.peekNonSpace();
      if (next.typ === ItemType.Assign || next.typ === ItemType.Declare) {
        pipe.isAssign = next.typ === ItemType.Assign;
        this.nextNonSpace();
        pipe.decl.push(this.newVariable(v.pos, v.val));
        this.vars.push(v.val);
      } else if (next.typ === ItemType.Char && next.val === ',') {
        this.nextNonSpace();
        pipe.decl.push(this.newVariable(v.pos, v.val));
        this.vars.push(v.val);
        if (context === 'range' && pipe.decl.length < 2) {
          const t = this.peekNonSpace().typ;
          if (t === ItemType.Variable || t === ItemType.RightDelim || t === ItemType.RightParen) continue decls;
          this.errorf('range can only initialize variables');
        }
        this.errorf(`too many declarations in ${context}`);
      } else if (tokenAfterVariable.typ === ItemType.Space) {
        this.backup3(v, tokenAfterVariable);
      } else {
        this.backup2(v);
      }
      break;
    }
    for (;;) {
      const token = this.nextNonSpace();
      switch (token.typ) {
        case end:
          this.checkPipeline(pipe, context);
          return pipe;
        case ItemType.Bool:
        case ItemType.CharConstant:
        case ItemType.Complex:
        case ItemType.Dot:
        case ItemType.Field:
        case ItemType.Identifier:
        case ItemType.Number:
        case ItemType.Nil:
        case ItemType.RawString:
        case ItemType.String:
        case ItemType.Variable:
        case ItemType.LeftParen:
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(token, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    for (let i = 1; i < pipe.cmds.length; i++) {
      switch (pipe.cmds[i].args[0].type) {
        case NodeType.Bool:
        case NodeType.Dot:
        case NodeType.Nil:
        case NodeType.Number:
        case NodeType.String:
          this.errorf(`non executable command in pipeline stage ${i + 1}`);
      }
    }
  }

  private command(): CommandNode {
    const cmd: CommandNode = { type: NodeType.Command, pos: this.peekNonSpace().pos, src: this.s.src, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand !== null) cmd.args.push(operand);
      const token = this.next();
      if (token.typ === ItemType.Space) continue;
      if (token.typ === ItemType.RightDelim || token.typ === ItemType.RightParen) this.backup();
      else if (token.typ !== ItemType.Pipe) this.unexpected(token, 'operand');
      break;
    }
    if (cmd.args.length === 0) this.errorf('empty command');
    return cmd;
  }

  private operand(): Node | null {
    let node = this.term();
    if (node === null) return null;
    if (this.peek().typ === ItemType.Field) {
      const chainPos = this.peek().pos;
      const fields: string[] = [];
      while (this.peek().typ === ItemType.Field) fields.push(this.next().val.slice(1));
      switch (node.type) {
        case NodeType.Field:
          node = { type: NodeType.Field, pos: chainPos, src: this.s.src, ident: [...node.ident, ...fields] };
          break;
        case NodeType.Variable:
          node = this.newVariable(chainPos, [...node.ident, ...fields].join('.'));
          break;
        case NodeType.Bool:
        case NodeType.String:
        case NodeType.Number:
        case NodeType.Nil:
        case NodeType.Dot:
          this.errorf(`unexpected . after term ${sprintf('%q', [nodeString(node)])}`);
          break;
        default:
          node = { type: NodeType.Chain, pos: chainPos, src: this.s.src, node, fields };
      }
    }
    return node;
  }

  private term(): Node | null {
    const token = this.nextNonSpace();
    const src = this.s.src;
    switch (token.typ) {
      case ItemType.Identifier: {
        if (!this.s.hasFunction(token.val)) this.errorf(`function ${sprintf('%q', [token.val])} not defined`);
        const { funcs, builtins } = this.s.config;
        const user = Object.hasOwn(funcs, token.val);
        const fn: GoFunc | undefined = user ? funcs[token.val] : builtins[token.val];
        const shortCircuit = user ? 0 : token.val === 'and' ? 1 : token.val === 'or' ? 2 : 0;
        return { type: NodeType.Identifier, pos: token.pos, src, ident: token.val, fn, isBuiltin: !user, shortCircuit };
      }
      case ItemType.Dot:
        return { type: NodeType.Dot, pos: token.pos, src };
      case ItemType.Nil:
        return { type: NodeType.Nil, pos: token.pos, src };
      case ItemType.Variable:
        return this.useVar(token.pos, token.val);
      case ItemType.Field:
        return { type: NodeType.Field, pos: token.pos, src, ident: token.val.slice(1).split('.') };
      case ItemType.Bool:
        return { type: NodeType.Bool, pos: token.pos, src, value: token.val === 'true' };
      case ItemType.CharConstant:
      case ItemType.Complex:
      case ItemType.Number:
        return this.newNumber(token);
      case ItemType.LeftParen:
        return this.pipeline('parenthesized pipeline', ItemType.RightParen);
      case ItemType.String:
      case ItemType.RawString:
        return { type: NodeType.String, pos: token.pos, src, quoted: token.val, text: this.unquote(token.val) };
    }
    this.backup();
    return null;
  }

  private useVar(pos: number, name: string): VariableNode {
    const v = this.newVariable(pos, name);
    if (!this.vars.includes(v.ident[0])) this.errorf(`undefined variable ${sprintf('%q', [v.ident[0]])}`);
    return v;
  }

  /** Go's newNumber: every interpretation (int64, uint64, float64) the text allows. */
  private newNumber(token: Item): NumberNode {
    const text = token.val;
    const base = { type: NodeType.Number as const, pos: token.pos, src: this.s.src, text };
    if (token.typ === ItemType.CharConstant) {
      let r: { value: number; next: number };
      try {
        r = unquoteChar(text, 1, text.charCodeAt(0));
      } catch (err) {
        if (err instanceof GoSyntaxError) this.errorf(err.message);
        throw err;
      }
      if (text.slice(r.next) !== "'") this.errorf(`malformed character constant: ${text}`);
      const v = BigInt(r.value);
      return { ...base, isInt: true, isUint: true, isFloat: true, complex: null, int64: v, uint64: v, float64: r.value };
    }
    if (token.typ === ItemType.Complex) {
      const c = parseComplex(text);
      if (c === undefined) this.errorf(`expected integer`);
      return simplifyComplex(base, c);
    }
    if (text.endsWith('i')) {
      const f = parseFloat64(text.slice(0, -1));
      if (f !== undefined) return simplifyComplex(base, [0, f]);
    }
    let isInt = false;
    let isUint = false;
    let isFloat = false;
    let int64 = 0n;
    let uint64 = 0n;
    let float64 = 0;
    const u = parseUint(text);
    if (u !== undefined) {
      isUint = true;
      uint64 = u;
    }
    const i = parseInt64(text);
    if (i !== undefined) {
      isInt = true;
      int64 = i;
      if (i === 0n) {
        isUint = true;
        uint64 = u ?? 0n;
      }
    }
    if (isInt) {
      isFloat = true;
      float64 = Number(int64);
    } else if (isUint) {
      isFloat = true;
      float64 = Number(uint64);
    } else {
      const f = parseFloat64(text);
      if (f !== undefined) {
        if (!/[.eEpP]/.test(text)) this.errorf(`integer overflow: ${sprintf('%q', [text])}`);
        isFloat = true;
        float64 = f;
        if (Number.isInteger(f) && f >= -(2 ** 63) && f < 2 ** 63) {
          isInt = true;
          int64 = BigInt(f);
        }
        if (Number.isInteger(f) && f >= 0 && f < 2 ** 64) {
          isUint = true;
          uint64 = BigInt(f);
        }
      }
    }
    if (!isInt && !isUint && !isFloat) this.errorf(`illegal number syntax: ${sprintf('%q', [text])}`);
    return { ...base, isInt, isUint, isFloat, complex: null, int64, uint64, float64 };
  }
}

type NumberBase = Pick<NumberNode, 'type' | 'pos' | 'src' | 'text'>;

/** Go's simplifyComplex: a complex constant with no imaginary part is also a float (and maybe an int). */
function simplifyComplex(base: NumberBase, c: [number, number]): NumberNode {
  const isFloat = c[1] === 0;
  const f = c[0];
  const isInt = isFloat && Number.isInteger(f) && f >= -(2 ** 63) && f < 2 ** 63;
  const isUint = isFloat && Number.isInteger(f) && f >= 0 && f < 2 ** 64;
  return {
    ...base,
    isInt,
    isUint,
    isFloat,
    complex: c,
    int64: isInt ? BigInt(f) : 0n,
    uint64: isUint ? BigInt(f) : 0n,
    float64: isFloat ? f : 0,
  };
}

/** fmt.Sscan of a complex literal `a+bi` / `a-bi` as the lexer delivers it. */
function parseComplex(text: string): [number, number] | undefined {
  for (let i = text.length - 2; i > 0; i--) {
    const c = text[i];
    if ((c === '+' || c === '-') && !/[eEpP]/.test(text[i - 1])) {
      const re = parseFloat64(text.slice(0, i));
      const im = parseFloat64(text.slice(i, -1));
      if (re === undefined || im === undefined) return undefined;
      return [re, im];
    }
  }
  return undefined;
}
