/**
 * @module template/funcs/encoding
 * Base64 and checksums. `b64dec` follows Go's encoding/base64 (StdEncoding) exactly, including
 * its error text: Sprig returns the error message *as the result* ("illegal base64 data at input
 * byte 4") rather than failing the template.
 */
import { createHash } from 'node:crypto';
import { goFunc, type FuncMap } from '../value.js';
import { decodeUtf8, utf8Bytes } from './utf8.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

const PAD = 0x3d;
const isNewline = (b: number): boolean => b === 0x0a || b === 0x0d;

class CorruptInput extends Error {
  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${offset}`);
  }
}

/** base64.StdEncoding.DecodeString, quantum by quantum as Go's decoder does. */
export function goBase64Decode(src: Uint8Array): Uint8Array {
  const out: number[] = [];
  let si = 0;
  for (;;) {
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let trailingError: CorruptInput | null = null;
    let done = false;
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) {
          done = true;
          dlen = 0;
          break;
        }
        throw new CorruptInput(si - j);
      }
      const c = src[si++];
      const v = DECODE[c];
      if (v >= 0) {
        dbuf[j] = v;
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== PAD) throw new CorruptInput(si - 1);
      if (j === 0 || j === 1) throw new CorruptInput(si - 1);
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) throw new CorruptInput(src.length);
        if (src[si] !== PAD) throw new CorruptInput(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      if (si < src.length) trailingError = new CorruptInput(si);
      dlen = j;
      break;
    }
    if (done) break;
    const val = (dbuf[0] << 18) | (dbuf[1] << 12) | (dbuf[2] << 6) | dbuf[3];
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    out.push(...bytes.slice(0, dlen - 1));
    if (trailingError) throw trailingError;
    if (dlen < 4) break;
  }
  return Uint8Array.from(out);
}

function b64dec(v: string): string {
  try {
    return decodeUtf8(goBase64Decode(utf8Bytes(v)));
  } catch (e) {
    if (e instanceof CorruptInput) return e.message;
    throw e;
  }
}

function adler32(s: string): string {
  const MOD = 65521;
  let a = 1;
  let b = 0;
  for (const byte of utf8Bytes(s)) {
    a = (a + byte) % MOD;
    b = (b + a) % MOD;
  }
  return String(((b << 16) | a) >>> 0);
}

const hash =
  (alg: string) =>
  (s: string): string =>
    createHash(alg).update(s, 'utf8').digest('hex');

export const encodingFuncs: FuncMap = {
  b64enc: goFunc(['string'], (v: string) => Buffer.from(v, 'utf8').toString('base64')),
  b64dec: goFunc(['string'], b64dec),
  sha256sum: goFunc(['string'], hash('sha256')),
  sha1sum: goFunc(['string'], hash('sha1')),
  adler32sum: goFunc(['string'], adler32),
};
