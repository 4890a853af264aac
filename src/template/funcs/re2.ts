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
import { toLowerRune, toUpperRune } from './unicode.js';

export class Re2SyntaxError extends Error {
  constructor(code: string, expr: string) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
  }
}

export interface TranslatedRegexp {
  readonly source: string;
  readonly flags: string;
  /** Capture group names by index (index 0 is the whole match, always ""). */
  readonly names: readonly string[];
}

const E = {
  charRange: 'invalid character class range',
  escape: 'invalid escape sequence',
  namedCapture: 'invalid named capture',
  perlOp: 'invalid or unsupported Perl syntax',
  repeatOp: 'invalid nested repetition operator',
  repeatSize: 'invalid repeat count',
  bracket: 'missing closing ]',
  paren: 'missing closing )',
  repeatArg: 'missing argument to repetition operator',
  trailing: 'trailing backslash at end of expression',
  unexpectedParen: 'unexpected )',
  depth: 'expression nests too deeply',
} as const;

type Range = [number, number];

const PERL: Record<string, [number, Range[]]> = {
  '\\d': [1, [[0x30, 0x39]]],
  '\\D': [-1, [[0x30, 0x39]]],
  '\\s': [1, [[0x9, 0xa], [0xc, 0xd], [0x20, 0x20]]],
  '\\S': [-1, [[0x9, 0xa], [0xc, 0xd], [0x20, 0x20]]],
  '\\w': [1, [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]],
  '\\W': [-1, [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]],
};

const POSIX_BASE: Record<string, Range[]> = {
  alnum: [[0x30, 0x39], [0x41, 0x5a], [0x61, 0x7a]],
  alpha: [[0x41, 0x5a], [0x61, 0x7a]],
  ascii: [[0x0, 0x7f]],
  blank: [[0x9, 0x9], [0x20, 0x20]],
  cntrl: [[0x0, 0x1f], [0x7f, 0x7f]],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [[0x21, 0x2f], [0x3a, 0x40], [0x5b, 0x60], [0x7b, 0x7e]],
  space: [[0x9, 0xd], [0x20, 0x20]],
  upper: [[0x41, 0x5a]],
  word: [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]],
  xdigit: [[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]],
};

/** Go 1.19's unicode.Categories and unicode.Scripts (Unicode 13). */
const CATEGORIES = new Set('C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs'.split(' '));
const SCRIPTS = new Set(
  ('Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki Bopomofo ' +
    'Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee Chorasmian Common ' +
    'Coptic Cuneiform Cypriot Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs Elbasan Elymaic ' +
    'Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi Gurmukhi Han Hangul Hanifi_Rohingya Hanunoo ' +
    'Hatran Hebrew Hiragana Imperial_Aramaic Inherited Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada ' +
    'Katakana Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B Lisu ' +
    'Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek ' +
    'Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean Nandinagari ' +
    'New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian Old_Italic Old_North_Arabian Old_Permic ' +
    'Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Oriya Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa ' +
    'Phoenician Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian ' +
    'Sora_Sompeng Soyombo Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangut Telugu ' +
    'Thaana Thai Tibetan Tifinagh Tirhuta Ugaritic Vai Wancho Warang_Citi Yezidi Yi Zanabazar_Square').split(' '),
);

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

function hexCp(cp: number): string {
  return '\\u{' + cp.toString(16) + '}';
}

/** A code point as JS pattern text (u mode), inside or outside a class. */
function jsChar(cp: number, inClass: boolean): string {
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp === 0x2028 || cp === 0x2029 || (cp >= 0xd800 && cp <= 0xdfff)) {
    return hexCp(cp);
  }
  const c = String.fromCodePoint(cp);
  if ('^$\\.*+?()[]{}|/'.includes(c) || (inClass && c === '-')) return '\\' + c;
  return c;
}

function rangesToClass(ranges: readonly Range[]): string {
  return ranges.map(([lo, hi]) => (lo === hi ? jsChar(lo, true) : jsChar(lo, true) + '-' + jsChar(hi, true))).join('');
}

function negateRanges(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

let foldExtras: Map<number, number[]> | null = null;

/** Code points whose simple lower-case form is a given code point but which that form does not upper-case to (K -> k, ſ -> s). */
function extrasFor(lower: number): number[] {
  if (foldExtras === null) {
    foldExtras = new Map();
    for (let cp = 0x80; cp <= 0x1ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const l = toLowerRune(cp);
      if (l !== cp && toUpperRune(l) !== cp) {
        const list = foldExtras.get(l) ?? [];
        list.push(cp);
        foldExtras.set(l, list);
      }
      const u = toUpperRune(cp);
      if (u !== cp && toLowerRune(u) !== cp && l === cp) {
        const list = foldExtras.get(toLowerRune(u)) ?? [];
        if (!list.includes(cp)) list.push(cp);
        foldExtras.set(toLowerRune(u), list);
      }
    }
  }
  return foldExtras.get(lower) ?? [];
}

/** The case-fold orbit of a code point (Go's unicode.SimpleFold cycle, approximately). */
export function foldOrbit(cp: number): number[] {
  const set = new Set<number>([cp]);
  const l = toLowerRune(cp);
  const u = toUpperRune(cp);
  for (const x of [l, u, toUpperRune(l), toLowerRune(u)]) set.add(x);
  for (const base of [...set]) for (const x of extrasFor(toLowerRune(base))) set.add(x);
  return [...set].sort((a, b) => a - b);
}

function foldRanges(ranges: readonly Range[]): Range[] {
  const out: Range[] = [...ranges];
  for (const [lo, hi] of ranges) {
    if (hi - lo > 5000) continue; // too wide to enumerate; left unfolded
    for (let cp = lo; cp <= hi; cp++) for (const f of foldOrbit(cp)) if (f < lo || f > hi) out.push([f, f]);
  }
  return out;
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

function classChar(s: string, wholeClass: string): { cp: number; rest: string } {
  if (s === '') throw new Re2SyntaxError(E.bracket, wholeClass);
  if (s[0] === '\\') return parseEscape(s);
  const cp = s.codePointAt(0) as number;
  return { cp, rest: s.slice(cp > 0xffff ? 2 : 1) };
}

function isAlnum(c: string): boolean {
  return /^[0-9A-Za-z]$/.test(c);
}

function unhex(c: string | undefined): number {
  return c !== undefined && /^[0-9A-Fa-f]$/.test(c) ? parseInt(c, 16) : -1;
}

/** Go's parseEscape: the escaped code point, or Go's error. */
function parseEscape(s: string): { cp: number; rest: string } {
  let t = s.slice(1);
  if (t === '') throw new Re2SyntaxError(E.trailing, '');
  const c = String.fromCodePoint(t.codePointAt(0) as number);
  t = t.slice(c.length);
  const bad = (): never => {
    throw new Re2SyntaxError(E.escape, s.slice(0, s.length - t.length));
  };
  const cp = c.codePointAt(0) as number;
  if (cp < 0x80 && !isAlnum(c)) return { cp, rest: t };
  if (c >= '1' && c <= '7' && (t === '' || t[0] < '0' || t[0] > '7')) return bad();
  if (c >= '0' && c <= '7') {
    let r = cp - 0x30;
    for (let i = 1; i < 3; i++) {
      if (t === '' || t[0] < '0' || t[0] > '7') break;
      r = r * 8 + (t.charCodeAt(0) - 0x30);
      t = t.slice(1);
    }
    return { cp: r, rest: t };
  }
  if (c === 'x') {
    if (t === '') return bad();
    const c1 = String.fromCodePoint(t.codePointAt(0) as number);
    t = t.slice(c1.length);
    if (c1 === '{') {
      let n = 0;
      let r = 0;
      for (;;) {
        if (t === '') return bad();
        const d = String.fromCodePoint(t.codePointAt(0) as number);
        t = t.slice(d.length);
        if (d === '}') break;
        const v = unhex(d);
        if (v < 0) return bad();
        r = r * 16 + v;
        if (r > 0x10ffff) return bad();
        n++;
      }
      if (n === 0) return bad();
      return { cp: r, rest: t };
    }
    const x = unhex(c1);
    const c2 = t === '' ? undefined : String.fromCodePoint(t.codePointAt(0) as number);
    t = t.slice(c2?.length ?? 0);
    const y = unhex(c2);
    if (x < 0 || y < 0) return bad();
    return { cp: x * 16 + y, rest: t };
  }
  const simple: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 };
  if (Object.hasOwn(simple, c)) return { cp: simple[c], rest: t };
  return bad();
}

/** \pL, \p{Greek}, \p{^Greek}, \PL as JS class content. */
function parseUnicodeClass(s: string): { src: string; rest: string } {
  let sign = s[1] === 'P' ? -1 : 1;
  let t = s.slice(2);
  if (t === '') throw new Re2SyntaxError(E.charRange, s);
  const c = String.fromCodePoint(t.codePointAt(0) as number);
  t = t.slice(c.length);
  let seq: string;
  let name: string;
  if (c !== '{') {
    seq = s.slice(0, s.length - t.length);
    name = seq.slice(2);
  } else {
    const end = s.indexOf('}');
    if (end < 0) throw new Re2SyntaxError(E.charRange, s);
    seq = s.slice(0, end + 1);
    t = s.slice(end + 1);
    name = s.slice(3, end);
  }
  if (name.startsWith('^')) {
    sign = -sign;
    name = name.slice(1);
  }
  const p = sign > 0 ? 'p' : 'P';
  let src: string;
  if (name === 'Any') src = sign > 0 ? '\\u{0}-\\u{10ffff}' : '';
  else if (name === 'C') {
    // Go's C has no unassigned code points (Cn); JS's \p{C} does.
    src = sign > 0 ? '\\p{Cc}\\p{Cf}\\p{Co}\\p{Cs}' : '\\P{C}\\p{Cn}';
  } else if (CATEGORIES.has(name)) src = `\\${p}{${name}}`;
  else if (SCRIPTS.has(name)) src = `\\${p}{Script=${name}}`;
  else throw new Re2SyntaxError(E.charRange, seq);
  return { src, rest: t };
}

/** Go's parseRepeat: {n}, {n,}, {n,m}; null when the text is not a repeat (then `{` is literal). */
function parseRepeat(s: string): { min: number; max: number; rest: string } | null {
  const m = /^\{(\d+)(,(\d*))?\}/.exec(s);
  if (m === null) return null;
  const num = (d: string): number | null => {
    if (d.length >= 2 && d[0] === '0') return null;
    return d.length > 8 ? -1 : Number(d) >= 1e8 ? -1 : Number(d);
  };
  const min = num(m[1]);
  if (min === null) return null;
  let max: number;
  if (m[2] === undefined) max = min;
  else if (m[3] === '') max = -1;
  else {
    const x = num(m[3]);
    if (x === null) return null;
    max = x;
  }
  return { min: max < -1 || (m[3] !== undefined && m[3] !== '' && max === -1) ? -1 : min, max, rest: s.slice(m[0].length) };
}

/** Translate a Go regexp; throws Re2SyntaxError with Go's message. */
export function translateRe2(pattern: string): TranslatedRegexp {
  const first = new Translator(pattern, false);
  const out = first.translate();
  if (first.sawFold && !first.sawSensitive && !first.sawBoundary) return new Translator(pattern, true).translate();
  return out;
}
