/**
 * @module admission/handler
 * One admission request, bytes in, answer out: decode the review, decide whether the core runs
 * at all (only Pod CREATE without subresource), call the injection core, and turn its result or
 * its failure into a response built by the pure constructors. Synchronous on purpose (the hot
 * path awaits nothing) and total: it never throws. A malformed review is an HTTP 400; a pod
 * that cannot be processed is an HTTP 200 answer per `--on-error` (deny, or allow with a
 * warning), never a half patch; a bug in this file is an HTTP 500 with the uid and a logged
 * stack, which leaves the decision to the webhook's failurePolicy.
 */
import { performance } from 'node:perf_hooks';
import { AdmissionError, InjectorError, toInjectorError } from '../errors.js';
import type { PodLimits } from '../inject/limits.js';
import type { StatusKeyring } from '../inject/status-mac.js';
import type { InjectionContext, InjectionResult } from '../inject/types.js';
import type { JsonPatchOperation } from '../patch/types.js';
import type { Logger } from '../telemetry/log.js';
import { clip, silentLogger } from '../telemetry/log.js';
import type { Outcome, WebhookMetrics } from '../telemetry/metrics.js';
import { isPlainObject } from '../util/json.js';
import { budgetMs, DEFAULT_DEADLINE, pathParamsFor, type DeadlinePolicy } from './request-params.js';
import { allowed, denied, errored, patched, serializeReview, serializeStatus } from './responses.js';
import { decodeReview } from './review.js';
import type { AdmissionRequest, AdmissionResponse, AdmissionVersion } from './types.js';
import type { OnError } from './server-defaults.js';
import type { LoadedConfig } from '../config/types.js';

/**
 * The injection core's signature (`injectPod`). Passed in rather than imported, so the server
 * modules load without the core (serve imports it when it runs) and tests can observe calls.
 */
export type InjectFn = (pod: unknown, ctx: InjectionContext, config: LoadedConfig) => InjectionResult;

export interface HandlerOptions {
  inject: InjectFn;
  /** The current config; read once per request, so a reload never mixes two configs. */
  getConfig: () => LoadedConfig;
  onError?: OnError;
  metrics?: WebhookMetrics;
  logger?: Logger;
  deadline?: DeadlinePolicy;
  /** JSON nesting limit for the request body. */
  maxDepth?: number;
  /** Per-request limits of the pod (inject/limits.ts); absent: none. */
  podLimits?: Readonly<PodLimits>;
  /** The status keys (signing and verifying the status annotation); absent: unsigned, all trusted. */
  statusKeys?: StatusKeyring;
  /** Clock in milliseconds (performance.now); tests move it. */
  now?: () => number;
  /** Told when a pod was refused or admitted without its sidecar (not for dry runs); must not throw. */
  onInjectionFailed?: (failure: InjectionFailure) => void;
}

export interface InjectionFailure {
  namespace: string;
  /** The pod as received (it has no name yet when it has a generateName). */
  object: unknown;
  code: string;
  message: string;
  action: 'denied' | 'allowed';
}

export interface AdmissionCall {
  body: Buffer;
  /** URL path without the query, e.g. `/inject` or `/inject/cluster/c1`. */
  path: string;
  /** Raw query string without `?` (`timeout=10s`). */
  query: string;
  /** `now()` when the request's headers arrived; the deadline counts from here. */
  startedAt: number;
}

export interface AdmissionReply {
  status: number;
  /** JSON text: an AdmissionReview, or a metav1.Status for HTTP errors. */
  body: string;
  outcome: Outcome;
}

export type AdmissionHandler = (call: AdmissionCall) => AdmissionReply;

/** Skip reasons the pod's author may not expect; they become admission warnings. */
const WARN_ON_SKIP = new Set<string>(['host-network', 'policy-invalid', 'never-inject-selector']);

const STATUS_REASON: Record<number, string> = {
  400: 'BadRequest',
  403: 'Forbidden',
  413: 'RequestEntityTooLarge',
  500: 'InternalError',
  502: 'InternalError',
  504: 'Timeout',
};

function podName(object: unknown): string | undefined {
  if (!isPlainObject(object) || !isPlainObject(object.metadata)) return undefined;
  const { name, generateName } = object.metadata;
  return clip(typeof name === 'string' && name.length > 0 ? name : generateName, 253);
}

function podNamespace(object: Record<string, unknown>): string | undefined {
  const ns = isPlainObject(object.metadata) ? object.metadata.namespace : undefined;
  return typeof ns === 'string' && ns.length > 0 ? ns : undefined;
}

/** What the answer to a result says. */
interface Verdict {
  outcome: 'injected' | 'skipped';
  reason: string;
  patch?: JsonPatchOperation[];
  warnings: readonly string[];
}

function mergeWarnings(a: readonly string[], b: readonly string[], extra?: string): string[] {
  if (b.length === 0 && extra === undefined) return a as string[];
  const out = [...a];
  for (const w of b) if (!out.includes(w)) out.push(w);
  if (extra !== undefined) out.push(extra);
  return out;
}

export function createHandler(options: HandlerOptions): AdmissionHandler {
  const { inject, getConfig, metrics, maxDepth } = options;
  const onError = options.onError ?? 'deny';
  const logger = options.logger ?? silentLogger();
  const deadline = options.deadline ?? DEFAULT_DEADLINE;
  const now = options.now ?? (() => performance.now());

  /** The fields of an admission line that depend on the review, not on this request's uid or timing. */
  function lineFields(req: AdmissionRequest): Record<string, unknown> {
    return { namespace: clip(req.namespace, 253), pod: podName(req.object), kind: req.kind.kind, operation: req.operation, dryRun: req.dryRun };
  }

  const durationMs = (call: AdmissionCall): number => Math.round((now() - call.startedAt) * 1000) / 1000;

  function logLine(level: 'info' | 'warn' | 'error', call: AdmissionCall, req: AdmissionRequest, fields: Record<string, unknown>): void {
    // Nothing is built for a line the level drops (the info line is per request).
    if (!logger.isLevelEnabled(level)) return;
    logger[level]({ uid: clip(req.uid), ...lineFields(req), durationMs: durationMs(call), ...fields }, 'admission');
  }

  function skip(call: AdmissionCall, version: AdmissionVersion, req: AdmissionRequest, reason: string, warnings?: readonly string[]): AdmissionReply {
    metrics?.skipped(reason);
    logLine('info', call, req, { decision: 'skipped', reason });
    return { status: 200, body: serializeReview(version, allowed(req.uid, warnings)), outcome: 'skipped' };
  }

  function fail(call: AdmissionCall, version: AdmissionVersion, req: AdmissionRequest, err: InjectorError, thrown: unknown): AdmissionReply {
    const action = onError === 'allow' ? 'allowed' : 'denied';
    metrics?.failed(err.code, action);
    const text = err.describe();
    let response: AdmissionResponse;
    if (onError === 'allow') {
      response = allowed(req.uid, [`sidecar not injected (${err.code}): ${text}`]);
    } else {
      const code = err.httpStatus;
      response = denied(req.uid, `sidecar injection failed (${err.code}): ${text}`, code, STATUS_REASON[code] ?? 'Forbidden');
    }
    const fields: Record<string, unknown> = { decision: action === 'allowed' ? 'allowed-on-error' : 'denied', reason: err.code, error: clip(text, 1024) };
    if (options.onInjectionFailed !== undefined && req.dryRun !== true) {
      try {
        options.onInjectionFailed({ namespace: req.namespace, object: req.object, code: err.code, message: clip(text, 1024) ?? '', action });
      } catch {
        // Reporting must never change the answer.
      }
    }
    if (err.code === 'SI_INTERNAL') {
      // A bug in the core: keep the stack, the message alone will not find it.
      fields.stack = thrown instanceof Error ? thrown.stack : undefined;
      logLine('error', call, req, fields);
    } else {
      logLine('warn', call, req, fields);
    }
    return { status: 200, body: serializeReview(version, response), outcome: 'failed' };
  }

  function injected(
    call: AdmissionCall,
    version: AdmissionVersion,
    req: AdmissionRequest,
    patch: JsonPatchOperation[],
    warnings: readonly string[],
    reason: string,
  ): AdmissionReply {
    metrics?.injected();
    logLine('info', call, req, { decision: 'injected', reason, patchOps: patch.length });
    if (logger.isLevelEnabled('debug')) logger.debug({ uid: clip(req.uid), patch }, 'admission patch');
    return { status: 200, body: serializeReview(version, patched(req.uid, patch, warnings)), outcome: 'injected' };
  }

  function review(call: AdmissionCall, version: AdmissionVersion, req: AdmissionRequest): AdmissionReply {
    if (req.operation !== 'CREATE') return skip(call, version, req, 'operation-not-create');
    if (req.kind.kind !== 'Pod' || req.kind.group !== '') return skip(call, version, req, 'not-a-pod');
    if (req.subResource !== '') return skip(call, version, req, 'subresource');

    const object = req.object;
    if (!isPlainObject(object)) {
      const what = object === null || object === undefined ? 'missing' : Array.isArray(object) ? 'an array' : `a ${typeof object}`;
      const err = new InjectorError('SI_INPUT_OBJECT', `request.object is ${what}, not a Pod: nothing to inject into`);
      return fail(call, version, req, err, err);
    }
    const budget = budgetMs(call.query, deadline);
    if (now() - call.startedAt > budget) {
      const err = new AdmissionError(
        'SI_ADMISSION_TIMEOUT',
        `the request was not started within its ${Math.round(budget)} ms budget (server overloaded or request body too slow)`,
      );
      return fail(call, version, req, err, err);
    }

    const ctx: InjectionContext = { namespace: req.namespace || podNamespace(object) || 'default', mode: 'webhook' };
    const pathParams = pathParamsFor(call.path);
    if (pathParams !== undefined) ctx.pathParams = pathParams;
    if (options.statusKeys !== undefined) ctx.statusKeys = options.statusKeys;
    if (options.podLimits !== undefined) ctx.limits = options.podLimits;

    let result: InjectionResult;
    try {
      result = inject(object, ctx, getConfig());
    } catch (thrown) {
      return fail(call, version, req, toInjectorError(thrown), thrown);
    }
    const v = verdictOf(result);
    return v.outcome === 'skipped' ? skip(call, version, req, v.reason, v.warnings) : injected(call, version, req, v.patch!, v.warnings, v.reason);
  }

  function verdictOf(result: InjectionResult): Verdict {
    const decision = result.decision;
    if (result.kind === 'skipped') {
      const hint = WARN_ON_SKIP.has(decision.reason) ? `sidecar not injected (${decision.reason}): ${decision.message}` : undefined;
      return { outcome: 'skipped', reason: decision.reason, warnings: mergeWarnings(result.warnings, decision.warnings, hint) };
    }
    const warnings = mergeWarnings(result.warnings, decision.warnings);
    // Injected with nothing to change: the pod already carries this exact sidecar.
    if (result.patch.length === 0) return { outcome: 'skipped', reason: 'already-injected', warnings };
    return { outcome: 'injected', reason: decision.reason, patch: result.patch, warnings };
  }

  return function handleAdmission(call: AdmissionCall): AdmissionReply {
    let uid: string | undefined;
    let version: AdmissionVersion | undefined;
    try {
      const decoded = decodeReview(call.body, maxDepth);
      if (!decoded.ok) {
        logger.warn({ uid: clip(decoded.uid), reason: decoded.error.code, error: clip(decoded.error.message, 512) }, 'admission request rejected');
        // The catalogue code, as every other answer of the webhook carries one.
        const message = `malformed AdmissionReview (${decoded.error.code}): ${decoded.error.message}`;
        return { status: 400, body: serializeStatus(400, 'BadRequest', message), outcome: 'invalid' };
      }
      uid = decoded.review.request.uid;
      version = decoded.review.apiVersion;
      return review(call, version, decoded.review.request);
    } catch (thrown) {
      const err = toInjectorError(thrown);
      logger.error(
        { uid: clip(uid), reason: 'SI_INTERNAL', error: err.message, stack: thrown instanceof Error ? thrown.stack : undefined },
        'admission handler failed',
      );
      const message = `internal error in the sidecar injector webhook: ${err.message}`;
      const body =
        uid !== undefined && version !== undefined ? serializeReview(version, errored(uid, 500, message)) : serializeStatus(500, 'InternalError', message);
      return { status: 500, body, outcome: 'error' };
    }
  };
}
