/**
 * @module yaml/read
 * Parse one YAML document as Kubernetes reads it (YAML 1.1 typing of go-yaml v2, see resolve.ts)
 * and turn every failure into an InputError that points at the real line of the whole file.
 * Parsing uses js-yaml with our own schema (k8s-schema.ts, typing by the rule table); convert.ts
 * then builds plain JSON and applies the limits. This is the one place js-yaml is used: on the
 * 1,000-document fixture (3.8 MB) it parses in about 0.1 s where the `yaml` package takes 1.2 s
 * (and 0.6 s for its CST alone), and `inject -f` on big files is this reader's job. Everything
 * that needs source positions or format-keeping edits uses `yaml` (read-config, locate,
 * edit-in-place); both type scalars by resolve.ts, and agree.test.ts holds them to it.
 */
import jsyaml from 'js-yaml';
import { InputError, type SourceLocation } from '../errors.js';
import { ConvertError, convertDocument, type ConvertResult } from './to-json.js';
import { locate } from './locate.js';
import { KUBERNETES_SCHEMA } from './k8s-schema.js';
import { lastLineUnbroken } from './end-of-input.js';

/**
 * Deepest nesting accepted. Real manifests (even CRDs with deep schemas) stay far below; the cap
 * keeps every recursive step of this product (parse, merge, template data) inside Node's stack.
 */
export const MAX_DEPTH = 500;

/** NEL, LS, PS: line breaks in YAML 1.1 (go-yaml), ordinary characters in YAML 1.2 (js-yaml). */
const ODD_LINE_BREAK = /[\u0085\u2028\u2029]/;

/** What to do with a key that appears twice in one mapping. */
export type DuplicateKeys = 'error' | 'last';

export interface YamlParseOptions {
  /** File name for messages. */
  readonly file?: string;
  /** Index of the document in its stream (0-based), for messages. */
  readonly document?: number;
  /** Line of the whole file (1-based) where `text` starts, so errors name real lines. */
  readonly startLine?: number;
  /**
   * `error` (default): a repeated key is an error, as in sigs.k8s.io/yaml's strict mode and the
   * YAML spec; kubectl's default silently keeps the last value and drops the first (#99286).
   * `last`: keep the last value, exactly as kubectl does.
   */
  readonly duplicateKeys?: DuplicateKeys;
  readonly maxDepth?: number;
}

/** Parse `text` (one YAML document, no `---` lines) into JSON data. */
export function parseYamlDocument(text: string, options: YamlParseOptions = {}): ConvertResult {
  const startLine = options.startLine ?? 1;
  const where = (line?: number, column?: number): SourceLocation => ({
    file: options.file,
    document: options.document,
    line,
    column,
  });
  const maxDepth = options.maxDepth ?? MAX_DEPTH;
  const oddBreak = ODD_LINE_BREAK.exec(text);
  if (oddBreak !== null) {
    const before = text.slice(0, oddBreak.index);
    const line = before.split('\n').length;
    const column = oddBreak.index - before.lastIndexOf('\n');
    throw new InputError(
      'SI_INPUT_YAML',
      `character U+${oddBreak[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} is a line break to kubectl (YAML 1.1) ` +
        'but not to YAML 1.2 tools; remove it, or write it as an escape in a double-quoted string',
      { location: where(startLine + line - 1, column) },
    );
  }
  let raw: unknown;
  try {
    raw = jsyaml.load(text, {
      schema: KUBERNETES_SCHEMA,
      json: options.duplicateKeys === 'last',
      // js-yaml's own depth check keeps its recursive parser off the stack limit; ours (convert)
      // also counts alias expansion.
      maxDepth,
      ...(lastLineUnbroken(text) ? { listener: endAtEndOfInput(text) } : {}),
    } as jsyaml.LoadOptions);
  } catch (err) {
    throw fromParserError(err, text, startLine, where, maxDepth);
  }
  try {
    return convertDocument(raw, { limits: { maxDepth }, strictMerge: options.duplicateKeys !== 'last', mayShare: text.includes('&') });
  } catch (err) {
    if (err instanceof ConvertError) {
      const pos = locate(text, err.path, err.nullKey);
      const at = err.path.length > 0 ? `at ${formatPath(err.path)}: ` : '';
      return throwInput(err.code, `${at}${err.message}`, pos ? where(startLine + pos.line - 1, pos.column) : where(startLine), err);
    }
    throw fromParserError(err, text, startLine, where, maxDepth);
  }
}

/**
 * go-yaml keeps a block scalar's final line break only when the text has one (`k: |` whose last
 * line ends the input reads `x`); js-yaml appends a break to such an input first and reads `x\n`.
 * This listener corrects the one scalar that can end the input as it closes, before its parent
 * takes it: a block scalar (`|` or `>` after any tag or anchor) whose end is the end of the input.
 */
function endAtEndOfInput(text: string): (eventType: jsyaml.EventType, state: jsyaml.State) => void {
  const starts: number[] = [];
  return (eventType, state) => {
    if (eventType === 'open') return void starts.push(state.position);
    const start = starts.pop() ?? 0;
    if (state.kind !== 'scalar' || typeof state.result !== 'string' || !state.result.endsWith('\n') || state.position < text.length) return;
    if (isBlockScalarAt(state.input, start)) state.result = state.result.slice(0, -1);
  };
}

/** Whether the node at `i` (before its separation space, tag and anchor) is a block scalar. */
function isBlockScalarAt(input: string, i: number): boolean {
  for (;;) {
    while (i < input.length && (input[i] === ' ' || input[i] === '\t' || input[i] === '\n' || input[i] === '\r')) i++;
    if (input[i] === '#') {
      while (i < input.length && input[i] !== '\n') i++;
    } else if (input[i] === '!' || input[i] === '&') {
      while (i < input.length && !/[ \t\r\n]/.test(input[i])) i++;
    } else return input[i] === '|' || input[i] === '>';
  }
}

function throwInput(code: 'SI_INPUT_YAML' | 'SI_INPUT_LIMIT', message: string, location: SourceLocation, cause: unknown): never {
  throw new InputError(code, message, { location, cause });
}

interface JsYamlError {
  name: string;
  reason?: string;
  mark?: { line: number; column: number };
}

function fromParserError(
  err: unknown,
  text: string,
  startLine: number,
  where: (line?: number, column?: number) => SourceLocation,
  maxDepth: number,
): InputError {
  if (err instanceof RangeError) {
    return new InputError('SI_INPUT_LIMIT', 'the document is nested too deeply to process', { location: where(startLine), cause: err });
  }
  const e = err as JsYamlError;
  if (e && e.name === 'YAMLException') {
    const line = e.mark ? startLine + e.mark.line : startLine;
    const column = e.mark ? e.mark.column + 1 : undefined;
    const reason = e.reason ?? 'invalid YAML';
    if (/maxDepth/.test(reason)) {
      return new InputError('SI_INPUT_LIMIT', `nesting is deeper than ${maxDepth} levels`, { location: where(line, column), cause: err });
    }
    if (/duplicated mapping key/.test(reason) && e.mark) {
      const key = keyAt(text, e.mark.line, e.mark.column);
      return new InputError(
        'SI_INPUT_YAML',
        `duplicate key${key ? ` ${key}` : ''} in a mapping: kubectl would silently keep only the last value; remove one of them`,
        { location: where(line, column), cause: err },
      );
    }
    return new InputError('SI_INPUT_YAML', `invalid YAML: ${reason}`, { location: where(line, column), cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new InputError('SI_INPUT_YAML', `invalid YAML: ${message}`, { location: where(startLine), cause: err });
}

/** The key text at a position (js-yaml points duplicate-key errors at the second key). */
function keyAt(text: string, line: number, column: number): string | undefined {
  const lineText = text.split(/\r?\n/, line + 1)[line] ?? '';
  const m = /^\s*(?:-\s+)*("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s:#][^:#]*?)\s*:(?:\s|$)/.exec(lineText.slice(column));
  if (m === null) return undefined;
  return /^["']/.test(m[1]) ? m[1] : JSON.stringify(m[1]);
}

/** `spec.template.spec.containers[0].env` style, for messages. */
export function formatPath(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}
