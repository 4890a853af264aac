/**
 * @module template/funcs/re2-syntax
 * The pieces of Go's regexp/syntax that the RE2 -> JS translator ({@link translateRe2}) builds
 * on: Go's error codes and messages, the Perl/POSIX class tables, Go 1.19's Unicode category and
 * script names, escape and repeat parsing, JS pattern text for code points and ranges, and
 * case-fold orbits for partially case-insensitive patterns.
 */
import { toLowerRune, toUpperRune } from './unicode.js';

export class Re2SyntaxError extends Error {
  constructor(code: string, expr: string) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
  }
}

export const E = {
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

export type Range = [number, number];

export const PERL: Record<string, [number, Range[]]> = {
  '\\d': [1, [[0x30, 0x39]]],
  '\\D': [-1, [[0x30, 0x39]]],
  '\\s': [1, [[0x9, 0xa], [0xc, 0xd], [0x20, 0x20]]],
  '\\S': [-1, [[0x9, 0xa], [0xc, 0xd], [0x20, 0x20]]],
  '\\w': [1, [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]],
  '\\W': [-1, [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]],
};

export const POSIX_BASE: Record<string, Range[]> = {
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
export const CATEGORIES = new Set('C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs'.split(' '));
export const SCRIPTS = new Set(
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

function hexCp(cp: number): string {
  return '\\u{' + cp.toString(16) + '}';
}

/** A code point as JS pattern text (u mode), inside or outside a class. */
export function jsChar(cp: number, inClass: boolean): string {
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp === 0x2028 || cp === 0x2029 || (cp >= 0xd800 && cp <= 0xdfff)) {
    return hexCp(cp);
  }
  const c = String.fromCodePoint(cp);
  if ('^$\\.*+?()[]{}|/'.includes(c) || (inClass && c === '-')) return '\\' + c;
  return c;
}

export function rangesToClass(ranges: readonly Range[]): string {
  return ranges.map(([lo, hi]) => (lo === hi ? jsChar(lo, true) : jsChar(lo, true) + '-' + jsChar(hi, true))).join('');
}

export function negateRanges(ranges: readonly Range[]): Range[] {
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

export function foldRanges(ranges: readonly Range[]): Range[] {
  const out: Range[] = [...ranges];
  for (const [lo, hi] of ranges) {
    if (hi - lo > 5000) continue; // too wide to enumerate; left unfolded
    for (let cp = lo; cp <= hi; cp++) for (const f of foldOrbit(cp)) if (f < lo || f > hi) out.push([f, f]);
  }
  return out;
}

export function classChar(s: string, wholeClass: string): { cp: number; rest: string } {
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
export function parseEscape(s: string): { cp: number; rest: string } {
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
export function parseUnicodeClass(s: string): { src: string; rest: string } {
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
export function parseRepeat(s: string): { min: number; max: number; rest: string } | null {
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
