/**
 * @module template/funcs/case-convert
 * `camelcase`, `snakecase` and `kebabcase`: Sprig delegates to huandu/xstrings v1.3.3, whose word
 * splitting has many special cases ("HTTPServer" -> "http_server", "Bld4Floor3rd" ->
 * "bld4_floor_3rd", a lone "_" camel-cases to "__"). This reproduces that algorithm rune by rune.
 */
import { isLetter, isNumber, isPunct, isSpace, isUpper, toLowerRune, toUpperRune } from './unicode.js';

const RUNE_ERROR = 0xfffd;

function isConnector(r: number): boolean {
  return r === 0x2d || r === 0x5f || isSpace(r);
}

function isAlphabet(r: number): boolean {
  if (!isLetter(r)) return false;
  if (r < 0x3400) return true;
  if (r >= 0x4e00 && r <= 0x9fcc) return false;
  if (r >= 0x3400 && r <= 0x4d85) return false;
  if (r >= 0x20000 && r <= 0x2b81d) return false;
  return true;
}

function toRunes(s: string): number[] {
  const out: number[] = [];
  for (const c of s) {
    const r = c.codePointAt(0) as number;
    out.push(r >= 0xd800 && r <= 0xdfff ? RUNE_ERROR : r);
  }
  return out;
}

/** xstrings.ToCamelCase */
export function camelCase(str: string): string {
  const rs = toRunes(str);
  if (rs.length === 0) return '';
  const out: number[] = [];
  let i = 0;
  let r0 = 0;
  let size = 0;
  while (i < rs.length) {
    r0 = rs[i++];
    size = 1;
    if (!isConnector(r0)) {
      r0 = toUpperRune(r0);
      break;
    }
    out.push(r0);
  }
  if (i >= rs.length) {
    if (size !== 0) out.push(r0);
    return String.fromCodePoint(...out);
  }
  while (i < rs.length) {
    const r1 = r0;
    r0 = rs[i++];
    if (isConnector(r0) && isConnector(r1)) {
      out.push(r1);
      continue;
    }
    if (isConnector(r1)) r0 = toUpperRune(r0);
    else {
      r0 = toLowerRune(r0);
      out.push(r1);
    }
  }
  out.push(r0);
  return String.fromCodePoint(...out);
}

const enum W {
  Invalid,
  Number,
  Upper,
  Alphabet,
  Connector,
  Punct,
  Other,
}

interface Word {
  wt: W;
  word: number[];
  /** Index into the rune array where the remaining text starts. */
  rest: number;
}

/** xstrings' nextValidRune over runes: skips U+FFFD (Go's RuneError); `prev` if none is left. */
function nextValid(rs: number[], from: number, prev: number): { r: number; size: number } {
  let size = 0;
  for (let i = from; i < rs.length; i++) {
    size++;
    if (rs[i] !== RUNE_ERROR) return { r: rs[i], size };
  }
  return { r: prev, size };
}

function nextWord(rs: number[], start: number): Word {
  if (start >= rs.length) return { wt: W.Invalid, word: [], rest: rs.length };
  let offset = 0;
  let rem = start;
  let { r, size } = nextValid(rs, rem, RUNE_ERROR);
  offset += size;
  if (r === RUNE_ERROR) return { wt: W.Invalid, word: rs.slice(start, start + offset), rest: start + offset };
  let wt: W;
  const scan = (stop: (x: number) => boolean): void => {
    while (rem < rs.length) {
      ({ r, size } = nextValid(rs, rem, r));
      if (stop(r)) break;
      offset += size;
      rem += size;
    }
  };
  if (isConnector(r)) {
    wt = W.Connector;
    rem += size;
    scan((x) => !isConnector(x));
  } else if (isPunct(r)) {
    wt = W.Punct;
    rem += size;
    scan((x) => !isPunct(x));
  } else if (isUpper(r)) {
    wt = W.Upper;
    rem += size;
    if (rem < rs.length) {
      ({ r, size } = nextValid(rs, rem, r));
      if (isUpper(r)) {
        let prevSize = size;
        offset += size;
        rem += size;
        while (rem < rs.length) {
          ({ r, size } = nextValid(rs, rem, r));
          if (!isUpper(r)) break;
          prevSize = size;
          offset += size;
          rem += size;
        }
        // "HTTPStatus": the last capital starts the next word.
        if (rem < rs.length && isAlphabet(r)) {
          offset -= prevSize;
          rem = start + offset;
        }
      } else if (isAlphabet(r)) {
        offset += size;
        rem += size;
        scan((x) => !isAlphabet(x) || isUpper(x));
      }
    }
  } else if (isAlphabet(r)) {
    wt = W.Alphabet;
    rem += size;
    scan((x) => !isAlphabet(x) || isUpper(x));
  } else if (isNumber(r)) {
    wt = W.Number;
    rem += size;
    scan((x) => !isNumber(x));
  } else {
    wt = W.Other;
    rem += size;
    scan((x) => isConnector(x) || isAlphabet(x) || isNumber(x) || isPunct(x));
  }
  return { wt, word: rs.slice(start, start + offset), rest: rem };
}

function lowerWord(out: number[], wt: W, word: number[], connector: number): void {
  if (wt !== W.Upper && wt !== W.Connector) {
    out.push(...word);
    return;
  }
  for (const r of word) {
    if (isConnector(r)) out.push(connector);
    else if (isUpper(r)) out.push(toLowerRune(r));
    else out.push(r);
  }
}

function camelCaseToLowerCase(str: string, connector: number): string {
  const rs = toRunes(str);
  if (rs.length === 0) return '';
  const out: number[] = [];
  let { wt, word, rest } = nextWord(rs, 0);
  const advance = (): void => {
    ({ wt, word, rest } = nextWord(rs, rest));
  };
  while (rest < rs.length) {
    if (wt !== W.Connector) lowerWord(out, wt, word, connector);
    const prev = wt;
    const last = word;
    advance();
    switch (prev) {
      case W.Number:
        while (wt === W.Alphabet || wt === W.Number) {
          lowerWord(out, wt, word, connector);
          advance();
        }
        if (wt !== W.Invalid && wt !== W.Punct && wt !== W.Connector) out.push(connector);
        break;
      case W.Connector:
        lowerWord(out, prev, last, connector);
        break;
      case W.Punct:
        break;
      default: {
        if (wt !== W.Number) {
          if (wt !== W.Connector && wt !== W.Punct) out.push(connector);
          break;
        }
        if (rest >= rs.length) break;
        const num = word;
        advance();
        // A number followed by letters starts a new word ("HTTP2xx" -> "http_2xx"), otherwise it
        // belongs to the previous word ("Bld4Floor" -> "bld4_floor").
        const after = wt as W; // reassigned by advance()
        if (after !== W.Alphabet) {
          lowerWord(out, W.Number, num, connector);
          if (after !== W.Connector && after !== W.Punct) out.push(connector);
          break;
        }
        out.push(connector);
        lowerWord(out, W.Number, num, connector);
        while ((wt as W) === W.Alphabet || (wt as W) === W.Number) {
          lowerWord(out, wt, word, connector);
          advance();
        }
        if ((wt as W) !== W.Invalid && (wt as W) !== W.Connector && (wt as W) !== W.Punct) out.push(connector);
      }
    }
  }
  lowerWord(out, wt, word, connector);
  return String.fromCodePoint(...out);
}

/** xstrings.ToSnakeCase */
export function snakeCase(s: string): string {
  return camelCaseToLowerCase(s, 0x5f);
}

/** xstrings.ToKebabCase */
export function kebabCase(s: string): string {
  return camelCaseToLowerCase(s, 0x2d);
}
