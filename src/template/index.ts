/**
 * @module template
 * Public API of the Go text/template engine: parse once, render many times.
 *
 * @example
 * const t = parseTemplate('t', 'Hello {{.name}}!', { funcs: sprigFuncs() });
 * t.execute({ name: 'pod' }); // 'Hello pod!'
 *
 * A set of texts sharing `define`s (Go's `template.New(a).Parse(...); t.New(b).Parse(...)`):
 * @example
 * const set = parseTemplateSet([['helpers', '{{define "x"}}X{{end}}'], ['main', '{{template "x"}}']]);
 * set.executeTemplate('main', data);
 *
 * Each set is compiled to closures when parsed (compile/, the default engine); `engine:
 * 'interpreter'` keeps the tree-walking executor (exec.ts), the reference the compiled engine
 * is tested against (compile/compiled-vs-interpreter.test.ts).
 *
 * Parse and execution failures are TemplateError (codes SI_TEMPLATE_PARSE, SI_TEMPLATE_EXEC)
 * with Go's message text; nothing else escapes. Go writes the output up to an execution
 * error; `execute` returns nothing then.
 *
 * The reference is Go 1.19 text/template. Where we differ, on purpose or by necessity:
 * - `{{else with}}` is accepted (Go 1.23); Go 1.19 reports `unexpected <with> in else`.
 * - Nested {{template}} calls stop at `maxDepth` (default {@link DEFAULT_MAX_DEPTH}, Go:
 *   100,000) with Go's message showing our limit; running out of JavaScript stack anywhere
 *   gives the same error. Work and output are bounded too (`maxSteps`, `maxOutput`).
 * - Expressions nested thousands of parentheses deep fail to parse (Go parses them).
 * - `%p` prints a fixed fake address (Go prints a real one).
 * - Slices have no spare capacity, so `slice` cannot reach past the length (Go can, up to the
 *   capacity encoding/json happened to allocate).
 * - A nil pointer field of a Go struct is `null`: it prints `<no value>` at the end of a
 *   pipeline (Go: `<nil>`) and field access through it names `interface {}`, not `*T`.
 * - `eq` compares two Go structs by identity (Go compares their fields).
 * - Strings are UTF-16: indexing or slicing into the middle of a multi-byte character gives
 *   U+FFFD where Go would write the raw bytes; Unicode tables (letters, printable) are Node's.
 */

import { TemplateError } from '../errors.js';
import { callsAny, isEmptyTree, type Tree } from './ast.js';
import { BUILTINS } from './builtins.js';
import { DEFAULT_MAX_DEPTH, DEFAULT_MAX_OUTPUT, DEFAULT_MAX_STEPS, executeTree, type ExecConfig, type MissingKey } from './exec.js';
import { quote } from './quote.js';
import { parseText } from './parse.js';
import { IMPURE_FUNCTIONS, rootReads } from './reads.js';
import { Program } from './compile/program.js';
import type { FuncMap } from './value.js';

export { formatValue, sprint, sprintf } from './go-fmt.js';
export { isTrue } from './truth.js';
export { DEFAULT_MAX_DEPTH } from './exec.js';

export interface ParseOptions {
  /** Functions callable from the templates; they override built-ins of the same name, as in Go. */
  funcs?: FuncMap;
  /** Action delimiters (default `{{` and `}}`), as Go's Delims. */
  leftDelim?: string;
  rightDelim?: string;
  /**
   * How renders run: `compiled` (default) turns each template into JavaScript closures once,
   * at parse time; `interpreter` walks the parse tree on every render. The interpreter is the
   * reference the compiled engine is tested against (same bytes, same errors, same steps).
   */
  engine?: TemplateEngine;
}

export type TemplateEngine = 'compiled' | 'interpreter';

export interface ExecuteOptions {
  /** Go's `missingkey` option: what a missing map key yields (default: the invalid value, printed `<no value>`). */
  missingKey?: MissingKey;
  /** Limit on nested {{template}} calls (default {@link DEFAULT_MAX_DEPTH}; Go's is 100,000). */
  maxDepth?: number;
  /**
   * Limit on executed template nodes (default {@link DEFAULT_MAX_STEPS}); Go has none. A
   * template whose work explodes (recursing twice per level, loops nested over one list)
   * fails with a TemplateError instead of running past any deadline.
   */
  maxSteps?: number;
  /** Limit on the output length in characters (default {@link DEFAULT_MAX_OUTPUT}). */
  maxOutput?: number;
}

/** Templates parsed together: they can call each other with {{template}}. */
export interface TemplateSet {
  /** The engine that renders this set: `interpreter` when asked for, or when compiling was not possible. */
  readonly engine: TemplateEngine;
  /** Render the template called `name`; throws TemplateError when there is none. */
  executeTemplate(name: string, data: unknown, options?: ExecuteOptions): string;
  /** Names of all templates in the set, sorted. */
  definedTemplates(): string[];
  has(name: string): boolean;
  /** The template called `name`, as a Template sharing this set. */
  lookup(name: string): Template | undefined;
  /**
   * Whether a template of the set calls a function named in `names` (read from the parse
   * trees: a name in a comment or in text does not count).
   */
  callsAny(names: ReadonlySet<string>): boolean;
}

export interface Template extends TemplateSet {
  readonly name: string;
  /** Render this template (the text given to parseTemplate, or the set entry of this name). */
  execute(data: unknown, options?: ExecuteOptions): string;
  /**
   * The field chains this template reads from its top-level data (reads.ts), or null when it
   * may read the data whole or depends on more than its data: data that agrees on every chain
   * renders the same text. Worked out once.
   */
  rootReads(): readonly (readonly string[])[] | null;
}

const DEFAULT_CONFIG: ExecConfig = Object.freeze({
  missingKey: 'default',
  maxDepth: DEFAULT_MAX_DEPTH,
  maxSteps: DEFAULT_MAX_STEPS,
  maxOutput: DEFAULT_MAX_OUTPUT,
});

function execConfig(options: ExecuteOptions | undefined): ExecConfig {
  // No options (most renders): the defaults, checked once.
  if (options === undefined) return DEFAULT_CONFIG;
  const missingKey = options?.missingKey ?? 'default';
  if (!['default', 'invalid', 'zero', 'error'].includes(missingKey)) {
    throw new TemplateError('SI_TEMPLATE_EXEC', `template: unrecognized missingKey option ${JSON.stringify(missingKey)}: use default, invalid, zero or error`);
  }
  const limit = (name: 'maxDepth' | 'maxSteps' | 'maxOutput', fallback: number): number => {
    const value = options?.[name] ?? fallback;
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new TemplateError('SI_TEMPLATE_EXEC', `template: ${name} must be a non-negative integer, got ${String(value)}`);
    }
    return value;
  };
  return {
    missingKey,
    maxDepth: limit('maxDepth', DEFAULT_MAX_DEPTH),
    maxSteps: limit('maxSteps', DEFAULT_MAX_STEPS),
    maxOutput: limit('maxOutput', DEFAULT_MAX_OUTPUT),
  };
}

class TreeSet implements TemplateSet {
  readonly trees = new Map<string, Tree>();
  private readonly lookupTree = (name: string): Tree | undefined => this.trees.get(name);
  /** The compiled closures, once the set is complete (null: the interpreter renders). */
  private program: Program | null = null;

  get engine(): TemplateEngine {
    return this.program === null ? 'interpreter' : 'compiled';
  }

  /** Compile the complete set (no `add` after this). */
  compile(): void {
    try {
      this.program = new Program(this.trees);
    } catch (err) {
      // A tree nested too deeply for the compiler's recursion: the interpreter renders it.
      if (!(err instanceof RangeError)) throw err;
      this.program = null;
    }
  }

  /** Go's associate: a later definition replaces an earlier one, unless it is empty. */
  add(trees: Map<string, Tree>): void {
    for (const [name, tree] of trees) {
      const old = this.trees.get(name);
      if (old !== undefined && isEmptyTree(tree.root)) continue;
      this.trees.set(name, tree);
    }
  }

  render(tree: Tree, data: unknown, options: ExecuteOptions | undefined): string {
    const config = execConfig(options);
    if (this.program !== null) return this.program.execute(tree, data, config);
    return executeTree(tree, this.lookupTree, data, config);
  }

  executeTemplate(name: string, data: unknown, options?: ExecuteOptions): string {
    const tree = this.trees.get(name);
    if (tree === undefined) throw new TemplateError('SI_TEMPLATE_EXEC', `template: no template ${quote(name)} associated with this template set`);
    return this.render(tree, data, options);
  }

  definedTemplates(): string[] {
    return [...this.trees.keys()].sort();
  }

  has(name: string): boolean {
    return this.trees.has(name);
  }

  lookup(name: string): Template | undefined {
    return this.trees.has(name) ? new NamedTemplate(name, this) : undefined;
  }

  callsAny(names: ReadonlySet<string>): boolean {
    for (const tree of this.trees.values()) if (callsAny(tree.root, names)) return true;
    return false;
  }
}

class NamedTemplate implements Template {
  #reads: readonly (readonly string[])[] | null | undefined;

  constructor(
    readonly name: string,
    private readonly set: TreeSet,
  ) {}

  get engine(): TemplateEngine {
    return this.set.engine;
  }

  execute(data: unknown, options?: ExecuteOptions): string {
    const tree = this.set.trees.get(this.name);
    if (tree === undefined) {
      throw new TemplateError('SI_TEMPLATE_EXEC', `template: ${quote(this.name)} is an incomplete or empty template`);
    }
    return this.set.render(tree, data, options);
  }

  executeTemplate(name: string, data: unknown, options?: ExecuteOptions): string {
    const tree = this.set.trees.get(name);
    if (tree === undefined) {
      throw new TemplateError('SI_TEMPLATE_EXEC', `template: no template ${quote(name)} associated with template ${quote(this.name)}`);
    }
    return this.set.render(tree, data, options);
  }

  definedTemplates(): string[] {
    return this.set.definedTemplates();
  }

  has(name: string): boolean {
    return this.set.has(name);
  }

  lookup(name: string): Template | undefined {
    return this.set.lookup(name);
  }

  callsAny(names: ReadonlySet<string>): boolean {
    return this.set.callsAny(names);
  }

  rootReads(): readonly (readonly string[])[] | null {
    if (this.#reads === undefined) {
      const tree = this.set.trees.get(this.name);
      this.#reads = tree === undefined || this.set.callsAny(IMPURE_FUNCTIONS) ? null : rootReads(tree, (name) => this.set.trees.get(name));
    }
    return this.#reads;
  }
}

function parseInto(set: TreeSet, name: string, text: string, options: ParseOptions | undefined): void {
  if (typeof text !== 'string') throw new TemplateError('SI_TEMPLATE_PARSE', `template: ${name}: the template text is not a string`);
  const config = { funcs: options?.funcs ?? {}, builtins: BUILTINS, leftDelim: options?.leftDelim, rightDelim: options?.rightDelim };
  let trees: Map<string, Tree>;
  try {
    trees = parseText(name, text, config);
  } catch (err) {
    if (err instanceof TemplateError) throw err;
    if (err instanceof RangeError) {
      throw new TemplateError('SI_TEMPLATE_PARSE', `template: ${name}: expressions are nested too deeply to parse`, { cause: err });
    }
    const message = err instanceof Error ? err.message : String(err);
    throw new TemplateError('SI_TEMPLATE_PARSE', `template: ${name}: internal error: ${message}`, { cause: err });
  }
  set.add(trees);
}

function engineOf(options: ParseOptions | undefined): TemplateEngine {
  const engine = options?.engine ?? 'compiled';
  if (engine !== 'compiled' && engine !== 'interpreter') {
    throw new TemplateError('SI_TEMPLATE_PARSE', `template: unknown engine ${JSON.stringify(engine)}: use compiled or interpreter`);
  }
  return engine;
}

/** Parse one named text (Go's `template.New(name).Funcs(funcs).Parse(text)`). */
export function parseTemplate(name: string, text: string, options?: ParseOptions): Template {
  const engine = engineOf(options);
  const set = new TreeSet();
  parseInto(set, name, text, options);
  if (engine === 'compiled') set.compile();
  return new NamedTemplate(name, set);
}

/**
 * Parse several named texts into one set, in order, as successive Go `Parse` calls on one
 * template family: each text's own name and its `define`s become templates of the set; a
 * later non-empty definition replaces an earlier one. Parse errors name the text they are in.
 */
export function parseTemplateSet(texts: Iterable<readonly [name: string, text: string]>, options?: ParseOptions): TemplateSet {
  const engine = engineOf(options);
  const set = new TreeSet();
  for (const [name, text] of texts) parseInto(set, name, text, options);
  if (engine === 'compiled') set.compile();
  return set;
}

export type { MissingKey };
export type { FuncMap, GoFunc } from './value.js';
