/**
 * @module manifest-io/json-stream
 * kubectl reads a file whose first non-blank character is `{` as a stream of JSON values
 * (`{...}{...}` or one per line), not as YAML. This scanner finds where each value ends (so each
 * document keeps its exact text), and while it is there reports what JSON.parse cannot: the
 * offset of a syntax error, the nesting depth, and integers too large for a JS number.
 */

export interface JsonScan {
  /** Offset just past the value. */
  readonly end: number;
  /** Deepest nesting of objects/arrays. */
  readonly depth: number;
  /** Integer literals that a JS number cannot hold exactly. */
  readonly inexactIntegers: string[];
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const ESCAPABLE = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export function skipJsonWhitespace(s: string, i: number): number {
  while (i < s.length && isWs(s.charCodeAt(i))) i++;
  return i;
}

/** Scan one JSON value starting at `start` (no leading whitespace). Throws JsonSyntaxError. */
export function scanJsonValue(s: string, start: number): JsonScan {
  const stack: number[] = []; // 1 object, 2 array
  const inexact: string[] = [];
  let depth = 0;
  let i = start;
  // 'v' value, 'k' key, 'K' key or '}', 'V' value or ']', 'c' colon, 'a' after a value
  let state = 'v';
  for (;;) {
    i = skipJsonWhitespace(s, i);
    if (i >= s.length) throw new JsonSyntaxError('unexpected end of JSON input', i);
    const ch = s[i];
    if (state === 'a') {
      const top = stack[stack.length - 1];
      if (top === 1 && ch === ',') state = 'k';
      else if (top === 2 && ch === ',') state = 'v';
      else if ((top === 1 && ch === '}') || (top === 2 && ch === ']')) {
        stack.pop();
        if (stack.length === 0) return { end: i + 1, depth, inexactIntegers: inexact };
      } else throw new JsonSyntaxError(`expected ',' or '${top === 1 ? '}' : ']'}'`, i);
      i++;
      continue;
    }
    if (state === 'c') {
      if (ch !== ':') throw new JsonSyntaxError("expected ':' after a property name", i);
      state = 'v';
      i++;
      continue;
    }
    if (state === 'K' && ch === '}') state = 'a';
    else if (state === 'V' && ch === ']') state = 'a';
    if (state === 'a') {
      stack.pop();
      if (stack.length === 0) return { end: i + 1, depth, inexactIntegers: inexact };
      i++;
      continue;
    }
    if (state === 'k' || state === 'K') {
      if (ch !== '"') throw new JsonSyntaxError('expected a double-quoted property name', i);
      i = scanString(s, i);
      state = 'c';
      continue;
    }
    // a value
    if (ch === '{' || ch === '[') {
      stack.push(ch === '{' ? 1 : 2);
      if (stack.length > depth) depth = stack.length;
      state = ch === '{' ? 'K' : 'V';
      i++;
      continue;
    }
    if (ch === '"') i = scanString(s, i);
    else if (s.startsWith('true', i)) i += 4;
    else if (s.startsWith('false', i)) i += 5;
    else if (s.startsWith('null', i)) i += 4;
    else {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(s);
      if (m === null) throw new JsonSyntaxError(`unexpected character ${JSON.stringify(ch)}`, i);
      if (m[1] === undefined && m[2] === undefined && m[0].length >= 16 && !Number.isSafeInteger(Number(m[0]))) {
        inexact.push(m[0]);
      }
      i += m[0].length;
    }
    if (stack.length === 0) return { end: i, depth, inexactIntegers: inexact };
    state = 'a';
  }
}

function scanString(s: string, i: number): number {
  const start = i;
  i++;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      const e = s[i + 1];
      if (e === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) throw new JsonSyntaxError('invalid \\u escape in a string', i);
        i += 6;
        continue;
      }
      if (e === undefined || !ESCAPABLE.has(e)) throw new JsonSyntaxError('invalid escape in a string', i);
      i += 2;
      continue;
    }
    if (c < 0x20) throw new JsonSyntaxError('control character in a string (escape it)', i);
    i++;
  }
  throw new JsonSyntaxError('unterminated string', start);
}
