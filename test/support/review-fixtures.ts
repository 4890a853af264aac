/**
 * @module test/support/review-fixtures
 * AdmissionReviews as the apiserver sends them, built from a pod and a few knobs.
 */
import { randomUUID } from 'node:crypto';

export interface ReviewOptions {
  apiVersion?: string;
  uid?: string;
  operation?: string;
  namespace?: string;
  dryRun?: boolean;
  kind?: { group: string; version: string; kind: string };
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
}

/** A realistic small pod (two containers, probes, a projected volume, managedFields). */
export function samplePod(name = 'web-7d9c6b5f4-x2x9q', extra: { annotations?: Record<string, string> } = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: 'web-7d9c6b5f4-',
      name,
      namespace: 'shop',
      labels: { app: 'web', 'pod-template-hash': '7d9c6b5f4' },
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-7d9c6b5f4',
          uid: '6f1c2e1e-1111-4a4a-9b9b-000000000001',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 5 },
          resources: { requests: { cpu: '100m', memory: '64Mi' } },
          volumeMounts: [{ name: 'kube-api-access-abcde', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
        },
        { name: 'log-shipper', image: 'fluent-bit:3.0', args: ['-c', '/etc/fb.conf'] },
      ],
      volumes: [{ name: 'kube-api-access-abcde', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3607 } }] } }],
      restartPolicy: 'Always',
      serviceAccountName: 'default',
    },
  };
}

export function podReview(object: unknown, options: ReviewOptions = {}): Record<string, unknown> {
  const namespace = options.namespace ?? 'shop';
  return {
    apiVersion: options.apiVersion ?? 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: options.uid ?? randomUUID(),
      kind: options.kind ?? { group: '', version: 'v1', kind: 'Pod' },
      resource: options.resource ?? { group: '', version: 'v1', resource: 'pods' },
      ...(options.subResource !== undefined ? { subResource: options.subResource } : {}),
      requestKind: options.kind ?? { group: '', version: 'v1', kind: 'Pod' },
      requestResource: options.resource ?? { group: '', version: 'v1', resource: 'pods' },
      name: '',
      namespace,
      operation: options.operation ?? 'CREATE',
      userInfo: { username: 'system:serviceaccount:kube-system:replicaset-controller', uid: 'u-1', groups: ['system:serviceaccounts', 'system:authenticated'] },
      object,
      oldObject: null,
      dryRun: options.dryRun ?? false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    },
  };
}
