/**
 * @module template/funcs/regex
 * Sprig's regex functions with Go's regexp semantics. A pattern is compiled by `re2js`, a port
 * of RE2 like Go's regexp, with Go's syntax and error texts where they differ (go-regexp): matching is linear in the input, so a template running
 * `regexMatch "^(a+)+$"` on a pod field the user controls cannot backtrack for seconds (a JS
 * RegExp would, and the webhook has one thread). On top: Go's FindAll/ReplaceAll loops (an empty match right after a previous
 * match is skipped; the search always advances by a whole character), `Expand` templates
 * (`$1`, `${1}`, `${name}`; `$1x` names group "1x"), Split, and the panic text of
 * regexp.MustCompile for the non-`must` variants. `regexMatch` ignores a bad pattern (false),
 * as Sprig does.
 */
import { RE2JS } from 're2js';
import { canBackquote, quote } from '../quote.js';
import { goFunc, GoFuncError, type FuncMap } from '../value.js';
import { isDigit, isLetter } from './unicode.js';
import { compileGoRegexp, GoRegexpSyntaxError } from './go-regexp.js';
import { STRING_SLICE, stringSlice } from './string-lists.js';
import { nilSlice } from './nil.js';

export interface GoRegexp {
  readonly re: RE2JS;
  readonly names: readonly string[];
  readonly expr: string;
}

const cache = new Map<string, GoRegexp | GoRegexpSyntaxError>();
const CACHE_LIMIT = 1000;

/** regexp.Compile: a cached GoRegexp, or throws GoRegexpSyntaxError with Go's message. */
export function compileGo(expr: string): GoRegexp {
  let hit = cache.get(expr);
  if (hit === undefined) {
    try {
      hit = { ...compileGoRegexp(expr), expr };
    } catch (e) {
      if (!(e instanceof GoRegexpSyntaxError)) throw e;
      hit = e;
    }
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(expr, hit);
  }
  if (hit instanceof GoRegexpSyntaxError) throw hit;
  return hit;
}

/** regexp's quote(): how MustCompile shows the pattern. */
function goQuotePattern(s: string): string {
  return canBackquote(s) ? '`' + s + '`' : quote(s);
}

/** regexp.MustCompile: Go panics with this text, which becomes the call's error. */
function mustCompile(expr: string): GoRegexp {
  try {
    return compileGo(expr);
  } catch (e) {
    if (e instanceof GoRegexpSyntaxError) throw new GoFuncError(`regexp: Compile(${goQuotePattern(expr)}): ${e.message}`);
    throw e;
  }
}

/** regexp.Compile for the must* variants: the plain Go error. */
function compileOrFail(expr: string): GoRegexp {
  try {
    return compileGo(expr);
  } catch (e) {
    if (e instanceof GoRegexpSyntaxError) throw new GoFuncError(e.message);
    throw e;
  }
}

/**
 * The match starting the search at `pos` (with the whole string as context), shaped like
 * RegExp.exec's answer: the groups' texts (undefined when a group did not take part) and `index`.
 */
function execAt(g: GoRegexp, s: string, pos: number): RegExpExecArray | null {
  const m = g.re.matcher(s);
  if (!m.find(pos)) return null;
  const groups: (string | undefined)[] = [];
  for (let i = 0, n = m.groupCount(); i <= n; i++) {
    const start = m.start(i);
    groups.push(start < 0 ? undefined : s.slice(start, m.end(i)));
  }
  return Object.assign(groups as string[], { index: m.start(0), input: s, groups: undefined }) as RegExpExecArray;
}

function charWidth(s: string, pos: number): number {
  if (pos >= s.length) return 0;
  const c = s.charCodeAt(pos);
  return c >= 0xd800 && c <= 0xdbff && pos + 1 < s.length && (s.charCodeAt(pos + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
}

/** Go's allMatches: up to n matches (n < 0: all). */
export function findAll(g: GoRegexp, s: string, n: number): RegExpExecArray[] {
  if (n < 0) n = s.length + 1;
  const out: RegExpExecArray[] = [];
  let pos = 0;
  let prevMatchEnd = -1;
  while (out.length < n && pos <= s.length) {
    const m = execAt(g, s, pos);
    if (m === null) break;
    const start = m.index;
    const end = start + m[0].length;
    let accept = true;
    if (end === pos) {
      if (start === prevMatchEnd) accept = false;
      const w = charWidth(s, pos);
      pos += w > 0 ? w : 1;
    } else {
      pos = end;
    }
    prevMatchEnd = end;
    if (accept) out.push(m);
  }
  return out;
}

/** Go's replaceAll loop; `repl` builds the replacement for one match. */
function replaceAll(g: GoRegexp, src: string, repl: (m: RegExpExecArray) => string): string {
  let out = '';
  let lastMatchEnd = 0;
  let searchPos = 0;
  while (searchPos <= src.length) {
    const m = execAt(g, src, searchPos);
    if (m === null) break;
    const start = m.index;
    const end = start + m[0].length;
    out += src.slice(lastMatchEnd, start);
    if (end > lastMatchEnd || start === 0) out += repl(m);
    lastMatchEnd = end;
    const w = charWidth(src, searchPos);
    if (searchPos + w > end) searchPos += w;
    else if (searchPos + 1 > end) searchPos++;
    else searchPos = end;
  }
  return out + src.slice(lastMatchEnd);
}

/** regexp's extract: a `$name` / `${name}` reference at the start of `str`. */
function extract(str: string): { name: string; num: number; rest: string } | null {
  if (str === '') return null;
  let brace = false;
  if (str[0] === '{') {
    brace = true;
    str = str.slice(1);
  }
  let i = 0;
  while (i < str.length) {
    const cp = str.codePointAt(i) as number;
    if (!isLetter(cp) && !isDigit(cp) && cp !== 0x5f) break;
    i += cp > 0xffff ? 2 : 1;
  }
  if (i === 0) return null;
  const name = str.slice(0, i);
  if (brace) {
    if (i >= str.length || str[i] !== '}') return null;
    i++;
  }
  let num = -1;
  if (/^[0-9]+$/.test(name) && !(name[0] === '0' && name.length > 1) && name.length <= 8) num = Number(name);
  return { name, num, rest: str.slice(i) };
}

/** Regexp.Expand of a template for one match. */
function expand(g: GoRegexp, template: string, m: RegExpExecArray): string {
  let out = '';
  for (;;) {
    const k = template.indexOf('$');
    if (k < 0) break;
    out += template.slice(0, k);
    template = template.slice(k + 1);
    if (template.startsWith('$')) {
      out += '$';
      template = template.slice(1);
      continue;
    }
    const ref = extract(template);
    if (ref === null) {
      out += '$';
      continue;
    }
    template = ref.rest;
    if (ref.num >= 0) {
      if (ref.num < m.length && m[ref.num] !== undefined) out += m[ref.num];
    } else {
      // The first group of that name that took part (names may repeat, as in Go).
      const i = g.names.findIndex((n, k) => k > 0 && n === ref.name && m[k] !== undefined);
      if (i > 0) out += m[i];
    }
  }
  return out + template;
}

/** Regexp.Split */
function split(g: GoRegexp, s: string, n: number): string[] {
  if (n === 0) return [];
  if (g.expr.length > 0 && s.length === 0) return [''];
  const matches = findAll(g, s, n);
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of matches) {
    if (n > 0 && out.length === n - 1) break;
    end = m.index;
    const mEnd = m.index + m[0].length;
    if (mEnd !== 0) out.push(s.slice(beg, end));
    beg = mEnd;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

function count(n: bigint): number {
  return n < 0n ? -1 : n > 2n ** 31n ? 2 ** 31 : Number(n);
}

type Compile = (expr: string) => GoRegexp;

const findAllFn =
  (compile: Compile) =>
  (regex: string, s: string, n: bigint): string[] => {
    const found = findAll(compile(regex), s, count(n));
    // Go's FindAllString returns nil when nothing matched.
    return found.length === 0 ? (nilSlice(STRING_SLICE) as string[]) : stringSlice(found.map((m) => m[0]));
  };

const findFn =
  (compile: Compile) =>
  (regex: string, s: string): string =>
    findAll(compile(regex), s, 1)[0]?.[0] ?? '';

const replaceFn =
  (compile: Compile) =>
  (regex: string, s: string, repl: string): string => {
    const g = compile(regex);
    return replaceAll(g, s, (m) => expand(g, repl, m));
  };

const replaceLiteralFn =
  (compile: Compile) =>
  (regex: string, s: string, repl: string): string =>
    replaceAll(compile(regex), s, () => repl);

const splitFn =
  (compile: Compile) =>
  (regex: string, s: string, n: bigint): string[] => {
    const g = compile(regex);
    return n === 0n ? (nilSlice(STRING_SLICE) as string[]) : stringSlice(split(g, s, count(n)));
  };

function regexMatch(regex: string, s: string): boolean {
  try {
    return findAll(compileGo(regex), s, 1).length > 0;
  } catch (e) {
    if (e instanceof GoRegexpSyntaxError) return false;
    throw e;
  }
}

/** regexp.QuoteMeta */
function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

const S = 'string';
const I = 'int';

export const regexFuncs: FuncMap = {
  regexMatch: goFunc([S, S], regexMatch),
  mustRegexMatch: goFunc([S, S], (regex: string, s: string) => findAll(compileOrFail(regex), s, 1).length > 0),
  regexFind: goFunc([S, S], findFn(mustCompile)),
  mustRegexFind: goFunc([S, S], findFn(compileOrFail)),
  regexFindAll: goFunc([S, S, I], findAllFn(mustCompile)),
  mustRegexFindAll: goFunc([S, S, I], findAllFn(compileOrFail)),
  regexReplaceAll: goFunc([S, S, S], replaceFn(mustCompile)),
  mustRegexReplaceAll: goFunc([S, S, S], replaceFn(compileOrFail)),
  regexReplaceAllLiteral: goFunc([S, S, S], replaceLiteralFn(mustCompile)),
  mustRegexReplaceAllLiteral: goFunc([S, S, S], replaceLiteralFn(compileOrFail)),
  regexSplit: goFunc([S, S, I], splitFn(mustCompile)),
  mustRegexSplit: goFunc([S, S, I], splitFn(compileOrFail)),
  regexQuoteMeta: goFunc([S], quoteMeta),
};
