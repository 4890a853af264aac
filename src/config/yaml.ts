/**
 * @module config/yaml
 * Reads config YAML the way Kubernetes does (sigs.k8s.io/yaml on go-yaml v2): YAML 1.1, so
 * unquoted yes/no/on/off are booleans and 0777 is octal, but timestamps and sexagesimal
 * numbers stay strings (go-yaml v2 keeps them strings when decoding into interface{}).
 * Keeps the parsed document so validation errors can point at a line.
 */
import { LineCounter, isScalar, parseDocument, type Document } from 'yaml';

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

/** Parse one YAML 1.1 document. Throws {@link YamlSyntaxError} (with a line) on bad syntax. */
export function parseKubeYaml(text: string): ParsedYaml {
  const lineCounter = new LineCounter();
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, {
      version: '1.1',
      lineCounter,
      prettyErrors: true,
      uniqueKeys: true,
      customTags: (tags) =>
        tags.filter((t) => {
          const tag = t as { tag?: string; format?: string };
          return tag.tag !== 'tag:yaml.org,2002:timestamp' && tag.tag !== 'tag:yaml.org,2002:binary' && tag.format !== 'TIME';
        }),
    });
  } catch (err) {
    throw new YamlSyntaxError(err instanceof Error ? err.message : String(err), undefined);
  }
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    const line = first.linePos?.[0]?.line;
    throw new YamlSyntaxError(firstLine(first.message), line);
  }
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

/** yaml's pretty messages end with a source excerpt; the first line carries the position. */
function firstLine(message: string): string {
  const nl = message.indexOf(':\n');
  return (nl >= 0 ? message.slice(0, nl) : message.split('\n')[0]).trim();
}
