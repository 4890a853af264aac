import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { SecretSource, type SecretApi, type SecretSourceEvent } from './secret-source.js';
import { KubeApiError } from '../kube/api-error.js';
import { PROVISIONED_ANNOTATION } from './tls-secret.js';
import { serviceDnsNames } from '../certs/names.js';
import { generateCA, issueServingCert } from '../certs/create-certs.js';
import { validateKeyPair } from '../certs/validate-cert.js';
import type { KeyPairPem } from '../reload/sources.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- Secrets as loose JSON */
type Obj = Record<string, any>;

const ref = { namespace: 'mesh', name: 'si-certs' };
const PATH = '/api/v1/namespaces/mesh/secrets/si-certs';
const provision = { dnsNames: serviceDnsNames('si', 'mesh'), caValidityMs: 30 * 86_400_000, certValidityMs: 3 * 86_400_000 };

/**
 * Secrets with the apiserver's concurrency rules (a supplement: e2e runs this against the real
 * kube-apiserver): PUT must carry the current resourceVersion (else 409), POST of an existing
 * name is 409, a missing one 404, and any verb can be forbidden (403).
 */
class FakeSecrets implements SecretApi {
  readonly objects = new Map<string, Obj>();
  readonly forbidden = new Set<string>();
  readonly calls: string[] = [];
  #rv = 100;
  /** GETs wait until this many are waiting: replicas that read the same version. */
  barrier = 0;
  #waiting: Array<() => void> = [];

  seed(data?: Record<string, string>, annotations?: Record<string, string>): void {
    const encoded = data && Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
    this.objects.set(PATH, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: ref.name,
        namespace: ref.namespace,
        resourceVersion: String(++this.#rv),
        labels: { app: 'x' },
        ...(annotations ? { annotations } : {}),
      },
      type: 'Opaque',
      ...(encoded ? { data: encoded } : {}),
    });
  }

  #fail(method: string, path: string, status: number, reason: string): never {
    throw new KubeApiError(`${method} ${path}: ${status} ${reason}`, {
      status,
      reason,
      apiMessage: `secrets "${ref.name}" is ${reason.toLowerCase()}`,
      method,
      path,
    });
  }

  async get(path: string): Promise<unknown> {
    this.calls.push('GET');
    if (this.barrier > 0) {
      await new Promise<void>((resolve) => {
        this.#waiting.push(resolve);
        if (this.#waiting.length >= this.barrier) {
          this.barrier = 0;
          for (const w of this.#waiting.splice(0)) w();
        }
      });
    }
    if (this.forbidden.has('GET')) this.#fail('GET', path, 403, 'Forbidden');
    const o = this.objects.get(path);
    if (!o) this.#fail('GET', path, 404, 'NotFound');
    return structuredClone(o);
  }

  async put(path: string, body: unknown): Promise<unknown> {
    this.calls.push('PUT');
    if (this.forbidden.has('PUT')) this.#fail('PUT', path, 403, 'Forbidden');
    const current = this.objects.get(path);
    if (!current) this.#fail('PUT', path, 404, 'NotFound');
    if ((body as Obj).metadata.resourceVersion !== current.metadata.resourceVersion) this.#fail('PUT', path, 409, 'Conflict');
    const stored = structuredClone(body as Obj);
    stored.metadata.resourceVersion = String(++this.#rv);
    this.objects.set(path, stored);
    return structuredClone(stored);
  }

  async post(path: string, body: unknown): Promise<unknown> {
    this.calls.push('POST');
    if (this.forbidden.has('POST')) this.#fail('POST', path, 403, 'Forbidden');
    const target = `${path}/${(body as Obj).metadata.name}`;
    if (this.objects.has(target)) this.#fail('POST', path, 409, 'AlreadyExists');
    const stored = structuredClone(body as Obj);
    stored.metadata.resourceVersion = String(++this.#rv);
    this.objects.set(target, stored);
    return structuredClone(stored);
  }

  data(): Record<string, string> {
    const d = this.objects.get(PATH)?.data ?? {};
    return Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Buffer.from(v as string, 'base64').toString()]));
  }
}

function replica(api: FakeSecrets, extra: Partial<ConstructorParameters<typeof SecretSource>[0]> = {}) {
  const events: SecretSourceEvent[] = [];
  const served: KeyPairPem[] = [];
  const source = new SecretSource({ api, secret: ref, resyncMs: 3_600_000, requireCa: true, onEvent: (e) => events.push(e), ...extra });
  source.start((pair) => {
    const check = validateKeyPair(pair.certPem, pair.keyPem);
    if (!check.ok) throw new Error(`refused: ${check.reason}`);
    served.push(pair);
  });
  return { source, events, served };
}

test('two replicas on the empty Secret: one write lands, the other reads it, both serve the same certificate', async (t) => {
  const api = new FakeSecrets();
  api.seed();
  api.barrier = 2;
  const a = replica(api, { provision });
  const b = replica(api, { provision });
  t.after(() => Promise.all([a.source.stop(), b.source.stop()]));
  await Promise.all([a.source.checkNow(), b.source.checkNow()]);
  assert.equal(api.calls.filter((c) => c === 'PUT').length, 2, 'both tried');
  assert.equal(a.source.status().writes + b.source.status().writes, 1, 'one write landed');
  assert.equal(a.source.status().conflicts + b.source.status().conflicts, 1, 'the other got 409');
  assert.equal(a.served.at(-1)?.certPem, b.served.at(-1)?.certPem);
  assert.equal(a.served.at(-1)?.certPem, api.data()['tls.crt']);
  const stored = api.objects.get(PATH)!;
  assert.match(stored.metadata.annotations[PROVISIONED_ANNOTATION], /create,issue-cert$/);
  assert.deepEqual(stored.metadata.labels, { app: 'x' }, 'labels kept');
  assert.ok(new X509Certificate(api.data()['tls.crt']).checkHost('si.mesh.svc', { subject: 'never' }));
  // Another round changes nothing.
  await a.source.checkNow();
  assert.equal(a.source.status().writes + b.source.status().writes, 1);
  assert.equal(a.source.status().problem, undefined);
});

test('an existing Secret that is missing: one clear problem, repeated reads do not repeat it, served once created', async (t) => {
  const api = new FakeSecrets();
  const r = replica(api);
  t.after(() => r.source.stop());
  await r.source.checkNow();
  await r.source.checkNow();
  const problems = r.events.filter((e) => e.type === 'problem');
  assert.equal(problems.length, 1);
  assert.match(r.source.status().problem ?? '', /^Secret mesh\/si-certs does not exist\. Create it with tls\.crt, tls\.key and ca\.crt .*tls\.existingSecret/);
  assert.deepEqual(api.calls, ['GET', 'GET'], 'never writes an existing Secret');
  const ca = await generateCA();
  const leaf = await issueServingCert(ca, { dnsNames: ['si.mesh.svc'] });
  api.seed({ 'tls.crt': leaf.certPem, 'tls.key': leaf.keyPem, 'ca.crt': ca.certPem });
  await r.source.checkNow();
  assert.equal(r.served.length, 1);
  assert.equal(r.source.status().problem, undefined);
  assert.equal(r.events.at(-1)?.type, 'resolved');
});

test('RBAC that denies the write, or the create of a deleted Secret, is one clear problem naming the grant', async (t) => {
  const api = new FakeSecrets();
  api.seed();
  api.forbidden.add('PUT');
  const r = replica(api, { provision });
  t.after(() => r.source.stop());
  await r.source.checkNow();
  assert.match(r.source.status().problem ?? '', /may not write Secret mesh\/si-certs .*grant its service account get and update on secrets\/si-certs in mesh/);
  assert.equal(r.served.length, 0);
  api.objects.clear();
  api.forbidden.add('POST');
  await r.source.checkNow();
  assert.match(r.source.status().problem ?? '', /does not exist and the injector may not create it .*Re-apply the install/);
  api.forbidden.clear();
  await r.source.checkNow();
  assert.equal(r.served.length, 1, 'created (where RBAC allows) and served');
  assert.equal(r.source.status().problem, undefined);
});

test('a Secret with certificates the injector did not write is served and never rewritten', async (t) => {
  const api = new FakeSecrets();
  const ca = await generateCA();
  const leaf = await issueServingCert(ca, { dnsNames: ['si.mesh.svc'], validityDays: 1 });
  api.seed({ 'tls.crt': leaf.certPem, 'tls.key': leaf.keyPem, 'ca.crt': ca.certPem });
  const r = replica(api, { provision, now: () => new Date(Date.now() + 20 * 3_600_000) });
  t.after(() => r.source.stop());
  await r.source.checkNow();
  assert.ok(!api.calls.includes('PUT'));
  assert.equal(r.served.length, 1);
  assert.ok(r.events.some((e) => e.type === 'foreign'));
});

test('an unusable or incomplete Secret is a problem; the last good certificate keeps serving', async (t) => {
  const api = new FakeSecrets();
  const ca = await generateCA();
  const leaf = await issueServingCert(ca, { dnsNames: ['si.mesh.svc'] });
  api.seed({ 'tls.crt': leaf.certPem, 'tls.key': leaf.keyPem });
  const r = replica(api);
  t.after(() => r.source.stop());
  await r.source.checkNow();
  assert.match(r.source.status().problem ?? '', /has no ca\.crt \(the caBundle is set from ca\.crt\)/);
  api.seed({ 'tls.crt': leaf.certPem, 'tls.key': leaf.keyPem, 'ca.crt': ca.certPem });
  await r.source.checkNow();
  assert.equal(r.served.length, 1);
  const other = await issueServingCert(ca, { dnsNames: ['si.mesh.svc'] });
  api.seed({ 'tls.crt': leaf.certPem, 'tls.key': other.keyPem, 'ca.crt': ca.certPem });
  await r.source.checkNow();
  assert.match(r.source.status().problem ?? '', /refused: .*different pairs/);
  assert.equal(r.served.length, 1);
  api.forbidden.add('GET');
  await r.source.checkNow();
  assert.match(r.source.status().problem ?? '', /may not read Secret mesh\/si-certs .*grant its service account get on secrets\/si-certs/);
});
