/**
 * @module template/funcs/go-regexp
 * regexp.Compile of the Go that builds Istio's current proxy (1.26), on re2js. re2js is a port
 * of RE2 that follows Go's parser, error texts included, so it is the syntax check; this module
 * adds only where that Go and re2js differ, found by comparing both on a corpus and on random
 * patterns (go-regexp.test.ts, testdata/go-syntax):
 *  - duplicate group names (`(?P<n>a)(?P<n>b)`) are accepted by Go: the repeats are renamed for
 *    re2js and their names given back, so `SubexpNames` and `${n}` work as in Go;
 *  - `\p{name}` is looked up as that Go looks it up (go-unicode-classes): a name Go takes and
 *    re2js does not (`\p{greek}`, `\p{Letter}`) is written as re2js's, one Go refuses
 *    (`\p{Old_Italic}`) as one re2js refuses too, so the error is reported in Go's parse order;
 *  - the trailing backslash and nesting depth errors quote what Go quotes.
 * Error texts are re2js's (already "error parsing regexp: ..."), with the rewritten parts of the
 * pattern shown as the user wrote them.
 */
import { RE2JS } from 're2js';
import { GO_UNICODE_CLASSES } from './go-unicode-classes.js';

export class GoRegexpSyntaxError extends Error {}

export interface CompiledGoRegexp {
  readonly re: RE2JS;
  /** Go's SubexpNames: index 0 is the whole match, always "". */
  readonly names: readonly string[];
}

/** A piece of the pattern as written (`from`) and as given to re2js (`to`). */
interface Piece {
  from: string;
  to: string;
}

const NAME = /^[A-Za-z0-9_]+$/;
/** A class name no table has (numbered, so an error quoting it says which): re2js refuses it as Go refuses the name it stands for. */
const unknownClass = (n: number): string => `-${n}`;

/** regexp/syntax canonicalName: ASCII only, first letter upper, the rest lower, no `_`, `-`, space. */
function canonicalName(name: string): string {
  let out = '';
  for (const ch of name) {
    if (ch === '_' || ch === '-' || ch === ' ') continue;
    out += out === '' ? (ch >= 'a' && ch <= 'z' ? ch.toUpperCase() : ch) : ch >= 'A' && ch <= 'Z' ? ch.toLowerCase() : ch;
  }
  return out;
}

/** `\p{name}` / `\pX` at `i` as re2js should read it; undefined to leave it to re2js. */
function unicodeClass(expr: string, i: number, n: number): Piece | undefined {
  const p = expr[i + 1] as 'p' | 'P';
  if (expr[i + 2] === '{') {
    const end = expr.indexOf('}', i + 3);
    if (end < 0) return undefined;
    let name = expr.slice(i + 3, end);
    const negated = name.startsWith('^');
    if (negated) name = name.slice(1);
    const known = GO_UNICODE_CLASSES.get(canonicalName(name));
    return { from: expr.slice(i, end + 1), to: `\\${p}{${known === undefined ? unknownClass(n) : `${negated ? '^' : ''}${known}`}}` };
  }
  const letter = expr[i + 2];
  if (letter === undefined || !/^[a-z]$/.test(letter)) return undefined;
  const known = GO_UNICODE_CLASSES.get(letter.toUpperCase());
  return known === undefined ? undefined : { from: expr.slice(i, i + 3), to: `\\${p}{${known}}` };
}

/**
 * Walk the pattern as Go's parser does (escapes, `\Q...\E`, classes with `[:alpha:]`) and
 * rewrite the group names and Unicode class names that re2js reads differently.
 */
function rewrite(expr: string): { pieces: Piece[]; renamed: Map<string, string> } {
  const pieces: Piece[] = [];
  const renamed = new Map<string, string>();
  const seen = new Set<string>();
  let done = 0;
  const replace = (at: number, piece: Piece) => {
    if (at > done) pieces.push({ from: expr.slice(done, at), to: expr.slice(done, at) });
    pieces.push(piece);
    done = at + piece.from.length;
  };
  let inClass = false;
  let i = 0;
  while (i < expr.length) {
    const c = expr[i];
    if (c === '\\') {
      const next = expr[i + 1];
      if (next === undefined) break;
      if (next === 'Q' && !inClass) {
        const end = expr.indexOf('\\E', i + 2);
        i = end < 0 ? expr.length : end + 2;
        continue;
      }
      if (next === 'p' || next === 'P') {
        // `\p{` with no `}`: Go stops here, so nothing after it may be rewritten (a `}` added later would close it).
        if (expr[i + 2] === '{' && !expr.includes('}', i + 3)) break;
        const piece = unicodeClass(expr, i, pieces.length);
        if (piece !== undefined) {
          replace(i, piece);
          i += piece.from.length;
          continue;
        }
      }
      i += 1 + (expr.codePointAt(i + 1)! > 0xffff ? 2 : 1);
      continue;
    }
    if (inClass) {
      const posix = c === '[' && expr[i + 1] === ':' ? expr.indexOf(':]', i + 2) : -1;
      if (posix >= 0) i = posix + 2;
      else {
        if (c === ']') inClass = false;
        i++;
      }
      continue;
    }
    if (c === '[') {
      inClass = true;
      i++;
      if (expr[i] === '^') i++;
      if (expr[i] === ']') i++; // a leading ] is a literal
      continue;
    }
    const open = expr.startsWith('(?P<', i) ? 4 : expr.startsWith('(?<', i) ? 3 : 0;
    const close = open > 0 ? expr.indexOf('>', i + open) : -1;
    if (close >= 0) {
      const name = expr.slice(i + open, close);
      if (NAME.test(name) && seen.has(name)) {
        let k = renamed.size;
        while (expr.includes(`${name}__dup${k}`)) k++;
        const alias = `${name}__dup${k}`;
        renamed.set(alias, name);
        replace(i, { from: expr.slice(i, close + 1), to: `${expr.slice(i, i + open)}${alias}>` });
      }
      seen.add(name);
      i = close + 1;
      continue;
    }
    i++;
  }
  if (done < expr.length) pieces.push({ from: expr.slice(done), to: expr.slice(done) });
  return { pieces, renamed };
}

/** The part of the rewritten pattern an error quotes, as the user wrote it. */
function original(pieces: readonly Piece[], quoted: string): string {
  const rewritten = pieces.map((p) => p.to).join('');
  const start = rewritten.endsWith(quoted) ? rewritten.length - quoted.length : rewritten.indexOf(quoted);
  if (start < 0) return quoted;
  const end = start + quoted.length;
  let out = '';
  let at = 0;
  for (const p of pieces) {
    const from = at;
    at += p.to.length;
    if (at <= start || from >= end) continue;
    // The covered part, where it reads the same as written (unchanged text, the `\p` of a class);
    // otherwise the piece as written, whole.
    const [a, b] = [Math.max(0, start - from), end - from];
    out += p.to.slice(a, b) === p.from.slice(a, b) ? p.from.slice(a, b) : p.from;
  }
  return out;
}

/** regexp.Compile: the matcher and Go's group names, or GoRegexpSyntaxError with Go's message. */
export function compileGoRegexp(expr: string): CompiledGoRegexp {
  const { pieces, renamed } = rewrite(expr);
  let re: RE2JS;
  try {
    re = RE2JS.compile(pieces.map((p) => p.to).join(''));
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const m = /^error parsing regexp: ([^:]+): `([\s\S]*)`$/.exec(message);
    if (m !== null) {
      // `(?P<` or `(?<` ending the pattern: too short for Go to read as a group name, so its flags parser refuses the `P` or `<`.
      if (m[1] === 'invalid named capture' && (m[2] === '(?P<' || m[2] === '(?<'))
        throw new GoRegexpSyntaxError(`error parsing regexp: invalid or unsupported Perl syntax: \`${m[2] === '(?P<' ? '(?P' : '(?<'}\``);
      throw new GoRegexpSyntaxError(`error parsing regexp: ${m[1]}: \`${original(pieces, m[2]!)}\``);
    }
    // Go quotes an empty rest of the pattern; re2js says nothing.
    if (message === 'error parsing regexp: trailing backslash at end of expression') throw new GoRegexpSyntaxError(`${message}: \`\``);
    // Go quotes the whole pattern; re2js nothing.
    if (message === 'error parsing regexp: expression nests too deeply') throw new GoRegexpSyntaxError(`${message}: \`${expr}\``);
    throw new GoRegexpSyntaxError(message.startsWith('error parsing regexp: ') ? message : `error parsing regexp: ${message}`);
  }
  const names: string[] = new Array<string>(re.groupCount() + 1).fill('');
  for (const [name, index] of Object.entries(re.namedGroups() as Record<string, number>)) names[index] = renamed.get(name) ?? name;
  return { re, names };
}
