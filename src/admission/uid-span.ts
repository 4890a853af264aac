/**
 * @module admission/uid-span
 * Whether a span of an AdmissionReview's raw bytes is the whole content of one JSON string. The
 * result cache cuts the uid's bytes out of the body to key replicas of one pod; that is sound only
 * if the cut is a whole string (then two bodies with one key have the same structure and differ
 * only inside that string, so JSON.parse gives them the same `request.uid` member: either that
 * string, whose content is all that differs, or another one, whose equal decoded value forces equal
 * cut bytes). A cut that crosses string boundaries (a uid holding quotes or braces, sent escaped
 * in its own field, matching raw JSON elsewhere) can change the structure: two different pods,
 * one key.
 *
 * The body was accepted by JSON.parse, so every quote outside a string opens one: hopping from
 * string to string with native `indexOf` finds them all. Only the bytes before the cut are read.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Index just past the closing quote of the string whose opening quote is at `i`. */
function skipString(b: Uint8Array & { indexOf(v: number, from: number): number }, i: number): number {
  let q = b.indexOf(QUOTE, i + 1);
  while (q !== -1) {
    let slashes = 0;
    for (let k = q - 1; b[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    q = b.indexOf(QUOTE, q + 1);
  }
  return b.length;
}

/** True when bytes [start, end) of the valid JSON text `body` are exactly one string's content. */
export function isWholeString(body: Buffer, start: number, end: number): boolean {
  for (let q = body.indexOf(QUOTE); q !== -1 && q < start; q = body.indexOf(QUOTE, skipString(body, q))) {
    if (q + 1 === start) return skipString(body, q) - 1 === end;
  }
  return false;
}

const SPACE = 0x20;
const TILDE = 0x7e;
const SLASH = 0x2f;
const ESCAPE_U = Buffer.from('\\u', 'latin1');

/**
 * The end of the plain uid whose first byte is at `at`: the next quote, when the bytes up to it
 * are 1 to `max` printable ASCII characters without a backslash (so the string has no escape and
 * its bytes are its value) and a quote opens it. -1 otherwise. Reads only those bytes.
 */
export function plainStringEnd(body: Buffer, at: number, max: number): number {
  if (at <= 0 || at >= body.length || body[at - 1] !== QUOTE) return -1;
  const end = body.indexOf(QUOTE, at);
  if (end <= at || end - at > max) return -1;
  for (let i = at; i < end; i++) {
    const c = body[i];
    if (c < SPACE || c > TILDE || c === BACKSLASH) return -1;
  }
  return end;
}

/**
 * True when `uid` (the review's decoded request.uid) can only be written one way in `body`: it is
 * printable ASCII without `"`, `\` and `/`, and no `\uXXXX` in the body decodes to one of its
 * characters. Then every string of the body whose value is the uid is written plainly, so when
 * the uid's bytes occur once, as one whole string, that string IS the review's request.uid (not
 * a look-alike next to an escaped request.uid), and its offset can be trusted for other bodies
 * with the same bytes around it (result-cache.ts, the hit that does not parse).
 */
export function uidWrittenPlainly(body: Buffer, uid: string): boolean {
  for (let i = 0; i < uid.length; i++) {
    const c = uid.charCodeAt(i);
    // `\"`, `\\` and `\/` decode to these; `\b\f\n\r\t` to controls; anything else needs `\u`.
    if (c < SPACE || c > TILDE || c === QUOTE || c === BACKSLASH || c === SLASH) return false;
  }
  for (let i = body.indexOf(ESCAPE_U); i !== -1; i = body.indexOf(ESCAPE_U, i + 2)) {
    const code = Number.parseInt(body.toString('latin1', i + 2, i + 6), 16);
    // An escaped backslash before a literal `u` is counted too: conservative, never unsound.
    if (Number.isInteger(code) && code <= TILDE && uid.includes(String.fromCharCode(code))) return false;
  }
  return true;
}
