/**
 * @module admission/json-guard
 * Parse an untrusted request body as JSON without the traps: invalid UTF-8 is refused rather
 * than silently replaced, and nesting depth is bounded *before* parsing. V8's JSON.parse is
 * iterative and happily builds 100,000 nested arrays, but every recursive walk after it (clone,
 * merge, stringify, logging) would then die with a RangeError; one linear byte scan here keeps
 * that out of the process. `__proto__` keys need no work: JSON.parse defines them as plain own
 * data properties, and nothing downstream copies with assignment.
 */
import { isUtf8 } from 'node:buffer';

/**
 * Far above any real Pod (affinity rules or managedFields reach a few dozen levels) and far
 * below what recursive code can take on Node's default stack. Go's decoder allows 10,000.
 */
const DEFAULT_MAX_DEPTH = 1000;

export type GuardedJson = { ok: true; value: unknown } | { ok: false; message: string };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;

/**
 * True when there are at most `max` opening brackets in total (inside strings or not), so no
 * value can be nested deeper than `max`. String `indexOf` hops are native and skip whole runs;
 * a typical Pod review has a few dozen brackets (a big one, with managedFields, over 1,000).
 */
function fewOpeners(text: string, max: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > max) return false;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > max) return false;
  return true;
}

/** Outside strings, the bytes that matter: 1 a quote, 2 an opening bracket, 3 a closing one. */
const OUTSIDE = new Uint8Array(256);
OUTSIDE[QUOTE] = 1;
OUTSIDE[OPEN_ARRAY] = OUTSIDE[OPEN_OBJECT] = 2;
OUTSIDE[0x5d] = OUTSIDE[0x7d] = 3;

/**
 * Non-zero when one of the 4 bytes of `w` is a quote or a backslash (the classic "has a zero
 * byte" test on `w` xor the repeated byte). Strings are most of a review's bytes, and inside
 * one only these two bytes matter, so the scan skips string contents 4 bytes at a time.
 */
function quoteOrBackslash(w: number): number {
  const q = w ^ 0x22222222;
  const b = w ^ 0x5c5c5c5c;
  return (((q - 0x01010101) & ~q) | ((b - 0x01010101) & ~b)) & 0x80808080;
}

/**
 * True when some value in `bytes` is nested deeper than `max` (brackets inside strings do not
 * count). Inside a string a backslash skips the next byte, whatever it is; outside, closing
 * brackets count down even below zero (the input may not be JSON). String contents are skipped
 * 4 bytes at a time. The byte-at-a-time reference (test/support/json-guard-reference.ts) is what
 * json-guard.test.ts holds it to.
 */
export function exceedsDepth(bytes: Uint8Array, max: number): boolean {
  const n = bytes.length;
  // 4-byte words from the first aligned byte (`head`) to `wordsEnd`, for the skip inside strings.
  const head = (4 - (bytes.byteOffset & 3)) & 3;
  const words = n > head ? new Int32Array(bytes.buffer, bytes.byteOffset + head, (n - head) >> 2) : new Int32Array(0);
  const wordsEnd = head + words.length * 4;
  let depth = 0;
  let i = 0;
  while (i < n) {
    const kind = OUTSIDE[bytes[i++]];
    if (kind === 0) continue;
    if (kind === 1) {
      // A string: find its closing quote.
      for (;;) {
        if (i >= head && ((i - head) & 3) === 0) {
          while (i + 4 <= wordsEnd && quoteOrBackslash(words[(i - head) >> 2]) === 0) i += 4;
        }
        if (i >= n) return false;
        const c = bytes[i++];
        if (c === QUOTE) break;
        if (c === BACKSLASH) i++;
      }
    } else if (kind === 2) {
      if (++depth > max) return true;
    } else {
      depth--;
    }
  }
  return false;
}

export function parseJsonGuarded(body: Buffer, maxDepth: number = DEFAULT_MAX_DEPTH): GuardedJson {
  if (body.length === 0) return { ok: false, message: 'request body is empty: send an AdmissionReview as JSON' };
  if (!isUtf8(body)) return { ok: false, message: 'request body is not valid UTF-8' };
  const text = body.toString('utf8');
  // Past 16 KiB, counting brackets (a Pod review has one every 30 bytes or so) costs more than
  // the exact scan it would save, and rarely saves it.
  if ((body.length > 16384 || !fewOpeners(text, maxDepth)) && exceedsDepth(body, maxDepth)) {
    return { ok: false, message: `request body is nested too deeply (more than ${maxDepth} levels)` };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    // V8's message quotes a short excerpt of the input; clip it, the response is JSON-escaped.
    const detail = err instanceof Error ? err.message.slice(0, 160) : 'parse error';
    return { ok: false, message: `request body is not valid JSON: ${detail}` };
  }
}
