/**
 * @module template/funcs/json-decode
 * Go's json.Unmarshal into `interface{}`: objects become null-prototype maps, numbers float64,
 * invalid surrogate escapes U+FFFD. Like Go it validates the whole input first (so a syntax error
 * leaves no partial result) and reports Go's scanner messages ("invalid character 'x' looking for
 * beginning of value", "unexpected end of JSON input"); a number out of float64 range is stored
 * as nil and reported after decoding, as Go does.
 */
import { newGoMap } from '../value.js';
import { setOwn } from '../../util/own.js';
import { toWellFormed, utf8Bytes } from './utf8.js';

class JsonSyntaxError extends Error {}

/** Go's scanner limit on nesting. */
const MAX_DEPTH = 10000;

export interface DecodeResult {
  /** The decoded value; undefined only when `error` is a syntax error. */
  readonly value: unknown;
  readonly error?: string;
}

/** Go's quoteChar: the offending *byte* (first UTF-8 byte), quoted like strconv.Quote. */
function quoteChar(ch: string): string {
  const b = utf8Bytes(ch)[0];
  if (b === 0x27) return "'\\''";
  if (b === 0x22) return "'\"'";
  if (b === 0x5c) return "'\\\\'";
  const named: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r' };
  if (b < 0x20 || b === 0x7f) {
    return named[b] !== undefined ? `'\\${named[b]}'` : `'\\x${b.toString(16).padStart(2, '0')}'`;
  }
  if (b >= 0x80 && (b <= 0x9f || b === 0xa0 || b === 0xad)) return `'\\u00${b.toString(16)}'`;
  return "'" + String.fromCharCode(b) + "'";
}

class Parser {
  private pos = 0;
  numberError: string | undefined;

  constructor(private readonly src: string) {}

  /**
   * Go's checkValid feeds a space at end of input, so inside a literal, number or escape the
   * error names ' '; elsewhere the input simply ended.
   */
  private fail(context: string, spaceAtEnd = false): never {
    if (this.pos >= this.src.length) {
      throw new JsonSyntaxError(spaceAtEnd ? `invalid character ' ' ${context}` : 'unexpected end of JSON input');
    }
    const c = String.fromCodePoint(this.src.codePointAt(this.pos) as number);
    throw new JsonSyntaxError(`invalid character ${quoteChar(c)} ${context}`);
  }

  private ws(): void {
    const s = this.src;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else break;
    }
  }

  parseDocument(): unknown {
    this.ws();
    const v = this.value();
    this.ws();
    if (this.pos < this.src.length) this.fail('after top-level value');
    return v;
  }

  /**
   * One value. Arrays and objects are parsed with an explicit stack rather than recursion, so
   * nesting up to Go's limit (10000) cannot overflow the JS stack.
   */
  private value(): unknown {
    type Frame = { container: unknown[] | Record<string, unknown>; key: string | null };
    const stack: Frame[] = [];
    let result: unknown;
    for (;;) {
      // Parse one scalar, or open a container.
      let v: unknown;
      let opened = false;
      const c = this.src[this.pos];
      if (c === '{' || c === '[') {
        if (stack.length + 1 > MAX_DEPTH) this.fail('exceeded max depth');
        this.pos++;
        this.ws();
        if (c === '[') {
          if (this.src[this.pos] === ']') {
            this.pos++;
            v = [];
          } else {
            stack.push({ container: [], key: null });
            opened = true;
          }
        } else if (this.src[this.pos] === '}') {
          this.pos++;
          v = newGoMap();
        } else {
          stack.push({ container: newGoMap(), key: this.objectKey() });
          opened = true;
        }
      } else {
        v = this.scalar();
      }
      if (opened) continue;
      // Store the value and close every container that ends here.
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) {
          result = v;
          return result;
        }
        if (Array.isArray(top.container)) top.container.push(v);
        else setOwn(top.container, top.key as string, v);
        this.ws();
        const d = this.src[this.pos];
        if (d === ',') {
          this.pos++;
          this.ws();
          if (!Array.isArray(top.container)) top.key = this.objectKey();
          break;
        }
        if (Array.isArray(top.container) ? d === ']' : d === '}') {
          this.pos++;
          stack.pop();
          v = top.container;
          continue;
        }
        this.fail(Array.isArray(top.container) ? 'after array element' : 'after object key:value pair');
      }
    }
  }

  /** `"key" :` then the start of the value. */
  private objectKey(): string {
    if (this.src[this.pos] !== '"') this.fail('looking for beginning of object key string');
    const key = this.string();
    this.ws();
    if (this.src[this.pos] !== ':') this.fail('after object key');
    this.pos++;
    this.ws();
    return key;
  }

  private scalar(): unknown {
    const c = this.src[this.pos];
    switch (c) {
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default:
        if (c === '-' || (c >= '0' && c <= '9')) return this.number();
        return this.fail('looking for beginning of value');
    }
  }

  private literal(word: string, v: unknown): unknown {
    for (let i = 0; i < word.length; i++) {
      if (this.src[this.pos] !== word[i]) this.fail(`in literal ${word} (expecting '${word[i]}')`, true);
      this.pos++;
    }
    return v;
  }

  private string(): string {
    const s = this.src;
    this.pos++;
    let out = '';
    let start = this.pos;
    for (;;) {
      if (this.pos >= s.length) this.fail('');
      const c = s.charCodeAt(this.pos);
      if (c === 0x22) {
        out += s.slice(start, this.pos);
        this.pos++;
        return toWellFormed(out);
      }
      if (c < 0x20) this.fail('in string literal');
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += s.slice(start, this.pos);
      this.pos++;
      const e = s[this.pos];
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e !== undefined && Object.hasOwn(simple, e)) {
        out += simple[e];
        this.pos++;
      } else if (e === 'u') {
        this.pos++;
        for (let i = 0; i < 4; i++) {
          if (!/[0-9a-fA-F]/.test(s[this.pos + i] ?? '')) {
            this.pos += i;
            this.fail('in \\u hexadecimal character escape', true);
          }
        }
        out += String.fromCharCode(parseInt(s.slice(this.pos, this.pos + 4), 16));
        this.pos += 4;
      } else {
        this.fail('in string escape code', true);
      }
      start = this.pos;
    }
  }

  private number(): number | null {
    const s = this.src;
    const start = this.pos;
    const digit = (): boolean => this.pos < s.length && s[this.pos] >= '0' && s[this.pos] <= '9';
    if (s[this.pos] === '-') {
      this.pos++;
      if (!digit()) this.fail('in numeric literal', true);
    }
    if (s[this.pos] === '0') this.pos++;
    else while (digit()) this.pos++;
    if (s[this.pos] === '.') {
      this.pos++;
      if (!digit()) this.fail('after decimal point in numeric literal', true);
      while (digit()) this.pos++;
    }
    if (s[this.pos] === 'e' || s[this.pos] === 'E') {
      this.pos++;
      if (s[this.pos] === '+' || s[this.pos] === '-') this.pos++;
      if (!digit()) this.fail('in exponent of numeric literal', true);
      while (digit()) this.pos++;
    }
    const text = s.slice(start, this.pos);
    const v = Number(text);
    if (!Number.isFinite(v)) {
      this.numberError ??= `json: cannot unmarshal number ${text} into Go value of type float64`;
      return null;
    }
    return v;
  }
}

/** json.Unmarshal(text, &v) with v an interface{}. */
export function goJsonUnmarshal(text: string): DecodeResult {
  const p = new Parser(text);
  try {
    const value = p.parseDocument();
    return p.numberError === undefined ? { value } : { value, error: p.numberError };
  } catch (e) {
    if (e instanceof JsonSyntaxError) return { value: undefined, error: e.message };
    throw e;
  }
}
