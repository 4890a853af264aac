/**
 * @module template/strconv
 * The parts of Go's strconv that the engine (number constants in templates) and the function
 * library (Sprig's coercions, the JSON/YAML encoders) depend on, in one place:
 * `ParseInt`/`Atoi` (base prefixes, underscores, range clamping), `ParseFloat` (hex floats,
 * `inf`/`nan`, underscores), and the float texts of go-yaml and encoding/json on top of the
 * engine's strconv.FormatFloat. JS `Number()` accepts other spellings (`" 1"`, `"0x10"`,
 * `"Infinity"`), so each is checked against Go's grammar first.
 */
import { formatFloat } from './format-float.js';

export type NumErr = 'syntax' | 'range' | null;

const MAX_U64 = (1n << 64n) - 1n;
const MAX_I64 = (1n << 63n) - 1n;
const MIN_I64 = -(1n << 63n);

function lower(c: string): string {
  return c.length === 1 && c >= 'A' && c <= 'Z' ? String.fromCharCode(c.charCodeAt(0) + 32) : c;
}

/** Go's underscoreOK: underscores only between digits (or after a base prefix). */
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'box'.includes(lower(s[1]))) {
    i = 2;
    saw = '0';
    hex = lower(s[1]) === 'x';
  }
  for (; i < s.length; i++) {
    const c = lower(s[i]);
    if ((c >= '0' && c <= '9') || (hex && c >= 'a' && c <= 'f')) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/** strconv.ParseUint(s, base, 64) with base 0 (prefix-detected) or 2..36. */
export function parseUint(s: string, base: number): { value: bigint; err: NumErr } {
  if (s === '') return { value: 0n, err: 'syntax' };
  const base0 = base === 0;
  const s0 = s;
  if (base0) {
    base = 10;
    if (s[0] === '0') {
      const p = s.length >= 3 ? lower(s[1]) : '';
      if (p === 'b') {
        base = 2;
        s = s.slice(2);
      } else if (p === 'o') {
        base = 8;
        s = s.slice(2);
      } else if (p === 'x') {
        base = 16;
        s = s.slice(2);
      } else {
        base = 8;
        s = s.slice(1);
      }
    }
  }
  const b = BigInt(base);
  const cutoff = MAX_U64 / b + 1n;
  let underscores = false;
  let n = 0n;
  for (const c0 of s) {
    const c = lower(c0);
    let d: number;
    if (c === '_' && base0) {
      underscores = true;
      continue;
    } else if (c >= '0' && c <= '9') d = c.charCodeAt(0) - 48;
    else if (c >= 'a' && c <= 'z') d = c.charCodeAt(0) - 97 + 10;
    else return { value: 0n, err: 'syntax' };
    if (d >= base) return { value: 0n, err: 'syntax' };
    if (n >= cutoff) return { value: MAX_U64, err: 'range' };
    n = n * b + BigInt(d);
    if (n > MAX_U64) return { value: MAX_U64, err: 'range' };
  }
  if (underscores && !underscoreOK(s0)) return { value: 0n, err: 'syntax' };
  return { value: n, err: null };
}

/** strconv.ParseInt(s, base, 64): on a range error the value is clamped, as Go returns it. */
export function parseInt64(s: string, base: number): { value: bigint; err: NumErr } {
  if (s === '') return { value: 0n, err: 'syntax' };
  let neg = false;
  let body = s;
  if (s[0] === '+') body = s.slice(1);
  else if (s[0] === '-') {
    neg = true;
    body = s.slice(1);
  }
  const u = parseUint(body, base);
  if (u.err === 'syntax') return { value: 0n, err: 'syntax' };
  if (!neg && u.value > MAX_I64) return { value: MAX_I64, err: 'range' };
  if (neg && u.value > -MIN_I64) return { value: MIN_I64, err: 'range' };
  if (u.err === 'range') return { value: neg ? MIN_I64 : MAX_I64, err: 'range' };
  return { value: neg ? -u.value : u.value, err: null };
}

const DEC_FLOAT = /^[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9_]+)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9_]+)$/;
const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/** strconv.ParseFloat(s, 64). A range error still reports ±Inf as Go does. */
export function parseFloat64(s: string): { value: number; err: NumErr } {
  const special = SPECIAL.exec(s);
  if (special) {
    if (special[2].toLowerCase() === 'nan') return special[1] === '' ? { value: NaN, err: null } : { value: 0, err: 'syntax' };
    return { value: special[1] === '-' ? -Infinity : Infinity, err: null };
  }
  if (DEC_FLOAT.test(s)) {
    if (!/[0-9]/.test(s.replace(/[eE].*$/, ''))) return { value: 0, err: 'syntax' };
    if (s.includes('_') && !underscoreOK(s)) return { value: 0, err: 'syntax' };
    const v = Number(s.replace(/_/g, ''));
    if (!Number.isFinite(v)) return { value: v, err: 'range' };
    return { value: v, err: null };
  }
  const hex = HEX_FLOAT.exec(s);
  if (hex) {
    const intPart = hex[2];
    const frac = hex[3] ?? '';
    if ((intPart + frac).replace(/_/g, '') === '') return { value: 0, err: 'syntax' };
    if (s.includes('_') && !underscoreOK(s)) return { value: 0, err: 'syntax' };
    const digits = (intPart + frac).replace(/_/g, '');
    const exp = Number(hex[4].replace(/_/g, '')) - 4 * frac.replace(/_/g, '').length;
    let v = hexToFloat(BigInt('0x' + digits), exp);
    if (hex[1] === '-') v = -v;
    if (!Number.isFinite(v)) return { value: v, err: 'range' };
    return { value: v, err: null };
  }
  return { value: 0, err: 'syntax' };
}

/** strconv.FormatFloat(f, 'g', -1, bits): what go-yaml prints for floats (`1e+06`, `1.5e-07`). */
export function formatFloatG(f: number, bits: 32 | 64 = 64): string {
  return formatFloat(f, 'g', -1, bits);
}

/** encoding/json's float text: %f below 1e21 (and from 1e-6), else %e with `e-7` rather than `e-07`. */
export function formatJSONFloat(f: number, bits: 32 | 64 = 64): string {
  const a = Math.abs(f);
  const fmt = a !== 0 && (a < 1e-6 || a >= 1e21) ? 'e' : 'f';
  const s = formatFloat(f, fmt, -1, bits);
  return fmt === 'e' ? s.replace(/e([+-])0(\d)$/, 'e$1$2') : s;
}

/** Go's int64(f) conversion on amd64: truncation; NaN and out-of-range give math.MinInt64. */
export function float64ToInt64(f: number): bigint {
  if (!Number.isFinite(f) || f >= 9223372036854775808 || f < -9223372036854775808) return MIN_I64;
  return BigInt(Math.trunc(f));
}

/** mant * 2^exp: Number(bigint) rounds once to nearest-even; scaling by 2^exp is exact. */
function hexToFloat(mant: bigint, exp: number): number {
  let v = Number(mant);
  // Scale in steps so an intermediate power of two cannot overflow or underflow on its own.
  while (exp > 0) {
    const step = Math.min(exp, 1000);
    v *= 2 ** step;
    exp -= step;
  }
  while (exp < 0) {
    const step = Math.max(exp, -1000);
    v *= 2 ** step;
    exp -= step;
  }
  return v;
}
