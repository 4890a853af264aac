/**
 * @module template/funcs/re2
 * Translates Go (RE2) regular expressions to equivalent JS RegExps, and rejects what Go's
 * regexp/syntax rejects with Go's error text ("error parsing regexp: invalid or unsupported Perl
 * syntax: `(?=`"). The parse follows Go's parser step by step so that the *first* error found is
 * the one Go reports. JS semantics that differ are written out explicitly: `.` excludes only
 * `\n`, `^`/`$` under (?m) see only `\n`, `\s` is `[\t\n\f\r ]`, named groups become numbered
 * groups (RE2 allows names JS does not), and partial case-insensitivity (`a(?i:b)`) is expanded
 * into character classes because JS has no inline flags (a pattern that is case-insensitive
 * throughout uses the JS `i` flag instead, unless it has `\b`, which that flag changes).
 */
import {
  E, PERL, POSIX_BASE, Re2SyntaxError, classChar, foldOrbit, foldRanges, jsChar, negateRanges, parseEscape, parseRepeat,
  parseUnicodeClass, rangesToClass, type Range,
} from './re2-syntax.js';

export { Re2SyntaxError, foldOrbit };

export interface TranslatedRegexp {
  readonly source: string;
  readonly flags: string;
  /** Capture group names by index (index 0 is the whole match, always ""). */
  readonly names: readonly string[];
}

interface Flags {
  fold: boolean;
  dotNL: boolean;
  oneLine: boolean;
  nonGreedy: boolean;
}

/** Parse-tree summary of counted repetitions, for Go's repeatIsValid (nesting product <= 1000). */
interface RepNode {
  m: number | null;
  kids: RepNode[];
}

interface Atom {
  src: string;
  /** Can take a quantifier without a wrapping group. */
  simple: boolean;
  rep: RepNode | null;
}

interface Frame {
  alts: Atom[][];
  items: Atom[];
  saved: Flags;
  capture: number | null;
}

const MAX_REPEAT = 1000;
const MAX_DEPTH = 1000;

function repeatIsValid(node: RepNode | null, n: number): boolean {
  if (node === null) return true;
  if (node.m !== null) {
    let m = node.m;
    if (m !== 0) {
      if (m > n) return false;
      if (m > 0) n = Math.floor(n / m);
    }
  }
  return node.kids.every((k) => repeatIsValid(k, n));
}

class Translator {
  private t: string;
  private flags: Flags;
  private readonly frames: Frame[] = [];
  private numCap = 0;
  readonly names: string[] = [''];
  sawFold = false;
  sawSensitive = false;
  sawBoundary = false;

  constructor(
    private readonly whole: string,
    /** Use the JS `i` flag instead of expanding case-insensitive atoms. */
    private readonly globalFold: boolean,
  ) {
    this.t = whole;
    this.flags = { fold: false, dotNL: false, oneLine: true, nonGreedy: false };
    this.frames.push({ alts: [], items: [], saved: this.flags, capture: null });
  }

  private get frame(): Frame {
    return this.frames[this.frames.length - 1];
  }

  private push(src: string, simple: boolean, rep: RepNode | null = null): void {
    this.frame.items.push({ src, simple, rep });
  }

  private noteCase(): void {
    if (this.flags.fold) this.sawFold = true;
    else this.sawSensitive = true;
  }

  private literal(cp: number): void {
    this.noteCase();
    if (this.flags.fold && !this.globalFold) {
      const orbit = foldOrbit(cp);
      if (orbit.length > 1) {
        this.push('[' + orbit.map((c) => jsChar(c, true)).join('') + ']', true);
        return;
      }
    }
    this.push(jsChar(cp, false), true);
  }

  private classAtom(ranges: Range[], negated: boolean, extra = ''): void {
    this.noteCase();
    let rs = ranges;
    if (this.flags.fold && !this.globalFold) rs = foldRanges(rs);
    this.push('[' + (negated ? '^' : '') + rangesToClass(rs) + extra + ']', true);
  }

  translate(): TranslatedRegexp {
    let lastRepeat = '';
    while (this.t !== '') {
      let repeat = '';
      const c = this.t[0];
      if (c === '(') {
        if (this.t.length >= 2 && this.t[1] === '?') this.perlFlags();
        else this.openGroup(++this.numCap, '', this.t.slice(1));
      } else if (c === '|') {
        this.frame.alts.push(this.frame.items);
        this.frame.items = [];
        this.t = this.t.slice(1);
      } else if (c === ')') {
        this.closeGroup();
        this.t = this.t.slice(1);
      } else if (c === '^') {
        this.push(this.flags.oneLine ? '^' : '(?<![^\\n])', false);
        this.t = this.t.slice(1);
      } else if (c === '$') {
        this.push(this.flags.oneLine ? '$' : '(?![^\\n])', false);
        this.t = this.t.slice(1);
      } else if (c === '.') {
        this.push(this.flags.dotNL ? '[^]' : '[^\\n]', true);
        this.t = this.t.slice(1);
      } else if (c === '[') {
        this.parseClass();
      } else if (c === '*' || c === '+' || c === '?') {
        const before = this.t;
        repeat = before;
        this.t = this.repeat(c, 0, -1, before, this.t.slice(1), lastRepeat);
      } else if (c === '{') {
        const before = this.t;
        const r = parseRepeat(this.t);
        if (r === null) {
          this.literal(0x7b);
          this.t = this.t.slice(1);
        } else {
          const { min, max, rest } = r;
          if (min < 0 || min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)) {
            throw new Re2SyntaxError(E.repeatSize, before.slice(0, before.length - rest.length));
          }
          repeat = before;
          this.t = this.repeatCounted(min, max, before, rest, lastRepeat);
        }
      } else if (c === '\\') {
        this.backslash();
      } else {
        const cp = this.t.codePointAt(0) as number;
        this.literal(cp);
        this.t = this.t.slice(cp > 0xffff ? 2 : 1);
      }
      lastRepeat = repeat;
    }
    if (this.frames.length !== 1) throw new Re2SyntaxError(E.paren, this.whole);
    const top = this.frame;
    const source = [...top.alts, top.items].map((alt) => alt.map((a) => a.src).join('')).join('|');
    return { source, flags: this.globalFold ? 'iu' : 'u', names: this.names };
  }

  private openGroup(capture: number | null, name: string, rest: string): void {
    if (this.frames.length > MAX_DEPTH) throw new Re2SyntaxError(E.depth, this.whole);
    this.frames.push({ alts: [], items: [], saved: { ...this.flags }, capture });
    if (capture !== null) this.names[capture] = name;
    this.t = rest;
  }

  private closeGroup(): void {
    if (this.frames.length < 2) throw new Re2SyntaxError(E.unexpectedParen, this.whole);
    const f = this.frames.pop() as Frame;
    this.flags = f.saved;
    const alts = [...f.alts, f.items];
    const body = alts.map((alt) => alt.map((a) => a.src).join('')).join('|');
    const reps = alts.flat().map((a) => a.rep).filter((r): r is RepNode => r !== null);
    const rep = reps.length > 0 ? { m: null, kids: reps } : null;
    this.push(f.capture === null ? `(?:${body})` : `(${body})`, true, rep);
  }

  private perlFlags(): void {
    const s = this.t;
    if (s.length > 4 && s[2] === 'P' && s[3] === '<') {
      const end = s.indexOf('>');
      if (end < 0) throw new Re2SyntaxError(E.namedCapture, s);
      const name = s.slice(4, end);
      if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Re2SyntaxError(E.namedCapture, s.slice(0, end + 1));
      this.openGroup(++this.numCap, name, s.slice(end + 1));
      return;
    }
    let t = s.slice(2);
    let flags = { ...this.flags };
    let sign = 1;
    let sawFlag = false;
    while (t !== '') {
      const ch = String.fromCodePoint(t.codePointAt(0) as number);
      t = t.slice(ch.length);
      const on = sign > 0;
      if (ch === 'i') flags.fold = on;
      else if (ch === 'm') flags.oneLine = !on;
      else if (ch === 's') flags.dotNL = on;
      else if (ch === 'U') flags.nonGreedy = on;
      else if (ch === '-') {
        if (sign < 0) break;
        sign = -1;
        sawFlag = false;
        continue;
      } else if (ch === ':' || ch === ')') {
        if (sign < 0 && !sawFlag) break;
        if (ch === ':') {
          // A non-capturing group: the new flags hold inside it only.
          this.openGroup(null, '', t);
          this.flags = flags;
        } else {
          this.flags = flags;
          this.t = t;
        }
        return;
      } else break;
      sawFlag = true;
    }
    throw new Re2SyntaxError(E.perlOp, s.slice(0, s.length - t.length));
  }

  private checkRepeatable(before: string, after: string, lastRepeat: string): Atom {
    if (lastRepeat !== '') {
      throw new Re2SyntaxError(E.repeatOp, lastRepeat.slice(0, lastRepeat.length - after.length));
    }
    const items = this.frame.items;
    if (items.length === 0) throw new Re2SyntaxError(E.repeatArg, before.slice(0, before.length - after.length));
    return items[items.length - 1];
  }

  private repeat(op: string, _min: number, _max: number, before: string, after: string, lastRepeat: string): string {
    let greedy = !this.flags.nonGreedy;
    if (after.startsWith('?')) {
      after = after.slice(1);
      greedy = !greedy;
    }
    const atom = this.checkRepeatable(before, after, lastRepeat);
    this.applyQuantifier(atom, op, greedy, null);
    return after;
  }

  private repeatCounted(min: number, max: number, before: string, after: string, lastRepeat: string): string {
    let greedy = !this.flags.nonGreedy;
    if (after.startsWith('?')) {
      after = after.slice(1);
      greedy = !greedy;
    }
    const atom = this.checkRepeatable(before, after, lastRepeat);
    const q = max === min ? `{${min}}` : max < 0 ? `{${min},}` : `{${min},${max}}`;
    const rep: RepNode = { m: max === 0 ? 0 : max < 0 ? min : max, kids: atom.rep ? [atom.rep] : [] };
    if ((min >= 2 || max >= 2) && !repeatIsValid(rep, MAX_REPEAT)) {
      throw new Re2SyntaxError(E.repeatSize, before.slice(0, before.length - after.length));
    }
    this.applyQuantifier(atom, q, greedy, rep);
    return after;
  }

  private applyQuantifier(atom: Atom, q: string, greedy: boolean, rep: RepNode | null): void {
    const items = this.frame.items;
    const base = atom.simple ? atom.src : `(?:${atom.src})`;
    items[items.length - 1] = {
      src: base + q + (greedy ? '' : '?'),
      simple: false,
      rep: rep ?? (atom.rep ? { m: null, kids: [atom.rep] } : null),
    };
  }

  private backslash(): void {
    const t = this.t;
    if (t.length >= 2) {
      switch (t[1]) {
        case 'A':
          this.push('^', false);
          this.t = t.slice(2);
          return;
        case 'z':
          this.push('$', false);
          this.t = t.slice(2);
          return;
        case 'b':
        case 'B':
          // JS's \b is ASCII-only like RE2's, except under the `i` flag (where U+017F and
          // U+212A count as word characters), so a pattern with \b never uses that flag.
          this.sawBoundary = true;
          this.push('\\' + t[1], false);
          this.t = t.slice(2);
          return;
        case 'C':
          throw new Re2SyntaxError(E.escape, t.slice(0, 2));
        case 'Q': {
          const end = t.indexOf('\\E', 2);
          const lit = end < 0 ? t.slice(2) : t.slice(2, end);
          this.t = end < 0 ? '' : t.slice(end + 2);
          for (const ch of lit) this.literal(ch.codePointAt(0) as number);
          return;
        }
        default:
      }
    }
    if (t.length >= 2 && (t[1] === 'p' || t[1] === 'P')) {
      const u = parseUnicodeClass(t);
      this.noteCase();
      this.push('[' + u.src + ']', true);
      this.t = u.rest;
      return;
    }
    const perl = PERL[t.slice(0, 2)];
    if (perl !== undefined) {
      this.classAtom(perl[1], perl[0] < 0);
      this.t = t.slice(2);
      return;
    }
    const { cp, rest } = parseEscape(t);
    this.literal(cp);
    this.t = rest;
  }

  private parseClass(): void {
    const s = this.t;
    let t = s.slice(1);
    let negated = false;
    if (t.startsWith('^')) {
      negated = true;
      t = t.slice(1);
    }
    const ranges: Range[] = [];
    let extra = '';
    let first = true;
    while (t === '' || t[0] !== ']' || first) {
      first = false;
      if (t.length > 2 && t[0] === '[' && t[1] === ':') {
        const i = t.indexOf(':]', 2);
        if (i >= 0) {
          const name = t.slice(0, i + 2);
          const neg = name[2] === '^';
          const base = POSIX_BASE[name.slice(neg ? 3 : 2, -2)];
          if (base === undefined) throw new Re2SyntaxError(E.charRange, name);
          ranges.push(...(neg ? negateRanges(base) : base));
          t = t.slice(i + 2);
          continue;
        }
      }
      if (t.length >= 2 && t[0] === '\\' && (t[1] === 'p' || t[1] === 'P')) {
        const u = parseUnicodeClass(t);
        extra += u.src;
        t = u.rest;
        continue;
      }
      const perl = PERL[t.slice(0, 2)];
      if (perl !== undefined) {
        ranges.push(...(perl[0] < 0 ? negateRanges(perl[1]) : perl[1]));
        t = t.slice(2);
        continue;
      }
      const rng = t;
      let lo: number;
      ({ cp: lo, rest: t } = classChar(t, s));
      let hi = lo;
      if (t.length >= 2 && t[0] === '-' && t[1] !== ']') {
        ({ cp: hi, rest: t } = classChar(t.slice(1), s));
        if (hi < lo) throw new Re2SyntaxError(E.charRange, rng.slice(0, rng.length - t.length));
      }
      ranges.push([lo, hi]);
    }
    this.t = t.slice(1);
    if (ranges.length === 0 && extra === '') {
      // Only possible for an empty negation like [^\x00-\x{10FFFF}]; keep JS happy.
      this.push(negated ? '[^]' : '[]', true);
      return;
    }
    this.classAtom(ranges, negated, extra);
  }
}

/** Translate a Go regexp; throws Re2SyntaxError with Go's message. */
export function translateRe2(pattern: string): TranslatedRegexp {
  const first = new Translator(pattern, false);
  const out = first.translate();
  if (first.sawFold && !first.sawSensitive && !first.sawBoundary) return new Translator(pattern, true).translate();
  return out;
}
