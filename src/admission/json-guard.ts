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
export const DEFAULT_MAX_DEPTH = 1000;

export type GuardedJson = { ok: true; value: unknown } | { ok: false; message: string };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * True when there are at most `max` opening brackets in total (inside strings or not), so no
 * value can be nested deeper than `max`. Native `indexOf` hops make this several times cheaper
 * than the exact scan; a typical Pod review has a few dozen brackets.
 */
function fewOpeners(bytes: Buffer, max: number): boolean {
  let count = 0;
  for (let i = bytes.indexOf(OPEN_OBJECT); i !== -1; i = bytes.indexOf(OPEN_OBJECT, i + 1)) if (++count > max) return false;
  for (let i = bytes.indexOf(OPEN_ARRAY); i !== -1; i = bytes.indexOf(OPEN_ARRAY, i + 1)) if (++count > max) return false;
  return true;
}

/** True when some value in `bytes` is nested deeper than `max` (brackets inside strings do not count). */
export function exceedsDepth(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

export function parseJsonGuarded(body: Buffer, maxDepth: number = DEFAULT_MAX_DEPTH): GuardedJson {
  if (body.length === 0) return { ok: false, message: 'request body is empty: send an AdmissionReview as JSON' };
  if (!isUtf8(body)) return { ok: false, message: 'request body is not valid UTF-8' };
  if (!fewOpeners(body, maxDepth) && exceedsDepth(body, maxDepth)) {
    return { ok: false, message: `request body is nested too deeply (more than ${maxDepth} levels)` };
  }
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown };
  } catch (err) {
    // V8's message quotes a short excerpt of the input; clip it, the response is JSON-escaped.
    const detail = err instanceof Error ? err.message.slice(0, 160) : 'parse error';
    return { ok: false, message: `request body is not valid JSON: ${detail}` };
  }
}
