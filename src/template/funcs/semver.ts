/**
 * @module template/funcs/semver
 * Masterminds/semver v3.2.0 as Sprig uses it: `semver` returns a *semver.Version that templates
 * read through methods (`(semver "1.2.3").Major`), `semverCompare` checks a constraint
 * (`^ ~ >= <= != = , || a - b`, x/X/* wildcards, prerelease rules). The library's own regular
 * expressions run through our RE2 translation, so parsing quirks match Go's.
 */
import { goFunc, GoFuncError, GoNumber, GO_OBJECT, NO_FIELD, type GoFunc, type GoObject, type FuncMap } from '../value.js';
import { compileGo, findAll, type GoRegexp } from './regex.js';
import { parseUint } from '../strconv.js';

const SEMVER_RE =
  String.raw`v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?` + String.raw`(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?` + String.raw`(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`;
const CV_RE =
  String.raw`v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?` +
  String.raw`(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?` +
  String.raw`(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`;
const OPS = String.raw`=||!=|>|<|>=|=>|<=|=<|~|~>|\^`;

let regexes: { version: GoRegexp; constraint: GoRegexp; range: GoRegexp; find: GoRegexp; valid: GoRegexp } | null = null;

function re(): NonNullable<typeof regexes> {
  regexes ??= {
    version: compileGo('^' + SEMVER_RE + '$'),
    constraint: compileGo(String.raw`^\s*(${OPS})\s*(${CV_RE})\s*$`),
    range: compileGo(String.raw`\s*(${CV_RE})\s+-\s+(${CV_RE})\s*`),
    find: compileGo(String.raw`(${OPS})\s*(${CV_RE})`),
    valid: compileGo(String.raw`^(\s*(${OPS})\s*(${CV_RE})\s*)((?:\s+|,\s*)(${OPS})\s*(${CV_RE})\s*)*$`),
  };
  return regexes;
}

/** FindStringSubmatch: groups as strings ("" for unmatched), or null. */
function submatch(g: GoRegexp, s: string): string[] | null {
  const m = findAll(g, s, 1)[0];
  return m === undefined ? null : Array.from(m, (x) => x ?? '');
}

const NUM = /^[0-9]*$/;
const ALLOWED = /^[0-9A-Za-z-]*$/;

function validatePrerelease(p: string): void {
  for (const part of p.split('.')) {
    if (NUM.test(part)) {
      if (part.length > 1 && part[0] === '0') throw new GoFuncError('Version segment starts with 0');
    } else if (!ALLOWED.test(part)) throw new GoFuncError('Invalid Prerelease string');
  }
}

function validateMetadata(m: string): void {
  for (const part of m.split('.')) if (!ALLOWED.test(part)) throw new GoFuncError('Invalid Metadata string');
}

function segment(s: string): bigint {
  const r = parseUint(s, 10);
  if (r.err !== null) {
    const why = r.err === 'range' ? 'value out of range' : 'invalid syntax';
    throw new GoFuncError(`Error parsing version segment: strconv.ParseUint: parsing ${JSON.stringify(s)}: ${why}`);
  }
  return r.value;
}

function comparePrePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === '') return -1;
  if (o === '') return 1;
  const oi = parseUint(o, 10);
  const si = parseUint(s, 10);
  if (oi.err !== null && si.err !== null) return s > o ? 1 : -1;
  if (oi.err !== null) return -1;
  if (si.err !== null) return 1;
  return si.value > oi.value ? 1 : -1;
}

function comparePrerelease(v: string, o: string): number {
  const sp = v.split('.');
  const op = o.split('.');
  for (let i = 0; i < Math.max(sp.length, op.length); i++) {
    const d = comparePrePart(sp[i] ?? '', op[i] ?? '');
    if (d !== 0) return d;
  }
  return 0;
}

const uint64 = (n: bigint): GoNumber => new GoNumber('uint64', n);

/** Methods Masterminds/semver declares on *Version rather than Version. */
const POINTER_METHODS = new Set(['Original', 'LessThan', 'GreaterThan', 'Equal', 'Compare']);

/** A *semver.Version (or semver.Version) as templates see it. */
export class SemverVersion implements GoObject {
  readonly [GO_OBJECT] = true as const;

  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: string,
    readonly metadata: string,
    readonly original: string,
    readonly goType: string = '*semver.Version',
  ) {}

  toString(): string {
    return `${this.major}.${this.minor}.${this.patch}` + (this.pre ? '-' + this.pre : '') + (this.metadata ? '+' + this.metadata : '');
  }

  compare(o: SemverVersion): number {
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ] as const) {
      if (a !== b) return a < b ? -1 : 1;
    }
    if (this.pre === '' && o.pre === '') return 0;
    if (this.pre === '') return 1;
    if (o.pre === '') return -1;
    return comparePrerelease(this.pre, o.pre);
  }

  private vPrefix(): string {
    return this.original.startsWith('v') ? 'v' : '';
  }

  private next(major: bigint, minor: bigint, patch: bigint, pre: string, metadata: string): SemverVersion {
    const base = new SemverVersion(major, minor, patch, pre, metadata, '', 'semver.Version');
    return new SemverVersion(major, minor, patch, pre, metadata, this.vPrefix() + base.toString(), 'semver.Version');
  }

  getField(): unknown {
    return NO_FIELD;
  }

  fieldNames(): readonly string[] {
    return ['major', 'minor', 'patch', 'pre', 'metadata', 'original'];
  }

  toJSON(): unknown {
    return this.toString();
  }

  getMethod(name: string): GoFunc | undefined {
    const v = this;
    const methods: Record<string, GoFunc> = {
      String: goFunc([], () => v.toString()),
      Original: goFunc([], () => v.original),
      Major: goFunc([], () => uint64(v.major)),
      Minor: goFunc([], () => uint64(v.minor)),
      Patch: goFunc([], () => uint64(v.patch)),
      Prerelease: goFunc([], () => v.pre),
      Metadata: goFunc([], () => v.metadata),
      IncPatch: goFunc([], () => (v.pre !== '' ? v.next(v.major, v.minor, v.patch, '', '') : v.next(v.major, v.minor, v.patch + 1n, '', ''))),
      IncMinor: goFunc([], () => v.next(v.major, v.minor + 1n, 0n, '', '')),
      IncMajor: goFunc([], () => v.next(v.major + 1n, 0n, 0n, '', '')),
      SetPrerelease: goFunc(['string'], (p: string) => {
        if (p !== '') validatePrerelease(p);
        return v.next(v.major, v.minor, v.patch, p, v.metadata);
      }),
      SetMetadata: goFunc(['string'], (m: string) => {
        if (m !== '') validateMetadata(m);
        return v.next(v.major, v.minor, v.patch, v.pre, m);
      }),
      LessThan: goFunc(['*semver.Version'], (o: SemverVersion) => v.compare(o) < 0),
      GreaterThan: goFunc(['*semver.Version'], (o: SemverVersion) => v.compare(o) > 0),
      Equal: goFunc(['*semver.Version'], (o: SemverVersion) => v.compare(o) === 0),
      Compare: goFunc(['*semver.Version'], (o: SemverVersion) => BigInt(v.compare(o))),
    };
    // A semver.Version value (what IncPatch etc. return) is not addressable in a template, so
    // only its value-receiver methods are callable, as in Go.
    if (this.goType !== '*semver.Version' && POINTER_METHODS.has(name)) return undefined;
    return Object.hasOwn(methods, name) ? methods[name] : undefined;
  }
}

/** semver.NewVersion */
export function newVersion(v: string): SemverVersion {
  const m = submatch(re().version, v);
  if (m === null) throw new GoFuncError('Invalid Semantic Version');
  const major = segment(m[1]);
  const minor = m[2] !== '' ? segment(m[2].slice(1)) : 0n;
  const patch = m[3] !== '' ? segment(m[3].slice(1)) : 0n;
  if (m[5] !== '') validatePrerelease(m[5]);
  if (m[8] !== '') validateMetadata(m[8]);
  return new SemverVersion(major, minor, patch, m[5], m[8], v);
}

interface Constraint {
  con: SemverVersion;
  op: string;
  dirty: boolean;
  minorDirty: boolean;
  patchDirty: boolean;
}

const isX = (x: string): boolean => x === 'x' || x === '*' || x === 'X';

function parseConstraint(c: string): Constraint {
  if (c.length === 0) {
    return { con: new SemverVersion(0n, 0n, 0n, '', '', '0.0.0'), op: '', dirty: true, minorDirty: false, patchDirty: false };
  }
  const m = submatch(re().constraint, c);
  if (m === null) throw new GoFuncError(`improper constraint: ${c}`);
  let ver = m[2];
  let dirty = false;
  let minorDirty = false;
  let patchDirty = false;
  if (isX(m[3]) || m[3] === '') {
    ver = `0.0.0${m[6]}`;
    dirty = true;
  } else if (isX(m[4].replace(/^\./, '')) || m[4] === '') {
    minorDirty = dirty = true;
    ver = `${m[3]}.0.0${m[6]}`;
  } else if (isX(m[5].replace(/^\./, '')) || m[5] === '') {
    patchDirty = dirty = true;
    ver = `${m[3]}${m[4]}.0${m[6]}`;
  }
  let con: SemverVersion;
  try {
    con = newVersion(ver);
  } catch {
    throw new GoFuncError('constraint Parser Error');
  }
  return { con, op: m[1], dirty, minorDirty, patchDirty };
}

function rewriteRange(i: string): string {
  let o = i;
  for (const m of findAll(re().range, i, -1)) {
    o = o.replace(m[0], () => `>= ${m[1]}, <= ${m[11]}`);
  }
  return o;
}

/** semver.NewConstraint: ORs of ANDs. */
function newConstraint(c: string): Constraint[][] {
  const ors = rewriteRange(c).split('||');
  return ors.map((v) => {
    if (findAll(re().valid, v, 1).length === 0) throw new GoFuncError(`improper constraint: ${v}`);
    const cs = findAll(re().find, v, -1).map((x) => x[0]);
    return (cs.length === 0 ? [v] : cs).map(parseConstraint);
  });
}

function check(v: SemverVersion, c: Constraint): boolean {
  const cv = c.con;
  if (c.op === '!=') return notEqual(v, c);
  // Every other operator rejects a prerelease version unless the constraint names a prerelease.
  if (v.pre !== '' && cv.pre === '') return false;
  switch (c.op) {
    case '':
    case '=':
      return c.dirty ? tilde(v, c) : v.compare(cv) === 0;
    case '>':
      if (!c.dirty) return v.compare(cv) === 1;
      if (v.major > cv.major) return true;
      if (v.major < cv.major || c.minorDirty) return false;
      if (c.patchDirty) return v.minor > cv.minor;
      return v.compare(cv) === 1;
    case '<':
      return v.compare(cv) < 0;
    case '>=':
    case '=>':
      return v.compare(cv) >= 0;
    case '<=':
    case '=<':
      if (!c.dirty) return v.compare(cv) <= 0;
      if (v.major > cv.major) return false;
      return !(v.major === cv.major && v.minor > cv.minor && !c.minorDirty);
    case '~':
    case '~>':
      return tilde(v, c);
    case '^':
      return caret(v, c);
    default:
      return false;
  }
}

function notEqual(v: SemverVersion, c: Constraint): boolean {
  const cv = c.con;
  if (c.dirty) {
    if (v.pre !== '' && cv.pre === '') return false;
    if (cv.major !== v.major) return true;
    if (cv.minor !== v.minor && !c.minorDirty) return true;
    if (c.minorDirty) return false;
    if (cv.patch !== v.patch && !c.patchDirty) return true;
    if (c.patchDirty) {
      if (v.pre !== '' || cv.pre !== '') return comparePrerelease(v.pre, cv.pre) !== 0;
      return false;
    }
  }
  return v.compare(cv) !== 0;
}

function tilde(v: SemverVersion, c: Constraint): boolean {
  const cv = c.con;
  if (v.compare(cv) < 0) return false;
  if (cv.major === 0n && cv.minor === 0n && cv.patch === 0n && !c.minorDirty && !c.patchDirty) return true;
  if (v.major !== cv.major) return false;
  return !(v.minor !== cv.minor && !c.minorDirty);
}

function caret(v: SemverVersion, c: Constraint): boolean {
  const cv = c.con;
  if (v.compare(cv) < 0) return false;
  if (cv.major > 0n || c.minorDirty) return v.major === cv.major;
  if (cv.major === 0n && v.major > 0n) return false;
  if (cv.minor > 0n || c.patchDirty) return v.minor === cv.minor;
  if (cv.minor === 0n && v.minor > 0n) return false;
  return cv.patch === v.patch;
}

/** Parsed constraints by text: templates compare against a handful of constant constraints. */
const constraintCache = new Map<string, Constraint[][]>();

export function semverCompare(constraint: string, version: string): boolean {
  let cs = constraintCache.get(constraint);
  if (cs === undefined) {
    cs = newConstraint(constraint);
    if (constraintCache.size >= 1000) constraintCache.clear();
    constraintCache.set(constraint, cs);
  }
  const v = newVersion(version);
  return cs.some((and) => and.every((c) => check(v, c)));
}

export const semverFuncs: FuncMap = {
  semver: goFunc(['string'], newVersion),
  semverCompare: goFunc(['string', 'string'], semverCompare),
};
