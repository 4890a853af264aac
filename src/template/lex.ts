/**
 * @module template/lex
 * The lexer of Go's text/template, state for state: the same items, the same trim-marker and
 * comment rules, and the same error texts (`unclosed action`, `bad character U+0023 '#'`, ...)
 * because parse errors quote them. Positions are UTF-16 offsets into the text; error
 * messages convert them to Go's byte columns where needed.
 */

import { sprintf } from './go-fmt.js';

export enum ItemType {
  Error,
  Bool,
  Char,
  CharConstant,
  Complex,
  Assign,
  Declare,
  EOF,
  Field,
  Identifier,
  LeftDelim,
  LeftParen,
  Number,
  Pipe,
  RawString,
  RightDelim,
  RightParen,
  Space,
  String,
  Text,
  Variable,
  // Keywords (printed as <word> in errors) come after Keyword.
  Keyword,
  Block,
  Break,
  Continue,
  Dot,
  Define,
  Else,
  End,
  If,
  Nil,
  Range,
  Template,
  With,
}

export interface Item {
  readonly typ: ItemType;
  /** Offset of the item in the input. */
  readonly pos: number;
  readonly val: string;
  /** 1-based line of the item's start. */
  readonly line: number;
}

const KEYWORDS: Record<string, ItemType> = {
  '.': ItemType.Dot,
  block: ItemType.Block,
  break: ItemType.Break,
  continue: ItemType.Continue,
  define: ItemType.Define,
  else: ItemType.Else,
  end: ItemType.End,
  if: ItemType.If,
  range: ItemType.Range,
  nil: ItemType.Nil,
  template: ItemType.Template,
  with: ItemType.With,
};

/** Go's item.String(), used in "unexpected X in Y" messages. */
export function itemString(item: Item): string {
  if (item.typ === ItemType.EOF) return 'EOF';
  if (item.typ === ItemType.Error) return item.val;
  if (item.typ > ItemType.Keyword) return `<${item.val}>`;
  if (Buffer.byteLength(item.val, 'utf8') > 10) return sprintf('%.10q...', [item.val]);
  return sprintf('%q', [item.val]);
}

const EOF = -1;
const LEFT_COMMENT = '/*';
const RIGHT_COMMENT = '*/';
const TRIM_MARKER_LEN = 2;

function isSpace(r: number): boolean {
  return r === 0x20 || r === 0x09 || r === 0x0d || r === 0x0a;
}

const LETTER_OR_DIGIT = /^[\p{L}\p{Nd}]$/u;

/** Go's isAlphaNumeric: `_`, unicode letters and decimal digits. */
function isAlphaNumeric(r: number): boolean {
  if (r < 0x80) {
    return r === 0x5f || (r >= 0x30 && r <= 0x39) || (r >= 0x41 && r <= 0x5a) || (r >= 0x61 && r <= 0x7a);
  }
  return r !== EOF && LETTER_OR_DIGIT.test(String.fromCodePoint(r));
}

function hasLeftTrimMarker(s: string, at: number): boolean {
  return s.length - at >= 2 && s.charCodeAt(at) === 0x2d && isSpace(s.charCodeAt(at + 1));
}

function hasRightTrimMarker(s: string, at: number): boolean {
  return s.length - at >= 2 && isSpace(s.charCodeAt(at)) && s.charCodeAt(at + 1) === 0x2d;
}

function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = s.indexOf('\n', from); i !== -1 && i < to; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

type StateFn = ((l: Lexer) => StateFn) | null;

/** Lex the whole input into items; the last item is EOF or an Error. */
export function lex(input: string, leftDelim: string, rightDelim: string, breakOK: boolean, continueOK: boolean): Item[] {
  const l = new Lexer(input, leftDelim || '{{', rightDelim || '}}', breakOK, continueOK);
  let state: StateFn = lexText;
  while (state !== null) state = state(l);
  return l.items;
}

class Lexer {
  pos = 0;
  start = 0;
  width = 0;
  line = 1;
  startLine = 1;
  parenDepth = 0;
  readonly items: Item[] = [];

  constructor(
    readonly input: string,
    readonly leftDelim: string,
    readonly rightDelim: string,
    readonly breakOK: boolean,
    readonly continueOK: boolean,
  ) {}

  next(): number {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const r = this.input.codePointAt(this.pos) as number;
    this.width = r > 0xffff ? 2 : 1;
    this.pos += this.width;
    if (r === 0x0a) this.line++;
    return r;
  }

  peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  backup(): void {
    this.pos -= this.width;
    if (this.width === 1 && this.input.charCodeAt(this.pos) === 0x0a) this.line--;
  }

  emit(typ: ItemType): void {
    this.items.push({ typ, pos: this.start, val: this.input.slice(this.start, this.pos), line: this.startLine });
    this.start = this.pos;
    this.startLine = this.line;
  }

  ignore(): void {
    this.line += countNewlines(this.input, this.start, this.pos);
    this.start = this.pos;
    this.startLine = this.line;
  }

  accept(valid: string): boolean {
    const r = this.next();
    if (r !== EOF && valid.includes(String.fromCodePoint(r))) return true;
    this.backup();
    return false;
  }

  acceptRun(valid: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || !valid.includes(String.fromCodePoint(r))) break;
    }
    this.backup();
  }

  errorf(message: string): StateFn {
    this.items.push({ typ: ItemType.Error, pos: this.start, val: message, line: this.startLine });
    return null;
  }

  atRightDelim(): { delim: boolean; trimSpaces: boolean } {
    if (hasRightTrimMarker(this.input, this.pos) && this.input.startsWith(this.rightDelim, this.pos + TRIM_MARKER_LEN)) {
      return { delim: true, trimSpaces: true };
    }
    if (this.input.startsWith(this.rightDelim, this.pos)) return { delim: true, trimSpaces: false };
    return { delim: false, trimSpaces: false };
  }

  /** Go's atTerminator: can the current word end here? */
  atTerminator(): boolean {
    const r = this.peek();
    if (isSpace(r)) return true;
    switch (r) {
      case EOF:
      case 0x2e:
      case 0x2c:
      case 0x7c:
      case 0x3a:
      case 0x29:
      case 0x28:
        return true;
    }
    // Go 1.19 accepts the whole right delimiter here, not just its first character.
    return this.input.startsWith(this.rightDelim, this.pos);
  }
}

function rightTrimLength(s: string, from: number, to: number): number {
  let i = to;
  while (i > from && isSpace(s.charCodeAt(i - 1))) i--;
  return to - i;
}

function leftTrimLength(s: string, from: number): number {
  let i = from;
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i - from;
}

function lexText(l: Lexer): StateFn {
  l.width = 0;
  const x = l.input.indexOf(l.leftDelim, l.pos);
  if (x >= 0) {
    const ldn = l.leftDelim.length;
    l.pos = x;
    let trimLength = 0;
    if (hasLeftTrimMarker(l.input, l.pos + ldn)) trimLength = rightTrimLength(l.input, l.start, l.pos);
    l.pos -= trimLength;
    if (l.pos > l.start) {
      l.line += countNewlines(l.input, l.start, l.pos);
      l.emit(ItemType.Text);
    }
    l.pos += trimLength;
    l.ignore();
    return lexLeftDelim;
  }
  l.pos = l.input.length;
  if (l.pos > l.start) {
    l.line += countNewlines(l.input, l.start, l.pos);
    l.emit(ItemType.Text);
  }
  l.emit(ItemType.EOF);
  return null;
}

function lexLeftDelim(l: Lexer): StateFn {
  l.pos += l.leftDelim.length;
  const trimSpace = hasLeftTrimMarker(l.input, l.pos);
  const afterMarker = trimSpace ? TRIM_MARKER_LEN : 0;
  if (l.input.startsWith(LEFT_COMMENT, l.pos + afterMarker)) {
    l.pos += afterMarker;
    l.ignore();
    return lexComment;
  }
  l.emit(ItemType.LeftDelim);
  l.pos += afterMarker;
  l.ignore();
  l.parenDepth = 0;
  return lexInsideAction;
}

function lexComment(l: Lexer): StateFn {
  l.pos += LEFT_COMMENT.length;
  const i = l.input.indexOf(RIGHT_COMMENT, l.pos);
  if (i < 0) return l.errorf('unclosed comment');
  l.pos = i + RIGHT_COMMENT.length;
  const { delim, trimSpaces } = l.atRightDelim();
  if (!delim) return l.errorf('comment ends before closing delimiter');
  if (trimSpaces) l.pos += TRIM_MARKER_LEN;
  l.pos += l.rightDelim.length;
  if (trimSpaces) l.pos += leftTrimLength(l.input, l.pos);
  l.ignore();
  return lexText;
}

function lexRightDelim(l: Lexer): StateFn {
  const trimSpace = hasRightTrimMarker(l.input, l.pos);
  if (trimSpace) {
    l.pos += TRIM_MARKER_LEN;
    l.ignore();
  }
  l.pos += l.rightDelim.length;
  l.emit(ItemType.RightDelim);
  if (trimSpace) {
    l.pos += leftTrimLength(l.input, l.pos);
    l.ignore();
  }
  return lexText;
}

function runeDescription(r: number): string {
  return sprintf('%#U', [BigInt(r)]);
}

function lexInsideAction(l: Lexer): StateFn {
  const { delim } = l.atRightDelim();
  if (delim) {
    if (l.parenDepth === 0) return lexRightDelim;
    return l.errorf('unclosed left paren');
  }
  const r = l.next();
  if (r === EOF) return l.errorf('unclosed action');
  if (isSpace(r)) {
    l.backup();
    return lexSpace;
  }
  switch (r) {
    case 0x3d: // =
      l.emit(ItemType.Assign);
      return lexInsideAction;
    case 0x3a: // :
      if (l.next() !== 0x3d) return l.errorf('expected :=');
      l.emit(ItemType.Declare);
      return lexInsideAction;
    case 0x7c: // |
      l.emit(ItemType.Pipe);
      return lexInsideAction;
    case 0x22: // "
      return lexQuote;
    case 0x60: // `
      return lexRawQuote;
    case 0x24: // $
      return lexVariable;
    case 0x27: // '
      return lexChar;
    case 0x2e: // .
      if (l.pos < l.input.length) {
        const c = l.input.charCodeAt(l.pos);
        if (c < 0x30 || c > 0x39) return lexField;
      }
      l.backup();
      return lexNumber;
    case 0x28: // (
      l.emit(ItemType.LeftParen);
      l.parenDepth++;
      return lexInsideAction;
    case 0x29: // )
      l.emit(ItemType.RightParen);
      l.parenDepth--;
      if (l.parenDepth < 0) return l.errorf(`unexpected right paren ${runeDescription(r)}`);
      return lexInsideAction;
  }
  if (r === 0x2b || r === 0x2d || (r >= 0x30 && r <= 0x39)) {
    l.backup();
    return lexNumber;
  }
  if (isAlphaNumeric(r)) {
    l.backup();
    return lexIdentifier;
  }
  if (r <= 0x7f && r >= 0x20 && r !== 0x7f) {
    l.emit(ItemType.Char);
    return lexInsideAction;
  }
  return l.errorf(`unrecognized character in action: ${runeDescription(r)}`);
}

function lexSpace(l: Lexer): StateFn {
  let numSpaces = 0;
  for (;;) {
    const r = l.peek();
    if (!isSpace(r)) break;
    l.next();
    numSpaces++;
  }
  if (hasRightTrimMarker(l.input, l.pos - 1) && l.input.startsWith(l.rightDelim, l.pos - 1 + TRIM_MARKER_LEN)) {
    l.backup();
    if (numSpaces === 1) return lexRightDelim;
  }
  l.emit(ItemType.Space);
  return lexInsideAction;
}

function lexIdentifier(l: Lexer): StateFn {
  for (;;) {
    const r = l.next();
    if (isAlphaNumeric(r)) continue;
    l.backup();
    const word = l.input.slice(l.start, l.pos);
    if (!l.atTerminator()) return l.errorf(`bad character ${runeDescription(r)}`);
    const key = Object.hasOwn(KEYWORDS, word) ? KEYWORDS[word] : undefined;
    if (key !== undefined && key > ItemType.Keyword) {
      if ((key === ItemType.Break && !l.breakOK) || (key === ItemType.Continue && !l.continueOK)) l.emit(ItemType.Identifier);
      else l.emit(key);
    } else if (word[0] === '.') {
      l.emit(ItemType.Field);
    } else if (word === 'true' || word === 'false') {
      l.emit(ItemType.Bool);
    } else {
      l.emit(ItemType.Identifier);
    }
    return lexInsideAction;
  }
}

function lexField(l: Lexer): StateFn {
  return lexFieldOrVariable(l, ItemType.Field);
}

function lexVariable(l: Lexer): StateFn {
  if (l.atTerminator()) {
    l.emit(ItemType.Variable);
    return lexInsideAction;
  }
  return lexFieldOrVariable(l, ItemType.Variable);
}

function lexFieldOrVariable(l: Lexer, typ: ItemType): StateFn {
  if (l.atTerminator()) {
    l.emit(typ === ItemType.Variable ? ItemType.Variable : ItemType.Dot);
    return lexInsideAction;
  }
  let r: number;
  for (;;) {
    r = l.next();
    if (!isAlphaNumeric(r)) {
      l.backup();
      break;
    }
  }
  if (!l.atTerminator()) return l.errorf(`bad character ${runeDescription(r)}`);
  l.emit(typ);
  return lexInsideAction;
}

function lexChar(l: Lexer): StateFn {
  for (;;) {
    let r = l.next();
    if (r === 0x5c) {
      r = l.next();
      if (r !== EOF && r !== 0x0a) continue;
    }
    if (r === EOF || r === 0x0a) return l.errorf('unterminated character constant');
    if (r === 0x27) break;
  }
  l.emit(ItemType.CharConstant);
  return lexInsideAction;
}

function lexNumber(l: Lexer): StateFn {
  if (!scanNumber(l)) return l.errorf(`bad number syntax: ${sprintf('%q', [l.input.slice(l.start, l.pos)])}`);
  const sign = l.peek();
  if (sign === 0x2b || sign === 0x2d) {
    if (!scanNumber(l) || l.input.charCodeAt(l.pos - 1) !== 0x69) {
      return l.errorf(`bad number syntax: ${sprintf('%q', [l.input.slice(l.start, l.pos)])}`);
    }
    l.emit(ItemType.Complex);
  } else {
    l.emit(ItemType.Number);
  }
  return lexInsideAction;
}

function scanNumber(l: Lexer): boolean {
  l.accept('+-');
  let digits = '0123456789_';
  if (l.accept('0')) {
    if (l.accept('xX')) digits = '0123456789abcdefABCDEF_';
    else if (l.accept('oO')) digits = '01234567_';
    else if (l.accept('bB')) digits = '01_';
  }
  l.acceptRun(digits);
  if (l.accept('.')) l.acceptRun(digits);
  if (digits.length === 11 && l.accept('eE')) {
    l.accept('+-');
    l.acceptRun('0123456789_');
  }
  if (digits.length === 23 && l.accept('pP')) {
    l.accept('+-');
    l.acceptRun('0123456789_');
  }
  l.accept('i');
  if (isAlphaNumeric(l.peek())) {
    l.next();
    return false;
  }
  return true;
}

function lexQuote(l: Lexer): StateFn {
  for (;;) {
    let r = l.next();
    if (r === 0x5c) {
      r = l.next();
      if (r !== EOF && r !== 0x0a) continue;
    }
    if (r === EOF || r === 0x0a) return l.errorf('unterminated quoted string');
    if (r === 0x22) break;
  }
  l.emit(ItemType.String);
  return lexInsideAction;
}

function lexRawQuote(l: Lexer): StateFn {
  for (;;) {
    const r = l.next();
    if (r === EOF) return l.errorf('unterminated raw quoted string');
    if (r === 0x60) break;
  }
  l.emit(ItemType.RawString);
  return lexInsideAction;
}
