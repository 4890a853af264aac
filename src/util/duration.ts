/**
 * @module util/duration
 * Go's `time.ParseDuration`, exactly: the one duration grammar of the product (`1m30s`, `1.5h`,
 * `300ms`, `2h45m`, `-1.5s`, `0`), as kubectl, Helm and Istio users write durations. The same
 * algorithm as Go's (uint64 accumulation with Go's overflow rules, the float64 step for
 * fractions), so a value is accepted or refused exactly where Go accepts or refuses it; a test
 * compares the two on a corpus and on random strings (util/duration.test.ts).
 */

const NS = new Map<string, bigint>([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n], // MICRO SIGN
  ['\u03bcs', 1_000n], // GREEK SMALL LETTER MU
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

const LIMIT = 1n << 63n;
const MAX_INT64 = LIMIT - 1n;

export type DurationResult = { ok: true; nanos: bigint } | { ok: false; error: string };

const isDigit = (c: string): boolean => c >= '0' && c <= '9';

/** `time.ParseDuration(text)`: nanoseconds, or Go's error text (`time: invalid duration "x"`). */
export function parseDuration(text: string): DurationResult {
  const orig = goQuote(text);
  const invalid = (): DurationResult => ({ ok: false, error: `time: invalid duration ${orig}` });
  let s = text;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return { ok: true, nanos: 0n };
  if (s === '') return invalid();
  let d = 0n;
  let i = 0;
  while (i < s.length) {
    if (!(s[i] === '.' || isDigit(s[i]))) return invalid();
    // Leading integer: an overflow past 1<<63 is an error, as in Go's leadingInt.
    let v = 0n;
    const intStart = i;
    for (; i < s.length && isDigit(s[i]); i++) {
      if (v > LIMIT / 10n) return invalid();
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > LIMIT) return invalid();
    }
    const pre = i !== intStart;
    // Fraction: digits past int64 precision are dropped, not an error (Go's leadingFraction).
    let f = 0n;
    let scale = 1;
    let post = false;
    if (i < s.length && s[i] === '.') {
      i++;
      const fracStart = i;
      let overflow = false;
      for (; i < s.length && isDigit(s[i]); i++) {
        if (overflow) continue;
        if (f > MAX_INT64 / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(s.charCodeAt(i) - 48);
        if (y > LIMIT) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = i !== fracStart;
    }
    if (!pre && !post) return invalid();
    const unitStart = i;
    while (i < s.length && s[i] !== '.' && !isDigit(s[i])) i++;
    if (i === unitStart) return { ok: false, error: `time: missing unit in duration ${orig}` };
    const u = s.slice(unitStart, i);
    const unit = NS.get(u);
    if (unit === undefined) return { ok: false, error: `time: unknown unit ${goQuote(u)} in duration ${orig}` };
    if (v > LIMIT / unit) return invalid();
    v *= unit;
    if (f > 0n) {
      // Go: uint64(float64(f) * (float64(unit) / scale)), float64 for nanosecond-accurate hours.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > LIMIT) return invalid();
    }
    d += v;
    if (d > LIMIT) return invalid();
  }
  if (neg) return { ok: true, nanos: -d };
  if (d > MAX_INT64) return invalid();
  return { ok: true, nanos: d };
}

/** A Go duration, or a bare non-negative number of seconds, in milliseconds; undefined if neither. */
export function durationMs(value: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const d = parseDuration(value);
  if (!d.ok) return undefined;
  return Number(d.nanos) / 1e6;
}

const DAY_MS = 86_400_000;

/**
 * A certificate lifetime in milliseconds: a whole number of days (`90d`, which Go lacks and
 * lifetimes are usually written in) or a duration as durationMs takes it; undefined if neither.
 */
export function lifetimeMs(value: string): number | undefined {
  const days = /^(\d+)d$/.exec(value);
  return days !== null ? Number(days[1]) * DAY_MS : durationMs(value);
}

/** The time package's quote(): non-ASCII and control bytes as `\xNN`, `"` and `\` escaped. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (c >= 0x80 || c < 0x20) for (const b of Buffer.from(ch, 'utf8')) out += `\\x${b.toString(16).padStart(2, '0')}`;
    else out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
  }
  return `${out}"`;
}

/** Go's Duration.String() for whole milliseconds and up (`1m30s`, `500ms`, `0s`): defaults in help text. */
export function formatDurationMs(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  let rest = ms / 1000;
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  rest -= m * 60;
  const secs = `${Number(rest.toFixed(3))}s`;
  if (h > 0) return `${h}h${m}m${secs}`;
  if (m > 0) return `${m}m${secs}`;
  return secs;
}
