/**
 * The webhook mounts the service-account token into the sidecars it injects, exactly as the
 * apiserver's ServiceAccount admission would right after (stages.ts mountToken), so that an
 * `IfNeeded` webhook is not called a second time for every pod. Only in webhook mode, only where
 * the pod has the token volume and automounting is not off, never over a mount of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig, parseConfig } from '../profiles/index.js';
import { samplePod } from '../../test/support/review-fixtures.js';
import { injectPod } from './pipeline.js';
import { TOKEN_MOUNT_PATH } from './stages.js';
import type { InjectionContext } from './types.js';

type Obj = Record<string, any>;
const TOKEN = { name: 'kube-api-access-abcde', readOnly: true, mountPath: TOKEN_MOUNT_PATH };

function inject(pod: Obj, mode: InjectionContext['mode'] = 'webhook'): Obj {
  const r = injectPod(pod, { namespace: 'shop', mode }, defaultConfig());
  assert.equal(r.kind, 'injected');
  return (r as { pod: Obj }).pod;
}

/** Containers the injection added (named in its status), by list. */
function injected(pod: Obj): Obj[] {
  const status = JSON.parse(pod.metadata.annotations['sidecar.istio.io/status']) as { containers: string[] | null; initContainers: string[] | null };
  const names = new Set([...(status.containers ?? []), ...(status.initContainers ?? [])]);
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers].filter((c: Obj) => names.has(c.name));
}

const tokenMounts = (c: Obj): Obj[] => (c.volumeMounts ?? []).filter((m: Obj) => m.mountPath === TOKEN_MOUNT_PATH);

test("webhook mode: every injected container mounts the pod's token volume, last, as the ServiceAccount plugin adds it; the app containers are untouched", () => {
  const pod = samplePod();
  const out = inject(pod);
  const added = injected(out);
  assert.ok(added.length >= 2, 'a sidecar and an init container');
  for (const c of added) {
    assert.deepEqual(tokenMounts(c), [TOKEN], c.name);
    assert.deepEqual(c.volumeMounts.at(-1), TOKEN, `${c.name}: appended after its own mounts`);
  }
  assert.deepEqual(out.spec.containers.find((c: Obj) => c.name === 'web').volumeMounts, (pod.spec as Obj).containers[0].volumeMounts);
  assert.equal(
    out.spec.containers.find((c: Obj) => c.name === 'log-shipper').volumeMounts,
    undefined,
    'a user container the plugin did not mount stays as it is',
  );
});

test('no mount: manual mode (inject -f), no token volume, automountServiceAccountToken false, a volume the plugin did not mount or did not make', () => {
  const edit = (f: (p: Obj) => void): Obj => {
    const p = samplePod() as Obj;
    f(p);
    return p;
  };
  for (const [what, pod, mode] of [
    ['manual mode', samplePod(), 'manual'],
    [
      'no token volume',
      edit((p) => {
        p.spec.volumes = [];
        p.spec.containers[0].volumeMounts = [];
      }),
      'webhook',
    ],
    [
      'automount off',
      edit((p) => {
        p.spec.automountServiceAccountToken = false;
      }),
      'webhook',
    ],
    // A service account with automounting off: the plugin mounted nothing; a user's own volume
    // of that name, not mounted at the token path, is not the plugin's.
    [
      'a kube-api-access volume no container mounts at the token path',
      edit((p) => {
        p.spec.containers[0].volumeMounts = [];
      }),
      'webhook',
    ],
    [
      'mounted read-write',
      edit((p) => {
        p.spec.containers[0].volumeMounts[0].readOnly = false;
      }),
      'webhook',
    ],
    [
      'a secret, not a projected token',
      edit((p) => {
        p.spec.volumes[0] = { name: 'kube-api-access-abcde', secret: { secretName: 'mine' } };
      }),
      'webhook',
    ],
  ] as const) {
    for (const c of injected(inject(pod as Obj, mode))) assert.deepEqual(tokenMounts(c), [], `${what}: ${c.name}`);
  }
});

test('the first kube-api-access volume is the one mounted, as the plugin picks it', () => {
  const pod = samplePod() as Obj;
  pod.spec.volumes.push({ name: 'kube-api-access-zzzzz', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } });
  for (const c of injected(inject(pod))) assert.deepEqual(tokenMounts(c), [TOKEN], c.name);
});

test('a pod injected before (a reinvocation, or a re-injection) never gets the mount twice', () => {
  const once = inject(samplePod());
  const again = injectPod(once, { namespace: 'shop', mode: 'webhook' }, defaultConfig());
  assert.equal(again.kind, 'injected');
  assert.deepEqual((again as { patch: unknown[] }).patch, [], 'a current pod needs no patch');
  // A re-injection (the status no longer matches: strip, inject again) mounts once as well.
  const stale = structuredClone(once);
  stale.metadata.annotations['sidecar.istio.io/status'] = stale.metadata.annotations['sidecar.istio.io/status'].replace(
    '"revision":"default"',
    '"revision":"old"',
  );
  const redone = injectPod(stale, { namespace: 'shop', mode: 'webhook' }, defaultConfig());
  assert.equal(redone.kind, 'injected');
  for (const c of injected((redone as { pod: Obj }).pod)) assert.deepEqual(tokenMounts(c), [TOKEN], c.name);
});

test('a sidecar whose template mounts something at the token path keeps its own mount only', () => {
  const config = parseConfig(
    [
      'policy: enabled',
      'templates:',
      '  own-token: |',
      '    spec:',
      '      containers:',
      '      - name: own-token',
      '        image: registry.example/own:1',
      '        volumeMounts:',
      '        - name: projected-elsewhere',
      `          mountPath: ${TOKEN_MOUNT_PATH}`,
      'defaultTemplates: [own-token]',
    ].join('\n'),
  );
  const r = injectPod(samplePod(), { namespace: 'shop', mode: 'webhook' }, config);
  assert.equal(r.kind, 'injected');
  const sidecar = (r as { pod: Obj }).pod.spec.containers.find((c: Obj) => c.name === 'own-token');
  assert.deepEqual(tokenMounts(sidecar), [{ name: 'projected-elsewhere', mountPath: TOKEN_MOUNT_PATH }]);
});
