/**
 * @module test/support/soak-requests
 * Valid requests for long runs: review bodies whose uid is rewritten per request (same length,
 * in place on a copy), so every answer can be matched to its own request, with the patch
 * expectation of the fixture (injected, skipped, already injected).
 */
import { validRequest } from './hostile-requests.js';
import type { LoadRequest } from './load-client.js';

export interface ReviewTemplate {
  label: string;
  body: Buffer;
  /** Does the answer carry a patch? undefined: either. */
  patch?: boolean;
}

/** A maker of valid requests from `template`; the uid inside the body gets a per-request value. */
export function uniqueUidRequests(template: ReviewTemplate): (i: number) => LoadRequest {
  const text = template.body.toString('utf8');
  const m = /"uid":"([^"]{20,64})"/.exec(text);
  if (!m) return () => validRequest(template.label, template.body, JSON.parse(text).request.uid as string, template.patch);
  const at = Buffer.byteLength(text.slice(0, m.index + 7));
  const len = Buffer.byteLength(m[1]);
  let n = 0;
  return () => {
    const uid = `soak-${(n++).toString(36).padStart(len - 5, '0')}`.slice(-len);
    const body = Buffer.from(template.body);
    body.write(uid, at, 'utf8');
    return validRequest(template.label, body, uid, template.patch);
  };
}
