/**
 * @module test/support/json-guard-reference
 * The webhook's JSON guard as it was before the word-at-a-time depth scan (byte
 * by byte, brackets counted by Buffer hops): the reference the current guard must agree with on
 * every input (json-guard.test.ts).
 */
import { isUtf8 } from 'node:buffer';
import type { GuardedJson } from '../../src/admission/json-guard.js';

export function referenceExceedsDepth(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

function referenceFewOpeners(bytes: Buffer, max: number): boolean {
  let count = 0;
  for (let i = bytes.indexOf(0x7b); i !== -1; i = bytes.indexOf(0x7b, i + 1)) if (++count > max) return false;
  for (let i = bytes.indexOf(0x5b); i !== -1; i = bytes.indexOf(0x5b, i + 1)) if (++count > max) return false;
  return true;
}

export function referenceGuarded(body: Buffer, maxDepth = 1000): GuardedJson {
  if (body.length === 0) return { ok: false, message: 'request body is empty: send an AdmissionReview as JSON' };
  if (!isUtf8(body)) return { ok: false, message: 'request body is not valid UTF-8' };
  if (!referenceFewOpeners(body, maxDepth) && referenceExceedsDepth(body, maxDepth)) {
    return { ok: false, message: `request body is nested too deeply (more than ${maxDepth} levels)` };
  }
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown };
  } catch (err) {
    const detail = err instanceof Error ? err.message.slice(0, 160) : 'parse error';
    return { ok: false, message: `request body is not valid JSON: ${detail}` };
  }
}
