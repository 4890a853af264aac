/**
 * @module admission/responses
 * Pure constructors for admission responses (controller-runtime's style): every answer is built
 * here, every constructor takes the uid first, so no code path can forget it. Warnings are
 * normalised to what the apiserver passes on intact: no "Warning:" prefix, printable, each
 * under 120 characters, a bounded total.
 */
import type { JsonPatchOperation } from '../patch/types.js';
import { patchJson } from '../patch/index.js';
import type { AdmissionResponse, AdmissionVersion, ResultStatus } from './types.js';

export const MAX_WARNING_LENGTH = 120;
const MAX_WARNINGS = 10;
/** The apiserver drops warnings past 4,096 characters in total, across all webhooks. */
export const MAX_WARNINGS_TOTAL = 1024;
/** Long enough for a useful reason, short enough for `kubectl` output and events. */
const MAX_MESSAGE_LENGTH = 1024;

// C0 controls, DEL, C1 controls: never valid in an HTTP Warning header.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;

function clipText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One warning as the apiserver wants it, or undefined when nothing printable is left. */
function normalizeWarning(text: string): string | undefined {
  const cleaned = text
    .replace(CONTROL, ' ')
    .replace(/^\s*warning:\s*/i, '')
    .trim();
  return cleaned.length === 0 ? undefined : clipText(cleaned, MAX_WARNING_LENGTH);
}

/** Clean, dedupe and cap a list of warnings; undefined when there are none (field omitted). */
export function normalizeWarnings(list: readonly string[] | undefined): string[] | undefined {
  if (list === undefined || list.length === 0) return undefined;
  const out: string[] = [];
  let total = 0;
  for (const raw of list) {
    if (out.length >= MAX_WARNINGS) break;
    const w = normalizeWarning(String(raw));
    if (w === undefined || out.includes(w)) continue;
    if (total + w.length > MAX_WARNINGS_TOTAL) break;
    total += w.length;
    out.push(w);
  }
  return out.length === 0 ? undefined : out;
}

function withWarnings(response: AdmissionResponse, warnings: readonly string[] | undefined): AdmissionResponse {
  const normalized = normalizeWarnings(warnings);
  if (normalized !== undefined) response.warnings = normalized;
  return response;
}

/** Let the object through unmodified. */
export function allowed(uid: string, warnings?: readonly string[]): AdmissionResponse {
  return withWarnings({ uid, allowed: true }, warnings);
}

/** Let the object through with a JSON patch; an empty patch is the same as `allowed`. */
export function patched(uid: string, patch: readonly JsonPatchOperation[], warnings?: readonly string[]): AdmissionResponse {
  if (patch.length === 0) return allowed(uid, warnings);
  return withWarnings({ uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(patchJson(patch)).toString('base64') }, warnings);
}

function failure(code: number, reason: string, message: string): ResultStatus {
  return { status: 'Failure', code, reason, message: clipText(message, MAX_MESSAGE_LENGTH) };
}

/**
 * Refuse the object. The apiserver shows `admission webhook "NAME" denied the request: MESSAGE`
 * and answers the client with `code` (403 when 0).
 */
export function denied(uid: string, message: string, code = 403, reason = 'Forbidden', warnings?: readonly string[]): AdmissionResponse {
  return withWarnings({ uid, allowed: false, status: failure(code, reason, message) }, warnings);
}

/** An internal failure, carried in an HTTP 500 so the webhook's failurePolicy decides. */
export function errored(uid: string, code: number, message: string): AdmissionResponse {
  return { uid, allowed: false, status: failure(code, code >= 500 ? 'InternalError' : 'BadRequest', message) };
}

/** The wire form: same apiVersion as the request, kind AdmissionReview. */
export function serializeReview(apiVersion: AdmissionVersion, response: AdmissionResponse): string {
  return JSON.stringify({ apiVersion, kind: 'AdmissionReview', response });
}

/** Body for answers that are not AdmissionReviews (4xx on malformed HTTP): a metav1.Status. */
export function serializeStatus(code: number, reason: string, message: string): string {
  return JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: clipText(message, MAX_MESSAGE_LENGTH),
    reason,
    code,
  });
}
