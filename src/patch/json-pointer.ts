/**
 * @module patch/json-pointer
 * RFC 6901 JSON Pointers: the paths inside RFC 6902 patch operations. Annotation keys such as
 * `sidecar.istio.io/status` contain `/`, and keys may contain `~`, so every token is escaped
 * (`~` -> `~0`, `/` -> `~1`) on the way out and unescaped on the way in.
 */
import { InjectionError } from '../errors.js';

const NEEDS_ESCAPE = /[~/]/;

/** Escape one reference token: `~` becomes `~0`, then `/` becomes `~1` (this order is the RFC's). */
export function escapePointerToken(token: string): string {
  // Fast path: almost every Kubernetes key has neither character.
  if (!NEEDS_ESCAPE.test(token)) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Inverse of {@link escapePointerToken}. Throws on `~` not followed by `0` or `1` (RFC 6901 §3). */
export function unescapePointerToken(token: string, pointer = token): string {
  if (!token.includes('~')) return token;
  if (/~(?![01])/.test(token)) {
    throw new InjectionError('SI_PATCH', `invalid JSON pointer ${JSON.stringify(pointer)}: "~" must be followed by "0" or "1"`, {
      details: { pointer },
    });
  }
  // ~1 first, then ~0, so that "~01" decodes to "~1" and not to "/".
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Build a pointer from unescaped tokens; `[]` is the whole document (`""`). */
export function formatPointer(tokens: readonly string[]): string {
  let out = '';
  for (const t of tokens) out += '/' + escapePointerToken(t);
  return out;
}

/** Split a pointer into unescaped tokens. `""` is the whole document; anything else must start with `/`. */
export function parsePointer(pointer: string): string[] {
  if (typeof pointer !== 'string') {
    throw new InjectionError('SI_PATCH', `invalid JSON pointer: expected a string, got ${typeof pointer}`);
  }
  if (pointer === '') return [];
  if (pointer[0] !== '/') {
    throw new InjectionError('SI_PATCH', `invalid JSON pointer ${JSON.stringify(pointer)}: it must be empty or start with "/"`, {
      details: { pointer },
    });
  }
  const raw = pointer.slice(1).split('/');
  for (let i = 0; i < raw.length; i++) raw[i] = unescapePointerToken(raw[i], pointer);
  return raw;
}
