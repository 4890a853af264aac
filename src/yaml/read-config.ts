/**
 * @module yaml/read-config
 * Reads config and data YAML the way Kubernetes does (sigs.k8s.io/yaml on go-yaml v2): plain
 * scalars are typed by the one rule table (resolve.ts), so unquoted yes/no/on/off are booleans
 * and 0777 is octal, but timestamps and sexagesimal numbers stay strings, exactly as in the
 * manifest reader. Uses the `yaml` library (not the faster js-yaml path of read.ts) because it
 * keeps the parsed document, so validation errors can point at a line.
 */
import {
  LineCounter,
  isMap,
  isScalar,
  isSeq,
  parseAllDocuments,
  parseDocument,
  visit,
  type Document,
  type DocumentOptions,
  type ParseOptions,
  type SchemaOptions,
} from 'yaml';
import { lastLineUnbroken } from './end-of-input.js';
import { BigIntScalar, FloatScalar, NULL_SCALAR, resolvePlain, STRING } from './resolve.js';

/** Alias expansion cap (billion-laughs defence); real configs use none or a handful. */
const MAX_ALIAS_COUNT = 100;

export interface ParsedYaml {
  value: unknown;
  /** YAML warnings (unknown tags, ...), already formatted with their line. */
  warnings: string[];
  /** 1-based line of the node at `path`, if it exists. */
  lineOf(path: readonly (string | number)[]): number | undefined;
  /**
   * For a block scalar (`key: |`) at `path`: the file line of the scalar's first content line,
   * so a template's line N is file line `contentLine + N - 1`. Undefined for other scalars,
   * whose line breaks do not map one-to-one.
   */
  blockContentLine(path: readonly (string | number)[]): number | undefined;
}

export class YamlSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number | undefined,
  ) {
    super(message);
  }
}

/**
 * go-yaml v2's typing of plain scalars, as a `yaml` tag tried before all others. It claims every
 * plain scalar except `<<` (left to the library's merge-key handling), so YAML 1.1 readings that
 * go-yaml does not share (`e3` and `.` as NaN, `0o17` as text, `1:20` as 80) never apply.
 * Explicit tags (`!!int "12"`) still go to the library's own tags.
 */
const GO_YAML_PLAIN = {
  tag: 'tag:yaml.org,2002:go-yaml-plain',
  default: true,
  // `yaml` calls `.test(source)` on this; a RegExp-shaped object keeps the one rule in resolve.ts.
  test: { test: (s: string) => s !== '<<' } as unknown as RegExp,
  resolve(s: string): unknown {
    const r = resolvePlain(s);
    if (r === STRING) return s;
    if (r === NULL_SCALAR) return null;
    if (r instanceof FloatScalar || r instanceof BigIntScalar) return r.value;
    return r;
  },
};

/** The `yaml` options of every config/data read: YAML 1.1 syntax, go-yaml v2 scalars. */
const KUBE_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: (tags) => [
    GO_YAML_PLAIN,
    ...tags.filter((t) => {
      const tag = t as { tag?: string; format?: string };
      return tag.tag !== 'tag:yaml.org,2002:timestamp' && tag.tag !== 'tag:yaml.org,2002:binary' && tag.format !== 'TIME';
    }),
  ],
};

/** Parse one YAML 1.1 document. Throws {@link YamlSyntaxError} (with a line) on bad syntax. */
export function parseKubeYaml(text: string): ParsedYaml {
  const lineCounter = new LineCounter();
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { ...KUBE_OPTIONS, lineCounter, prettyErrors: true, uniqueKeys: true });
  } catch (err) {
    throw new YamlSyntaxError(err instanceof Error ? err.message : String(err), undefined);
  }
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    const line = first.linePos?.[0]?.line;
    throw new YamlSyntaxError(firstLine(first.message), line);
  }
  endAtEndOfInput(doc, text);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    // Excessive aliases, or an alias to an undefined anchor.
    throw new YamlSyntaxError(err instanceof Error ? firstLine(err.message) : String(err), undefined);
  }
  const nodeAt = (path: readonly (string | number)[]) => {
    try {
      return doc.getIn(path, true) as unknown;
    } catch {
      return undefined;
    }
  };
  const lineAt = (offset: number | undefined) => (offset === undefined ? undefined : lineCounter.linePos(offset).line);
  return {
    value,
    warnings: doc.warnings.map((w) => firstLine(w.message)),
    lineOf(path) {
      const node = nodeAt(path) as { range?: [number, number, number] } | undefined;
      if (node?.range) return lineAt(node.range[0]);
      // Fall back to the parent's line (e.g. a key whose value is null).
      return path.length > 0 ? this.lineOf(path.slice(0, -1)) : undefined;
    },
    blockContentLine(path) {
      const node = nodeAt(path);
      if (!isScalar(node) || (node.type !== 'BLOCK_LITERAL' && node.type !== 'BLOCK_FOLDED') || !node.range) return undefined;
      if (node.type === 'BLOCK_FOLDED') return undefined;
      const header = lineAt(node.range[0]);
      return header === undefined ? undefined : header + 1;
    },
  };
}

/**
 * go-yaml keeps a block scalar's final line break only when the text has one: `k: |` with its last
 * line ending the input reads `x` in go-yaml (kubectl, the apiserver, Istio) and `x\n` in the
 * `yaml` library, which reads the input as if it ended with a break. The one scalar that can end
 * the input is corrected in place.
 */
function endAtEndOfInput(doc: Document.Parsed, text: string): void {
  if (!lastLineUnbroken(text)) return;
  visit(doc, {
    Scalar(_, node) {
      if ((node.type !== 'BLOCK_LITERAL' && node.type !== 'BLOCK_FOLDED') || node.range?.[1] !== text.length) return;
      if (typeof node.value === 'string' && node.value.endsWith('\n')) node.value = node.value.slice(0, -1);
    },
  });
}

/** yaml's pretty messages end with a source excerpt; the first line carries the position. */
function firstLine(message: string): string {
  const nl = message.indexOf(':\n');
  return (nl >= 0 ? message.slice(0, nl) : message.split('\n')[0]).trim();
}

/** One document of a stream read by {@link parseKubeYamlStream}. */
export interface YamlStreamDocument {
  /** No content (an empty document, or only comments). */
  readonly empty: boolean;
  /** The first syntax error, with its 1-based line and column when known. */
  readonly error?: { message: string; line?: number; column?: number; cause: unknown };
  /** [start, end) offsets of the document's content in the text. */
  readonly range?: readonly [number, number];
  /** The data (aliases capped at 100; throws when they expand more). */
  toJS(): unknown;
  /** [start, end) of item `index` of the top-level sequence under `key` (a `List`'s items). */
  itemRange(key: string, index: number): readonly [number, number] | undefined;
}

/** Parse a multi-document stream with the same scalar rules as {@link parseKubeYaml}. */
export function parseKubeYamlStream(text: string): YamlStreamDocument[] {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { ...KUBE_OPTIONS, lineCounter, prettyErrors: true });
  // Only comments: an empty array (marked `empty`), so nil data.
  return (docs as Document.Parsed[]).map((doc): YamlStreamDocument => {
    endAtEndOfInput(doc, text);
    const first = doc.errors[0];
    const pos = first?.linePos?.[0];
    const contents = doc.contents as { range?: [number, number, number] } | null;
    return {
      empty: doc.contents === null,
      error: first === undefined ? undefined : { message: first.message.split('\n')[0], line: pos?.line, column: pos?.col, cause: first },
      range: contents?.range ? [contents.range[0], contents.range[1]] : undefined,
      toJS: () => doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown,
      itemRange(key, index) {
        const seq: unknown = isMap(doc.contents) ? doc.contents.get(key, true) : undefined;
        const item = isSeq(seq) ? (seq.items[index] as { range?: [number, number, number] } | undefined) : undefined;
        return item?.range ? [item.range[0], item.range[1]] : undefined;
      },
    };
  });
}
