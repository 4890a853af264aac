/**
 * @module admission/review
 * Decode an AdmissionReview (`admission.k8s.io/v1` or `v1beta1`) from untrusted JSON. Every
 * field the webhook relies on is type-checked here, once, so the handler can trust the shape;
 * only `request.object` stays `unknown` (the injection core validates the pod). A review that
 * cannot be answered (no usable uid, wrong version or kind) is an HTTP 400; the uid is returned
 * whenever it was readable so logs can still name the request.
 */
import { AdmissionError } from '../errors.js';
import { isPlainObject } from '../util/json.js';
import { parseJsonGuarded } from './json-guard.js';
import type { AdmissionRequest, AdmissionVersion, DecodedReview, GroupVersionKind, GroupVersionResource } from './types.js';
import { describeValue, quote } from '../util/describe.js';

/** Kubernetes uids are 36-character UUIDs; anything much longer is not from an apiserver. */
export const MAX_UID_LENGTH = 128;

export type DecodeResult = { ok: true; review: DecodedReview } | { ok: false; error: AdmissionError; uid?: string };

function bad(message: string, uid?: string): DecodeResult {
  return { ok: false, error: new AdmissionError('SI_ADMISSION_BAD_REQUEST', message), uid };
}

/** Echo a user value in an error message: a scalar itself (strings quoted and clipped), else its kind. */
function show(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return describeValue(value);
}

function optionalString(value: unknown): string | undefined | false {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : false;
}

function decodeGvk(value: unknown): GroupVersionKind | undefined {
  if (!isPlainObject(value)) return undefined;
  const { group, version, kind } = value;
  if (typeof kind !== 'string' || (group !== undefined && typeof group !== 'string') || (version !== undefined && typeof version !== 'string')) {
    return undefined;
  }
  return { group: group ?? '', version: version ?? '', kind };
}

function decodeGvr(value: unknown): GroupVersionResource | undefined | false {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) return false;
  const { group, version, resource } = value;
  if (typeof resource !== 'string' || (group !== undefined && typeof group !== 'string') || (version !== undefined && typeof version !== 'string')) {
    return false;
  }
  return { group: group ?? '', version: version ?? '', resource };
}

/** Check the envelope and the request fields; `value` is the parsed body. */
function validateReview(value: unknown): DecodeResult {
  if (!isPlainObject(value)) return bad(`request body must be an AdmissionReview object, got ${show(value)}`);
  const { apiVersion, kind, request } = value;
  if (apiVersion === undefined || apiVersion === null) return bad('apiVersion is missing: send admission.k8s.io/v1 or admission.k8s.io/v1beta1');
  if (apiVersion !== 'admission.k8s.io/v1' && apiVersion !== 'admission.k8s.io/v1beta1') {
    return bad(`unsupported apiVersion ${show(apiVersion)}: send admission.k8s.io/v1 or admission.k8s.io/v1beta1`);
  }
  if (kind !== 'AdmissionReview') return bad(`kind must be "AdmissionReview", got ${show(kind)}`);
  if (!isPlainObject(request)) return bad(`request must be an object, got ${show(request)}`);

  const uid = request.uid;
  if (typeof uid !== 'string' || uid.length === 0) return bad(`request.uid must be a non-empty string, got ${show(uid)}`);
  if (uid.length > MAX_UID_LENGTH) return bad(`request.uid is ${uid.length} characters long; the limit is ${MAX_UID_LENGTH}`);

  const gvk = decodeGvk(request.kind);
  if (gvk === undefined) return bad('request.kind must be an object with a string "kind"', uid);
  const resource = decodeGvr(request.resource);
  if (resource === false) return bad('request.resource must be an object with a string "resource"', uid);
  const operation = request.operation;
  if (typeof operation !== 'string' || operation.length === 0) return bad(`request.operation must be a string, got ${show(operation)}`, uid);
  const subResource = optionalString(request.subResource);
  if (subResource === false) return bad('request.subResource must be a string', uid);
  const name = optionalString(request.name);
  if (name === false) return bad('request.name must be a string', uid);
  const namespace = optionalString(request.namespace);
  if (namespace === false) return bad('request.namespace must be a string', uid);
  const dryRun = request.dryRun;
  if (dryRun !== undefined && dryRun !== null && typeof dryRun !== 'boolean') return bad('request.dryRun must be a boolean', uid);

  const decoded: AdmissionRequest = {
    uid,
    kind: gvk,
    resource,
    subResource: subResource ?? '',
    name: name ?? '',
    namespace: namespace ?? '',
    operation,
    dryRun: dryRun === true,
    object: request.object,
  };
  return { ok: true, review: { apiVersion: apiVersion as AdmissionVersion, request: decoded } };
}

/** Bytes to a validated review, or the 400 to answer. */
export function decodeReview(body: Buffer, maxDepth?: number): DecodeResult {
  const parsed = parseJsonGuarded(body, maxDepth);
  if (!parsed.ok) return bad(parsed.message);
  return validateReview(parsed.value);
}
