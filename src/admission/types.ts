/**
 * @module admission/types
 * The parts of `admission.k8s.io/v1` and `v1beta1` AdmissionReview this webhook reads and
 * writes. Both versions have the same shape for these fields, so one set of types serves both;
 * the version string travels with the request so the answer goes back in the same version.
 * (kubernetes-types has no AdmissionReview, hence our own.)
 */

const ADMISSION_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;
export type AdmissionVersion = (typeof ADMISSION_VERSIONS)[number];

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** A validated request: every field below was type-checked; `object` is still untrusted. */
export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource | undefined;
  subResource: string;
  name: string;
  namespace: string;
  operation: string;
  dryRun: boolean;
  /** The object as received (untrusted, may be anything). */
  object: unknown;
}

export interface DecodedReview {
  apiVersion: AdmissionVersion;
  request: AdmissionRequest;
}

/** metav1.Status as carried in `response.status` (v1) / `response.result` (wire name: status). */
export interface ResultStatus {
  status: 'Success' | 'Failure';
  code: number;
  reason?: string;
  message: string;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: ResultStatus;
  patchType?: 'JSONPatch';
  /** base64 of the RFC 6902 JSON array. */
  patch?: string;
  warnings?: string[];
}
