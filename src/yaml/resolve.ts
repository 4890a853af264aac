/**
 * @module yaml/resolve
 * How a plain (unquoted) YAML scalar is typed when Kubernetes reads it. kubectl, istioctl and the
 * apiserver decode YAML with sigs.k8s.io/yaml, which is go-yaml v2 (YAML 1.1 flavoured): `0644`
 * is 420, `yes`/`on`/`y` are true, `1_000` is 1000, timestamps stay strings. This module
 * reproduces go-yaml v2's `resolve()` rules exactly (checked against go-yaml itself), so a
 * manifest means the same here as in the cluster. It also answers the reverse question for the
 * writer: which strings must be quoted so that no YAML 1.1 or 1.2 reader can mistype them.
 */

/** Returned by {@link resolvePlain} when the scalar stays a string. */
export const STRING: unique symbol = Symbol('string');

/**
 * Scalars that cannot be plain JS values while js-yaml builds the tree. js-yaml turns mapping
 * keys into strings with `String(key)`, so each class's `toString` gives the key text
 * sigs.k8s.io/yaml would produce; `Symbol.toStringTag` keeps js-yaml from replacing it with
 * `[object Object]`. The conversion pass (convert.ts) replaces every instance in value position.
 */
export abstract class SpecialScalar {
  get [Symbol.toStringTag](): string {
    return 'K8sYamlScalar';
  }
}

/** Per-process random text, so no input can spell one of our key markers. */
const MARKER = `\u0000k8s-yaml-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;

/** `null`, `~`, `Null`, `NULL`: a null key is an error in sigs.k8s.io/yaml, so its key text is a marker. */
export class NullScalar extends SpecialScalar {
  override toString(): string {
    return NULL_KEY_MARKER;
  }
}
export const NULL_KEY_MARKER = `${MARKER}:null`;
export const NULL_SCALAR = new NullScalar();

/** A float: value for data, Go's `FormatFloat(f, 'g', -1, 32)` text when used as a key. */
export class FloatScalar extends SpecialScalar {
  constructor(readonly value: number) {
    super();
  }
  override toString(): string {
    return goFloatKey(this.value);
  }
}

/** An integer outside JS's exact range (|n| > 2^53): the number loses digits, so we track it. */
export class BigIntScalar extends SpecialScalar {
  constructor(
    readonly value: number,
    readonly exact: string,
  ) {
    super();
  }
  override toString(): string {
    return this.exact;
  }
}

/** A plain `<<` key: a merge. Each occurrence has its own key text so two merges never collide. */
export class MergeKey extends SpecialScalar {
  private static next = 0;
  readonly key = `${MARKER}:merge:${MergeKey.next++}`;
  override toString(): string {
    return this.key;
  }
}
export const MERGE_KEY_PREFIX = `${MARKER}:merge:`;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** go-yaml's resolveMap: exact words, case variants as listed there and nothing else. */
const WORDS = new Map<string, unknown>();
for (const w of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) WORDS.set(w, true);
for (const w of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']) WORDS.set(w, false);
for (const w of ['~', 'null', 'Null', 'NULL']) WORDS.set(w, NULL_SCALAR);
for (const w of ['.nan', '.NaN', '.NAN']) WORDS.set(w, new FloatScalar(NaN));
for (const w of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']) WORDS.set(w, new FloatScalar(Infinity));
for (const w of ['-.inf', '-.Inf', '-.INF']) WORDS.set(w, new FloatScalar(-Infinity));

/** The longest word of WORDS: a longer scalar is none of them, without hashing it for the lookup. */
const WORD_MAX = Math.max(...[...WORDS.keys()].map((w) => w.length));
/**
 * go-yaml's hint table as char codes: only a scalar starting with one of these can resolve to
 * something other than a string (digits, sign, dot, `<`, and the words' first letters).
 */
const HINT = new Uint8Array(128);
for (const ch of '0123456789+-.<yYnNtTfFoO~') HINT[ch.charCodeAt(0)] = 1;

/** Short decimal integers, the common case: parseGoInt's value for them is their Number, -0 as 0. */
const SHORT_DECIMAL = /^-?(?:0|[1-9][0-9]{0,14})$/;

/** Go's strconv.ParseInt(s, 0, 64) syntax (after go-yaml removed every `_`). */
const GO_INT = /^([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[bB]([01]+)|0[oO]([0-7]+)|(0[0-7]*)|([1-9][0-9]*))$/;
/** go-yaml's yamlStyleFloat. */
const GO_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
/**
 * What Go's ParseFloat accepts for a scalar that starts with `.` (go-yaml calls it on the raw
 * text, no regex): Go's digit separators are allowed, one `_` at a time between two digits.
 */
const DOT_FLOAT = /^\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?$/;

/**
 * Type a plain scalar as go-yaml v2 does. Returns `STRING` when it stays text; otherwise a boolean,
 * a safe integer (number), or a {@link SpecialScalar} (null, float, big integer, merge key).
 */
export function resolvePlain(s: string): unknown {
  if (s === '') return NULL_SCALAR;
  const c = s.charCodeAt(0);
  // go-yaml's hint table: only these first characters can give a non-string.
  if (c >= 128 || HINT[c] === 0) return STRING;
  if (c === 0x3c /* < */) return s === '<<' ? new MergeKey() : STRING;
  const isDigit = c >= 0x30 && c <= 0x39;
  if ((isDigit || c === 0x2d) && SHORT_DECIMAL.test(s)) {
    const n = Number(s);
    return n === 0 ? 0 : n;
  }
  if (s.length <= WORD_MAX) {
    const word = WORDS.get(s);
    if (word !== undefined) return word;
  }
  if (c === 0x2e /* . */) {
    if (!DOT_FLOAT.test(s)) return STRING;
    return finiteFloat(Number(s.includes('_') ? s.replaceAll('_', '') : s));
  }
  if (!isDigit && c !== 0x2b && c !== 0x2d) return STRING;
  const plain = s.includes('_') ? s.replaceAll('_', '') : s;
  const asInt = parseGoInt(plain);
  if (asInt !== STRING) return asInt;
  if (GO_FLOAT.test(plain)) return finiteFloat(Number(plain));
  // go-yaml's last try: ParseInt(plain[2:], 2) after a `0b` prefix, which takes a sign there
  // (`0b+1` is 1, `0b_-1` is -1). Unsigned digits were taken above (Go's base 0 reads `0b`).
  const signedBinary = /^0b([-+])([01]+)$/.exec(plain);
  if (signedBinary !== null) {
    const v = BigInt(`0b${signedBinary[2]}`);
    return int64Result(signedBinary[1] === '-' ? -v : v, false);
  }
  return STRING;
}

/** Go's ParseFloat fails on overflow (the scalar then stays a string); underflow gives 0. */
function finiteFloat(v: number): unknown {
  return Number.isFinite(v) ? new FloatScalar(v) : STRING;
}

function parseGoInt(plain: string): unknown {
  const m = GO_INT.exec(plain);
  if (m === null) return STRING;
  const [, sign, hex, bin, oct, octLegacy, dec] = m;
  // Short decimals are the common case: no BigInt needed.
  if (dec !== undefined && dec.length <= 15) return sign === '-' ? -Number(dec) : Number(dec);
  let magnitude: bigint;
  if (hex !== undefined) magnitude = BigInt(`0x${hex}`);
  else if (bin !== undefined) magnitude = BigInt(`0b${bin}`);
  else if (oct !== undefined) magnitude = BigInt(`0o${oct}`);
  else if (octLegacy !== undefined) magnitude = octLegacy.length > 1 ? BigInt(`0o${octLegacy.slice(1)}`) : 0n;
  else magnitude = BigInt(dec as string);
  return int64Result(sign === '-' ? -magnitude : magnitude, sign === '');
}

/** ParseInt (int64), then ParseUint (uint64, which takes no sign: `unsigned`), else not an integer. */
function int64Result(v: bigint, unsigned: boolean): unknown {
  const fits = (v >= INT64_MIN && v <= INT64_MAX) || (unsigned && v <= UINT64_MAX);
  if (!fits) return STRING;
  const n = Number(v);
  if (Number.isSafeInteger(n)) return n === 0 ? 0 : n;
  return new BigIntScalar(n, v.toString());
}

/**
 * The key text sigs.k8s.io/yaml gives a float key: `strconv.FormatFloat(f, 'g', -1, 32)`
 * (shortest float32 digits, %e when the exponent is < -4 or >= 6), with ±Inf/NaN spelled as YAML.
 */
export function goFloatKey(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  const x = Math.fround(f);
  if (x === Infinity) return '.inf';
  if (x === -Infinity) return '-.inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  let exp = 0;
  let digits = '';
  for (let p = 1; p <= 9; p++) {
    const e = Math.abs(x).toExponential(p - 1);
    if (Math.fround(Number(e)) === Math.abs(x)) {
      const [mant, ex] = e.split('e');
      digits = mant.replace('.', '');
      exp = Number(ex);
      break;
    }
  }
  const neg = x < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const absExp = Math.abs(exp);
    return `${neg}${mant}e${exp < 0 ? '-' : '+'}${absExp < 10 ? '0' : ''}${absExp}`;
  }
  const point = exp + 1; // digits before the decimal point
  if (point <= 0) return `${neg}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${neg}${digits}${'0'.repeat(point - digits.length)}`;
  return `${neg}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Bool and null words of YAML 1.1 and 1.2 (and go-yaml): a plain string equal to one is misread. */
const RESERVED_WORDS = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'true',
  'True',
  'TRUE',
  'false',
  'False',
  'FALSE',
  'on',
  'On',
  'ON',
  'off',
  'Off',
  'OFF',
  'null',
  'Null',
  'NULL',
  '~',
  '<<',
  '=',
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
]);
/** Anything number-like in some reader: digits with base prefixes, `_`, `.`, exponents, sexagesimal `:`. */
const NUMBERISH = /^[-+]?\.?[0-9][0-9a-fA-FxXoObB_.:+-]*$/;
/** YAML 1.1 floats as the `yaml` package reads them: even `.`, `e0` and `-.e5` are (NaN) floats there. */
const YAML11_FLOAT = /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?$/;
/** YAML 1.1 timestamps (read as dates by PyYAML, the `yaml` package in 1.1 mode, js-yaml). */
const TIMESTAMP_PREFIX = /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:$|[Tt \t])/;

/**
 * Whether a string written plain could be read back as something other than that string by
 * go-yaml v2, a YAML 1.1 reader (bools, sexagesimal, timestamps, `=`/`<<`) or a YAML 1.2 core
 * reader. Deliberately over-approximates: quoting a string that did not need it is harmless.
 */
export function misreadAsNonString(s: string): boolean {
  if (s === '') return true;
  if (RESERVED_WORDS.has(s)) return true;
  const c = s.charCodeAt(0);
  const numberStart = (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
  if (!numberStart && c !== 0x65 && c !== 0x45 /* e E */) return false;
  if (YAML11_FLOAT.test(s) && s !== '-' && s !== '+') return true;
  if (!numberStart) return false;
  if (NUMBERISH.test(s) || TIMESTAMP_PREFIX.test(s)) return true;
  return resolvePlain(s) !== STRING;
}
