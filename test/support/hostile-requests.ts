/**
 * @module test/support/hostile-requests
 * The requests a long run mixes in (reliability.md section 4): malformed bodies, wrong methods,
 * paths and content types, hostile review shapes and pods, an oversize body; each with the
 * answer the webhook documents, checked like any other request by the load client. Valid
 * requests come from review bodies given by the caller (the bench fixtures or the sample pod).
 */
import type { LoadRequest } from './load-client.js';

type Obj = Record<string, unknown>;

export const WEBHOOK_PATH = '/inject?timeout=10s';
const JSON_TYPE = { 'Content-Type': 'application/json' };

function expectStatus(...allowed: number[]): (status: number, body: Buffer) => string | undefined {
  return (status, body) =>
    allowed.includes(status) ? undefined : `expected HTTP ${allowed.join(' or ')}, got ${status}: ${body.toString('utf8').slice(0, 200)}`;
}

/** A 200 AdmissionReview echoing `uid`, with `allowed` as given (any when undefined). */
function expectReview(uid: string, allowed?: boolean, patch?: boolean): (status: number, body: Buffer) => string | undefined {
  return (status, body) => {
    if (status !== 200) return `expected HTTP 200, got ${status}: ${body.toString('utf8').slice(0, 200)}`;
    let r: { response?: { uid?: string; allowed?: boolean; patch?: string } };
    try {
      r = JSON.parse(body.toString('utf8')) as typeof r;
    } catch {
      return 'the 200 body is not JSON';
    }
    if (r.response?.uid !== uid) return `uid ${JSON.stringify(r.response?.uid)} instead of ${JSON.stringify(uid)}`;
    if (allowed !== undefined && r.response.allowed !== allowed) return `allowed is ${r.response.allowed}, expected ${allowed}`;
    if (patch !== undefined && (r.response.patch !== undefined) !== patch) return patch ? 'no patch' : 'an unexpected patch';
    return undefined;
  };
}

/** A valid review body: the answer must be 200 with its uid (patch or not, as the fixture says). */
export function validRequest(label: string, body: Buffer, uid: string, patch?: boolean): LoadRequest {
  return { kind: 'valid', label, path: WEBHOOK_PATH, headers: JSON_TYPE, body, check: expectReview(uid, true, patch) };
}

function review(object: unknown, request: Obj = {}): Obj {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'hostile',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'soak',
      operation: 'CREATE',
      object,
      ...request,
    },
  };
}

function pod(extra: Obj = {}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { generateName: 'soak-', namespace: 'soak', ...extra },
    spec: { containers: [{ name: 'app', image: 'app:1' }] },
  };
}

const OVERSIZE = Buffer.alloc(8 * 1024 * 1024 + 1, 0x20);

interface Hostile {
  label: string;
  weight: number;
  make: () => LoadRequest;
}

function h(
  label: string,
  weight: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  check: LoadRequest['check'],
): Hostile {
  return { label, weight, make: () => ({ kind: 'hostile', label, method, path, headers, body, check }) };
}

const good = JSON.stringify(review(pod()));

/** The hostile mix: label, relative weight, request and documented answer. */
export const HOSTILE: readonly Hostile[] = [
  h('truncated-json', 3, 'POST', WEBHOOK_PATH, JSON_TYPE, good.slice(0, good.length >> 1), expectStatus(400)),
  h('trailing-garbage', 2, 'POST', WEBHOOK_PATH, JSON_TYPE, `${good} garbage`, expectStatus(400)),
  h('nan', 1, 'POST', WEBHOOK_PATH, JSON_TYPE, good.replace('"CREATE"', 'NaN'), expectStatus(400)),
  h('deep-nesting', 2, 'POST', WEBHOOK_PATH, JSON_TYPE, `${'['.repeat(100_000)}${']'.repeat(100_000)}`, expectStatus(400)),
  h('empty-body', 2, 'POST', WEBHOOK_PATH, JSON_TYPE, '', expectStatus(400)),
  h(
    'invalid-utf8',
    1,
    'POST',
    WEBHOOK_PATH,
    JSON_TYPE,
    Buffer.concat([Buffer.from(good.slice(0, 20)), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(good.slice(20))]),
    expectStatus(400),
  ),
  h('wrong-content-type', 2, 'POST', WEBHOOK_PATH, { 'Content-Type': 'text/plain' }, good, expectStatus(415)),
  h('get', 2, 'GET', WEBHOOK_PATH, {}, undefined, expectStatus(405)),
  h('unknown-path', 2, 'POST', '/nope', JSON_TYPE, good, expectStatus(404)),
  h('api-v2', 1, 'POST', WEBHOOK_PATH, JSON_TYPE, JSON.stringify({ ...review(pod()), apiVersion: 'admission.k8s.io/v2' }), expectStatus(400)),
  h('request-null', 1, 'POST', WEBHOOK_PATH, JSON_TYPE, JSON.stringify({ ...review(pod()), request: null }), expectStatus(400)),
  h('uid-10kb', 1, 'POST', WEBHOOK_PATH, JSON_TYPE, JSON.stringify(review(pod(), { uid: 'u'.repeat(10_240) })), expectStatus(400)),
  h('object-null', 2, 'POST', WEBHOOK_PATH, JSON_TYPE, JSON.stringify(review(null)), expectReview('hostile', undefined, false)),
  h('object-array', 1, 'POST', WEBHOOK_PATH, JSON_TYPE, JSON.stringify(review([pod()])), expectReview('hostile', undefined, false)),
  h(
    'deployment',
    2,
    'POST',
    WEBHOOK_PATH,
    JSON_TYPE,
    JSON.stringify(review({ apiVersion: 'apps/v1', kind: 'Deployment' }, { kind: { group: 'apps', version: 'v1', kind: 'Deployment' } })),
    expectReview('hostile', true, false),
  ),
  h('delete', 2, 'POST', WEBHOOK_PATH, JSON_TYPE, JSON.stringify(review(pod(), { operation: 'DELETE' })), expectReview('hostile', true, false)),
  h(
    'spec-string',
    2,
    'POST',
    WEBHOOK_PATH,
    JSON_TYPE,
    JSON.stringify({ ...review(pod()), request: { ...(review(pod()).request as Obj), object: { metadata: {}, spec: 'x' } } }),
    expectReview('hostile', undefined, false),
  ),
  h(
    'template-in-annotation',
    2,
    'POST',
    WEBHOOK_PATH,
    JSON_TYPE,
    JSON.stringify(review(pod({ annotations: { note: '{{ .Values.global }}', x: '${HOME}', y: '"\n- name: evil' } }))),
    expectReview('hostile'),
  ),
  h(
    'proto-keys',
    2,
    'POST',
    WEBHOOK_PATH,
    JSON_TYPE,
    `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"hostile","kind":{"group":"","version":"v1","kind":"Pod"},"namespace":"soak","operation":"CREATE","object":{"metadata":{"__proto__":{"polluted":"yes"},"labels":{"constructor":"x","__proto__":"y"},"annotations":{"a~b/c":"z"}},"spec":{"containers":[{"name":"app","image":"a:1"}]}}}}`,
    expectReview('hostile'),
  ),
  // 413, or the connection cut while the body is still being sent (status 0: EPIPE or reset).
  h('oversize-8mib', 0.2, 'POST', WEBHOOK_PATH, JSON_TYPE, OVERSIZE, (status, body) =>
    status === 413 || status === 0 ? undefined : `expected 413, got ${status}: ${body.toString('utf8').slice(0, 100)}`,
  ),
];

const TOTAL = HOSTILE.reduce((a, x) => a + x.weight, 0);

/** The i-th hostile request of a deterministic mix (weighted round robin by a fixed hash). */
export function hostileRequest(i: number): LoadRequest {
  // Knuth's multiplicative hash spreads consecutive i over the weights without randomness.
  let x = (((i * 2654435761) >>> 0) / 2 ** 32) * TOTAL;
  for (const item of HOSTILE) {
    x -= item.weight;
    if (x < 0) return item.make();
  }
  return HOSTILE[0].make();
}
