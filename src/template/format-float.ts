/**
 * @module template/format-float
 * Go's `strconv.FormatFloat` (formats e E f g G b x X, any precision, 64- and 32-bit).
 * JavaScript's own conversions round ties away from zero and stop at 100 digits, while Go
 * rounds exact ties to even and allows any precision, so fixed-precision digits come from
 * the exact decimal expansion of the double (computed with BigInt). Shortest digits come
 * from JavaScript, whose shortest round-trip output is the same as Go's.
 */

/** Decimal digits `d` (no leading zeros; empty for zero) with the point after `dp` digits. */
interface Digits {
  d: string;
  dp: number;
}

const F64 = new Float64Array(1);
const U64 = new BigUint64Array(F64.buffer);

/** Sign, biased exponent and mantissa bits of a double. */
function bitsOf(v: number): { neg: boolean; exp: number; mant: bigint } {
  F64[0] = v;
  const bits = U64[0];
  return {
    neg: bits >> 63n === 1n,
    exp: Number((bits >> 52n) & 0x7ffn),
    mant: bits & 0xfffffffffffffn,
  };
}

/** The exact decimal expansion of |v| (finite). */
function exactDigits(v: number): Digits {
  const { exp, mant } = bitsOf(v);
  let m = mant;
  let e: number;
  if (exp === 0) {
    e = -1074;
  } else {
    m |= 1n << 52n;
    e = exp - 1075;
  }
  if (m === 0n) return { d: '', dp: 0 };
  let s: string;
  let dp: number;
  if (e >= 0) {
    s = (m << BigInt(e)).toString();
    dp = s.length;
  } else {
    // m / 2^-e = m * 5^-e / 10^-e
    s = (m * 5n ** BigInt(-e)).toString();
    dp = s.length + e;
  }
  return trimDigits(s, dp);
}

function trimDigits(s: string, dp: number): Digits {
  let start = 0;
  while (start < s.length && s.charCodeAt(start) === 48) {
    start++;
    dp--;
  }
  let end = s.length;
  while (end > start && s.charCodeAt(end - 1) === 48) end--;
  if (start === end) return { d: '', dp: 0 };
  return { d: s.slice(start, end), dp };
}

/** Round exact digits to `nd` significant digits, ties to even (Go's decimal.Round). */
function roundDigits(x: Digits, nd: number): Digits {
  if (nd < 0 || nd >= x.d.length) return x;
  const next = x.d.charCodeAt(nd);
  let up: boolean;
  if (next === 53 /* '5' */ && nd + 1 === x.d.length) {
    up = nd > 0 && (x.d.charCodeAt(nd - 1) - 48) % 2 === 1;
  } else {
    up = next >= 53;
  }
  if (!up) return trimDigits(x.d.slice(0, nd), x.dp);
  // Round up: increment the prefix.
  const chars = x.d.slice(0, nd).split('');
  let i = nd - 1;
  while (i >= 0 && chars[i] === '9') {
    chars[i] = '0';
    i--;
  }
  if (i < 0) return { d: '1', dp: x.dp + 1 };
  chars[i] = String.fromCharCode(chars[i].charCodeAt(0) + 1);
  return trimDigits(chars.join(''), x.dp);
}

/** Shortest digits that read back as the same double (or float32). */
function shortestDigits(v: number, bitSize: 32 | 64): Digits {
  if (v === 0) return { d: '', dp: 0 };
  let s: string;
  if (bitSize === 32) {
    s = '';
    for (let p = 1; p <= 9; p++) {
      s = v.toExponential(p - 1);
      if (Math.fround(Number(s)) === v) break;
    }
  } else {
    s = v.toExponential();
  }
  const e = s.indexOf('e');
  const mantissa = s.slice(0, e).replace('.', '').replace('-', '');
  return trimDigits(mantissa, Number(s.slice(e + 1)) + 1);
}

function fmtE(neg: boolean, x: Digits, prec: number, ch: string): string {
  let out = neg ? '-' : '';
  out += x.d.length !== 0 ? x.d[0] : '0';
  if (prec > 0) {
    out += '.';
    const m = Math.min(x.d.length, prec + 1);
    if (m > 1) out += x.d.slice(1, m);
    for (let i = Math.max(m, 1); i <= prec; i++) out += '0';
  }
  let exp = x.d.length === 0 ? 0 : x.dp - 1;
  let sign = '+';
  if (exp < 0) {
    sign = '-';
    exp = -exp;
  }
  return out + ch + sign + (exp < 10 ? '0' + exp : String(exp));
}

function fmtF(neg: boolean, x: Digits, prec: number): string {
  let out = neg ? '-' : '';
  if (x.dp > 0) {
    const m = Math.min(x.d.length, x.dp);
    out += x.d.slice(0, m);
    for (let i = m; i < x.dp; i++) out += '0';
  } else {
    out += '0';
  }
  if (prec > 0) {
    out += '.';
    for (let i = 1; i <= prec; i++) {
      const j = x.dp + i - 1;
      out += j >= 0 && j < x.d.length ? x.d[j] : '0';
    }
  }
  return out;
}

/** %b: mantissa "p" binary exponent. */
function fmtB(v: number, bitSize: 32 | 64): string {
  const { neg, exp: biased, mant: m52 } = bitsOf(v);
  let mant: bigint;
  let exp: number;
  if (bitSize === 32) {
    // Re-derive float32 fields: 23-bit mantissa, bias 127.
    const f = new Float32Array([v]);
    const bits = new Uint32Array(f.buffer)[0];
    let e = (bits >>> 23) & 0xff;
    mant = BigInt(bits & 0x7fffff);
    if (e === 0) e++;
    else mant |= 1n << 23n;
    exp = e - 127 - 23;
  } else {
    let e = biased;
    mant = m52;
    if (e === 0) e++;
    else mant |= 1n << 52n;
    exp = e - 1023 - 52;
  }
  return (neg ? '-' : '') + mant.toString() + 'p' + (exp >= 0 ? '+' : '') + exp;
}

const MASK64 = (1n << 64n) - 1n;

/** %x / %X: hexadecimal mantissa and binary exponent. */
function fmtX(v: number, prec: number, upper: boolean, bitSize: 32 | 64): string {
  const { neg, exp: biased, mant: m52 } = bitsOf(v);
  let mant: bigint;
  let exp: number;
  let mantbits: number;
  if (bitSize === 32) {
    const f = new Float32Array([v]);
    const bits = new Uint32Array(f.buffer)[0];
    let e = (bits >>> 23) & 0xff;
    mant = BigInt(bits & 0x7fffff);
    if (e === 0) e++;
    else mant |= 1n << 23n;
    exp = e - 127;
    mantbits = 23;
  } else {
    let e = biased;
    mant = m52;
    if (e === 0) e++;
    else mant |= 1n << 52n;
    exp = e - 1023;
    mantbits = 52;
  }
  if (mant === 0n) exp = 0;
  mant = (mant << BigInt(60 - mantbits)) & MASK64;
  while (mant !== 0n && (mant & (1n << 60n)) === 0n) {
    mant = (mant << 1n) & MASK64;
    exp--;
  }
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(prec * 4);
    const extra = (mant << shift) & ((1n << 60n) - 1n);
    mant >>= 60n - shift;
    if ((extra | (mant & 1n)) > 1n << 59n) mant++;
    mant = (mant << (60n - shift)) & MASK64;
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n;
      exp++;
    }
  }
  const hex = upper ? '0123456789ABCDEF' : '0123456789abcdef';
  let out = (neg ? '-' : '') + '0' + (upper ? 'X' : 'x') + String(Number((mant >> 60n) & 1n));
  mant = (mant << 4n) & MASK64;
  if (prec < 0 && mant !== 0n) {
    out += '.';
    while (mant !== 0n) {
      out += hex[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & MASK64;
    }
  } else if (prec > 0) {
    out += '.';
    for (let i = 0; i < prec; i++) {
      out += hex[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & MASK64;
    }
  }
  out += upper ? 'P' : 'p';
  let sign = '+';
  if (exp < 0) {
    sign = '-';
    exp = -exp;
  }
  return out + sign + (exp < 10 ? '0' + exp : String(exp));
}

/**
 * strconv.FormatFloat(v, fmt, prec, bitSize). `prec < 0` means the shortest representation
 * that reads back exactly. For bitSize 32, `v` must already be a float32 value.
 */
export function formatFloat(v: number, fmt: string, prec: number, bitSize: 32 | 64 = 64): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (fmt === 'b') return fmtB(v, bitSize);
  if (fmt === 'x' || fmt === 'X') return fmtX(v, prec, fmt === 'X', bitSize);
  const neg = v < 0 || Object.is(v, -0);
  const abs = Math.abs(v);
  const shortest = prec < 0;
  // Shortest digits of a float64 without an exponent, as JavaScript prints them (the same
  // digits as Go's): %v/%g between 1e-4 and 1e6 (printf "%v" of JSON numbers), %f between 1e-6
  // and 1e21 (encoding/json's numbers: toJson).
  if (shortest && bitSize === 64 && abs >= 1e-6 && abs < 1e21) {
    if (fmt === 'f' || ((fmt === 'g' || fmt === 'G') && abs >= 1e-4 && abs < 1e6)) return String(v);
  }
  let x: Digits;
  if (shortest) {
    x = shortestDigits(abs, bitSize);
    switch (fmt) {
      case 'e':
      case 'E':
        prec = Math.max(x.d.length - 1, 0);
        break;
      case 'f':
        prec = Math.max(x.d.length - x.dp, 0);
        break;
      case 'g':
      case 'G':
        prec = x.d.length;
        break;
    }
  } else {
    const exact = exactDigits(abs);
    switch (fmt) {
      case 'e':
      case 'E':
        x = roundDigits(exact, prec + 1);
        break;
      case 'f':
        x = roundDigits(exact, exact.dp + prec);
        if (exact.dp + prec < 0) x = { d: '', dp: 0 };
        break;
      case 'g':
      case 'G':
        if (prec === 0) prec = 1;
        x = roundDigits(exact, prec);
        break;
      default:
        x = exact;
    }
  }
  switch (fmt) {
    case 'e':
    case 'E':
      return fmtE(neg, x, prec, fmt);
    case 'f':
      return fmtF(neg, x, prec);
    case 'g':
    case 'G': {
      let eprec = prec;
      if (eprec > x.d.length && x.d.length >= x.dp) eprec = x.d.length;
      if (shortest) eprec = 6;
      const exp = x.dp - 1;
      if (exp < -4 || exp >= eprec) {
        if (prec > x.d.length) prec = x.d.length;
        return fmtE(neg, x, prec - 1, fmt === 'g' ? 'e' : 'E');
      }
      if (prec > x.dp) prec = x.d.length;
      return fmtF(neg, x, Math.max(prec - x.dp, 0));
    }
  }
  return '%' + fmt;
}
