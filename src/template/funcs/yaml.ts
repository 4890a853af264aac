import { isBase60Float, resolvesToString } from '../../yaml/go-quote.js';
import { codePoints, toNode, type Node } from './yaml-node.js';

export { yamlKeyLess } from './yaml-node.js';

const BEST_WIDTH = 80;
const BEST_INDENT = 2;

const isBreak = (c: number): boolean => c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
const isBlankOrEnd = (c: number | undefined): boolean => c === undefined || c === 0x20 || c === 0x09;
/** go-yaml's is_printable (4-byte UTF-8, i.e. above U+FFFF, is not "printable"). */
const isPrintable = (c: number): boolean =>
  c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);

interface Analysis {
  multiline: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

/** Strings whose analysis is trivially "anything goes": no indicators, breaks or edge spaces. */
const SIMPLE_SCALAR = /^[A-Za-z0-9_(][A-Za-z0-9 _./()=+$^;<>-]*$/;
const SIMPLE_ANALYSIS: Analysis = { multiline: false, blockPlain: true, singleQuoted: true, block: true };

/** yaml_emitter_analyze_scalar (block context). */
function analyze(cps: readonly number[], text?: string): Analysis {
  if (text !== undefined && SIMPLE_SCALAR.test(text) && !text.endsWith(' ') && !text.startsWith('---') && !text.startsWith('...')) {
    return SIMPLE_ANALYSIS;
  }
  if (cps.length === 0) return { multiline: false, blockPlain: true, singleQuoted: true, block: false };
  let blockIndicators = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWs = true;
  let prevSpace = false;
  let prevBreak = false;
  const n = cps.length;
  if (n >= 3 && ((cps[0] === 0x2d && cps[1] === 0x2d && cps[2] === 0x2d) || (cps[0] === 0x2e && cps[1] === 0x2e && cps[2] === 0x2e))) {
    blockIndicators = true;
  }
  for (let i = 0; i < n; i++) {
    const c = cps[i];
    const followedByWs = isBlankOrEnd(cps[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(String.fromCodePoint(c))) blockIndicators = true;
      else if ((c === 0x3f || c === 0x3a || c === 0x2d) && followedByWs) blockIndicators = true;
    } else if (c === 0x3a && followedByWs) blockIndicators = true;
    else if (c === 0x23 && precededByWs) blockIndicators = true;
    if (!isPrintable(c)) special = true;
    if (c === 0x20) {
      if (i === 0) leadingSpace = true;
      if (i === n - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === n - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = false;
      prevBreak = false;
    }
    precededByWs = c === 0x20 || c === 0x09 || isBreak(c);
  }
  const a: Analysis = { multiline: lineBreaks, blockPlain: true, singleQuoted: true, block: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.blockPlain = false;
  if (trailingSpace) a.block = false;
  if (breakSpace) a.blockPlain = a.singleQuoted = false;
  if (spaceBreak || special) a.blockPlain = a.singleQuoted = false;
  if (spaceBreak || special) a.block = false;
  if (lineBreaks) a.blockPlain = false;
  if (blockIndicators) a.blockPlain = false;
  return a;
}

type Style = 'plain' | 'single' | 'double' | 'literal';

class Emitter {
  out = '';
  column = 0;
  whitespace = true;
  indention = true;
  indent = -1;

  private put(s: string): void {
    this.out += s;
    this.column += s.length;
  }

  private putChar(c: number): void {
    this.out += String.fromCodePoint(c);
    this.column++;
  }

  private putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }

  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  writeIndicator(ind: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(ind);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private increaseIndent(flow: boolean, indentless: boolean): number {
    const saved = this.indent;
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
    return saved;
  }

  node(n: Node, ctx: { mapping: boolean; simpleKey: boolean }): void {
    if (n.kind === 'map') return this.mapping(n.entries, ctx.mapping);
    if (n.kind === 'seq') return this.sequence(n.items, ctx.mapping);
    if (n.kind === 'str') return this.string(n.value, ctx.simpleKey);
    return this.scalar(codePoints(n.text), 'plain', ctx.simpleKey, n.text);
  }

  private mapping(entries: [string, Node][], _inMapping: boolean): void {
    if (entries.length === 0) {
      this.writeIndicator('{', true, true, false);
      this.writeIndicator('}', false, false, false);
      return;
    }
    const saved = this.increaseIndent(false, false);
    for (const [k, v] of entries) {
      this.writeIndent();
      if (!analyze(codePoints(k), k).multiline && Buffer.byteLength(k) <= 128) {
        this.string(k, true);
        this.writeIndicator(':', false, false, false);
      } else {
        this.writeIndicator('?', true, false, true);
        this.string(k, false);
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
      }
      this.node(v, { mapping: true, simpleKey: false });
    }
    this.indent = saved;
  }

  private sequence(items: Node[], inMapping: boolean): void {
    if (items.length === 0) {
      this.writeIndicator('[', true, true, false);
      this.writeIndicator(']', false, false, false);
      return;
    }
    const saved = this.increaseIndent(false, inMapping && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.node(item, { mapping: false, simpleKey: false });
    }
    this.indent = saved;
  }

  /** go-yaml's stringv: plain when YAML 1.1 reads it back as the same string, literal for multi-line. */
  private string(s: string, simpleKey: boolean): void {
    const canUsePlain = resolvesToString(s) && !isBase60Float(s);
    const style: Style = s.includes('\n') ? 'literal' : canUsePlain ? 'plain' : 'double';
    this.scalar(codePoints(s), style, simpleKey, s);
  }

  private scalar(cps: number[], requested: Style, simpleKey: boolean, text?: string): void {
    const a = analyze(cps, text);
    let style = requested;
    if (simpleKey && a.multiline) style = 'double';
    if (style === 'plain' && (!a.blockPlain || (cps.length === 0 && simpleKey))) style = 'single';
    if (style === 'single' && !a.singleQuoted) style = 'double';
    if (style === 'literal' && (!a.block || simpleKey)) style = 'double';
    const saved = this.increaseIndent(true, false);
    const allowBreaks = !simpleKey;
    if (style === 'plain') this.plain(cps, allowBreaks, text);
    else if (style === 'single') this.singleQuoted(cps, allowBreaks);
    else if (style === 'double') this.doubleQuoted(cps, allowBreaks);
    else this.literal(cps);
    this.indent = saved;
  }

  private plain(cps: number[], allowBreaks: boolean, text?: string): void {
    if (!this.whitespace) this.put(' ');
    // Fast path: nothing to fold (no break is possible before the column passes the width).
    if (text !== undefined && (!allowBreaks || this.column + cps.length <= BEST_WIDTH || !text.includes(' '))) {
      this.out += text;
      this.column += cps.length;
      this.whitespace = false;
      this.indention = false;
      return;
    }
    let spaces = false;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i];
      if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && cps[i + 1] !== 0x20) this.writeIndent();
        else this.putChar(c);
        spaces = true;
      } else {
        this.putChar(c);
        this.indention = false;
        spaces = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(cps: number[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i];
      if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < cps.length - 1 && cps[i + 1] !== 0x20) {
          this.writeIndent();
        } else this.putChar(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.putBreak();
        this.writeBreak(c);
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (c === 0x27) this.put("'");
        this.putChar(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeBreak(c: number): void {
    if (c === 0x0a) this.putBreak();
    else {
      this.putChar(c);
      this.column = 0;
    }
    this.indention = true;
  }

  private doubleQuoted(cps: number[], allowBreaks: boolean): void {
    this.writeIndicator('"', true, false, false);
    let spaces = false;
    // go-yaml's is_bom looks at the start of the value, not at i: a leading BOM escapes everything.
    const bom = cps[0] === 0xfeff;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i];
      if (bom || !isPrintable(c) || isBreak(c) || c === 0x22 || c === 0x5c) {
        this.put('\\' + escapeFor(c));
        spaces = false;
      } else if (c === 0x20) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < cps.length - 1) {
          this.writeIndent();
          if (cps[i + 1] === 0x20) this.put('\\');
        } else this.putChar(c);
        spaces = true;
      } else {
        this.putChar(c);
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private literal(cps: number[]): void {
    this.writeIndicator('|', true, false, false);
    if (cps[0] === 0x20 || isBreak(cps[0])) this.writeIndicator(String(BEST_INDENT), false, false, false);
    const n = cps.length;
    let chomp = '';
    if (n === 0 || !isBreak(cps[n - 1])) chomp = '-';
    else if (n === 1 || isBreak(cps[n - 2])) chomp = '+';
    if (chomp) this.writeIndicator(chomp, false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of cps) {
      if (isBreak(c)) {
        this.writeBreak(c);
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.putChar(c);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

function escapeFor(c: number): string {
  const named: Record<number, string> = {
    0x00: '0',
    0x07: 'a',
    0x08: 'b',
    0x09: 't',
    0x0a: 'n',
    0x0b: 'v',
    0x0c: 'f',
    0x0d: 'r',
    0x1b: 'e',
    0x22: '"',
    0x5c: '\\',
    0x85: 'N',
    0xa0: '_',
    0x2028: 'L',
    0x2029: 'P',
  };
  if (named[c] !== undefined) return named[c];
  const hex = c.toString(16).toUpperCase();
  if (c <= 0xff) return 'x' + hex.padStart(2, '0');
  if (c <= 0xffff) return 'u' + hex.padStart(4, '0');
  return 'U' + hex.padStart(8, '0');
}

/** sigs.k8s.io/yaml.Marshal; throws JsonMarshalError where encoding/json fails. */
export function goYamlMarshal(v: unknown): string {
  const node = toNode(v, 0);
  const e = new Emitter();
  e.node(node, { mapping: false, simpleKey: false });
  e.writeIndent();
  return e.out;
}
