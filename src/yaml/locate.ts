/**
 * @module yaml/locate
 * Finds the line and column of a node by its path, for error messages only. The fast parser
 * (js-yaml) reports positions for syntax errors, but problems found after parsing (a `.nan`
 * value, a null key, a merge conflict, a bomb) only know their path. On that rare error path we
 * re-read the document with the `yaml` package, which keeps source ranges, and walk the path.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';

export interface Position {
  line: number;
  column: number;
}

/**
 * Position (1-based, within `text`) of the node at `path`, or of the deepest ancestor that can be
 * found (a path through a merge key stops there). With `nullKey`, the position of the null key
 * inside the mapping at `path`. Undefined when the text cannot be re-read.
 */
export function locate(text: string, path: ReadonlyArray<string | number>, nullKey = false): Position | undefined {
  try {
    const lineCounter = new LineCounter();
    const doc = parseDocument(text, { lineCounter, version: '1.1', uniqueKeys: false, keepSourceTokens: false });
    let node: unknown = doc.contents;
    let best: Node | undefined = isNodeWithRange(node) ? node : undefined;
    for (const segment of path) {
      if (isAlias(node)) node = node.resolve(doc);
      if (segment === '<<') {
        // Point at the merge key itself; what it merges may come from anywhere.
        const mergeKey = isMap(node) ? node.items.find((p) => isScalar(p.key) && p.key.source === '<<')?.key : undefined;
        if (isNodeWithRange(mergeKey)) best = mergeKey;
        break;
      }
      let next: unknown;
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && scalarText(p.key) === String(segment));
        next = pair?.value ?? pair?.key;
      } else if (isSeq(node) && typeof segment === 'number') {
        next = node.items[segment];
      }
      if (!isNodeWithRange(next)) break;
      node = next;
      best = next;
    }
    if (nullKey) {
      if (isAlias(node)) node = node.resolve(doc);
      if (isMap(node)) {
        const pair = node.items.find((p) => p.key === null || (isScalar(p.key) && p.key.value === null));
        if (isNodeWithRange(pair?.key)) best = pair.key;
        else if (isNodeWithRange(pair?.value)) best = pair.value;
      }
    }
    if (!best?.range) return undefined;
    const pos = lineCounter.linePos(best.range[0]);
    return { line: pos.line, column: pos.col };
  } catch {
    return undefined;
  }
}

function scalarText(node: { source?: string; value: unknown }): string {
  return node.source ?? String(node.value);
}

function isNodeWithRange(n: unknown): n is Node & { range: [number, number, number] } {
  return typeof n === 'object' && n !== null && Array.isArray((n as { range?: unknown }).range);
}
