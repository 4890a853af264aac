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
