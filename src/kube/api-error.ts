/**
 * @module kube/api-error
 * The one error of a Kubernetes API call. It is a ClusterError (code SI_CLUSTER_REQUEST in the
 * catalogue) that carries the HTTP status, the API's `Status.reason` and `Status.message`, so a
 * caller can tell a conflict from an outage without parsing text. `status` is undefined when no
 * HTTP answer arrived (network error, deadline, abort, answer too large).
 */
import { ClusterError } from '../errors.js';
import { isPlainObject } from '../util/json.js';
import { caBundleRules, grantText } from './rbac-rules.js';

export class KubeApiError extends ClusterError {
  readonly status: number | undefined;
  /** `Status.reason`, e.g. `Conflict`, `NotFound`, `Forbidden`, `Expired`. */
  readonly reason: string | undefined;
  /** `Status.message`. */
  readonly apiMessage: string | undefined;

  constructor(message: string, info: { status?: number; reason?: string; apiMessage?: string; method: string; path: string; cause?: unknown }) {
    super('SI_CLUSTER_REQUEST', message, { cause: info.cause, details: { status: info.status, reason: info.reason, method: info.method, path: info.path } });
    this.status = info.status;
    this.reason = info.reason;
    this.apiMessage = info.apiMessage;
  }
}

/** The error of a non-2xx answer, from its body (a `Status` object, or any text). */
export function answerError(method: string, path: string, status: number, text: string): KubeApiError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (a proxy's HTML page): the text is the message
  }
  const apiStatus = isPlainObject(parsed) && parsed.kind === 'Status' ? parsed : undefined;
  const reason = typeof apiStatus?.reason === 'string' ? apiStatus.reason : undefined;
  const apiMessage = typeof apiStatus?.message === 'string' ? apiStatus.message : text.slice(0, 500) || undefined;
  return new KubeApiError(`${method} ${pathOnly(path)}: ${status}${reason ? ` ${reason}` : ''}${apiMessage ? `: ${apiMessage}` : ''}${hint(status, path)}`, {
    method,
    path,
    status,
    reason,
    apiMessage,
  });
}

/** The error of a call that got no (complete) answer. */
export function noAnswerError(method: string, path: string, why: string, cause?: unknown): KubeApiError {
  return new KubeApiError(`${method} ${pathOnly(path)}: ${why}`, { method, path, cause });
}

const pathOnly = (path: string): string => path.replace(/\?.*$/, '');

function hint(status: number, path: string): string {
  if (status === 401) return ' (the token was refused, or the client certificate: a token may have expired or been rotated)';
  const mwc = /\/mutatingwebhookconfigurations\/([^/?]+)/.exec(path);
  if (status === 403 && mwc !== null) return ` (grant ${grantText(caBundleRules(decodeURIComponent(mwc[1])))})`;
  return '';
}

/** HTTP status of a failed call; undefined when no answer arrived or the error is not a call's. */
export function apiStatus(err: unknown): number | undefined {
  if (err instanceof KubeApiError) return err.status;
  if (err instanceof ClusterError && typeof err.details?.status === 'number') return err.details.status;
  return undefined;
}

/** A lost optimistic-concurrency race: 409, or 422 from a failed JSON-patch `test`. */
export function isConflict(err: unknown): boolean {
  if (!(err instanceof KubeApiError)) return false;
  return err.status === 409 || (err.status === 422 && /test(ing value .* failed| failed)/i.test(err.apiMessage ?? ''));
}
