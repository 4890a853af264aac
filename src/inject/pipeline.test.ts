/**
 * End-to-end tests of injectPod with the built-in config (and small custom configs) on
 * realistic pods. Every injection goes through injectChecked: the patch applies under three
 * RFC 6902 appliers, names stay unique, re-injection is a no-op and uninjection restores the
 * input exactly.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig } from '../profiles/index.js';
import { InjectorError } from '../errors.js';
import { defaultConfigWith, deploymentTemplate, injectChecked, namesOf, replicaSetPod, templatesConfig, WEBHOOK } from '../../test/support/inject-fixtures.js';
import { cloneJson, type JsonObject } from '../util/json.js';
import { injectPod } from './index.js';
import { memberHash } from './strip-record.js';

type Obj = Record<string, unknown>;
const spec = (pod: JsonObject) => pod.spec as Obj;
const containers = (pod: JsonObject, list = 'containers') => spec(pod)[list] as Obj[];
const env = (c: Obj) => Object.fromEntries((c.env as Obj[]).map((e) => [e.name, e.value ?? e.valueFrom]));
const annotations = (pod: JsonObject) => (pod.metadata as Obj).annotations as Record<string, string>;

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InjectorError, `not an InjectorError: ${String(err)}`);
    return `${err.code}: ${err.message}`;
  }
  assert.fail('expected an error');
}

describe('injectPod with the built-in config', () => {
  it("injects a Deployment's pod template: init container, sidecar last, volumes, workload name from the owner", () => {
    const r = injectChecked(
      deploymentTemplate(),
      { namespace: 'shop', mode: 'manual', owner: { kind: 'Deployment', name: 'shop', apiVersion: 'apps/v1' } },
      defaultConfig(),
    );
    assert.deepEqual(namesOf(r.pod, 'containers'), ['shop', 'cache', 'sidecar-proxy']);
    assert.deepEqual(namesOf(r.pod, 'initContainers'), ['proxy-init']);
    assert.deepEqual(namesOf(r.pod, 'volumes'), ['sidecar-proxy-workdir', 'sidecar-podinfo', 'sidecar-token']);
    const proxy = containers(r.pod)[2];
    assert.equal(env(proxy).ISTIO_META_WORKLOAD_NAME, 'shop');
    assert.equal(env(proxy).ISTIO_META_APP_CONTAINERS, 'shop,cache');
    assert.equal(annotations(r.pod)['kubectl.kubernetes.io/default-container'], 'shop');
    assert.deepEqual(r.status.containers, ['sidecar-proxy']);
    assert.deepEqual(r.status.initContainers, ['proxy-init']);
    assert.equal(r.status.imagePullSecrets, null);
    assert.equal(r.status.revision, 'default');
    assert.deepEqual(r.status.templates, ['sidecar']);
    assert.match(r.status.templateHash ?? '', /^[0-9a-f]{16}$/);
    // The user's containers are untouched.
    assert.deepEqual(containers(r.pod)[0], containers(deploymentTemplate())[0]);
  });

  it('a generateName pod without namespace: the request namespace is used, the workload is the Deployment behind the ReplicaSet', () => {
    const r = injectChecked(replicaSetPod(), WEBHOOK, defaultConfig());
    const proxy = containers(r.pod).find((c) => c.name === 'sidecar-proxy')!;
    assert.equal(env(proxy).ISTIO_META_WORKLOAD_NAME, 'shop');
    assert.equal((r.pod.metadata as Obj).namespace, undefined, 'the namespace is not written into the pod');
    // The pod had no annotations: the patch creates the map in one operation.
    assert.ok(r.patch.some((op) => op.op === 'add' && op.path === '/metadata/annotations'));
  });

  it('a pod with null annotations and null initContainers gets a patch that creates them', () => {
    const pod = replicaSetPod();
    (pod.metadata as Obj).annotations = null;
    spec(pod).initContainers = null;
    spec(pod).volumes = null;
    const r = injectChecked(pod, WEBHOOK, defaultConfig());
    assert.ok(r.patch.some((op) => op.path === '/metadata/annotations' && op.op === 'add'));
    assert.ok(r.patch.some((op) => op.path === '/spec/initContainers' && op.op === 'add'));
  });

  it('re-injecting an injected pod gives the same pod and an empty patch (reinvocation)', () => {
    const first = injectChecked(replicaSetPod(), WEBHOOK, defaultConfig());
    const second = injectPod(first.pod, WEBHOOK, defaultConfig());
    assert.equal(second.kind, 'injected');
    if (second.kind === 'injected') {
      assert.deepEqual(second.patch, []);
      assert.deepEqual(second.pod, first.pod);
    }
  });

  it('re-injecting with a newer config replaces the sidecar instead of adding a second one', () => {
    const old = injectChecked(replicaSetPod(), WEBHOOK, defaultConfig());
    const newer = defaultConfigWith({ global: { tag: '9.9.9' } });
    const r = injectChecked(old.pod, WEBHOOK, newer, replicaSetPod());
    const proxies = containers(r.pod).filter((c) => c.name === 'sidecar-proxy');
    assert.equal(proxies.length, 1);
    assert.equal(proxies[0].image, 'docker.io/istio/proxyv2:9.9.9');
    assert.notEqual(r.status.templateHash, old.status.templateHash, 'the hash tells stale sidecars apart');
    assert.ok(r.patch.length > 0 && r.patch.length < 10, `a small patch, got ${r.patch.length} ops`);
  });

  it("a user container named like the sidecar customises it: the user's fields win, image auto keeps the injected image", () => {
    const pod = replicaSetPod();
    containers(pod).unshift({
      name: 'sidecar-proxy',
      image: 'auto',
      args: ['proxy', 'sidecar', '--concurrency', '4'],
      env: [{ name: 'EXTRA', value: '1' }],
      resources: { limits: { memory: '2Gi' } },
    });
    const r = injectChecked(pod, WEBHOOK, defaultConfig());
    assert.deepEqual(namesOf(r.pod, 'containers'), ['shop', 'sidecar-proxy']);
    const proxy = containers(r.pod)[1];
    assert.equal(proxy.image, 'docker.io/istio/proxyv2:1.24.2');
    assert.deepEqual(proxy.args, ['proxy', 'sidecar', '--concurrency', '4']);
    assert.equal(env(proxy).EXTRA, '1');
    assert.ok(env(proxy).POD_NAME, 'the injected env is kept');
    assert.equal(((proxy.resources as Obj).limits as Obj).memory, '2Gi');
    assert.equal(((proxy.resources as Obj).limits as Obj).cpu, '2000m');
    // The built-in template lists every container it sees, the user's sidecar-proxy included.
    assert.equal(env(proxy).ISTIO_META_APP_CONTAINERS, 'sidecar-proxy,shop');
    assert.deepEqual(r.status.undo?.find((e) => e.n === 'sidecar-proxy')?.i, 0, 'uninject puts the user container back where it was');
  });

  it('native sidecars: the proxy is an init container with restartPolicy Always, after the traffic setup and before user init containers', () => {
    const pod = replicaSetPod();
    (pod.metadata as Obj).annotations = { 'sidecar.istio.io/nativeSidecar': 'true' };
    spec(pod).initContainers = [{ name: 'migrate', image: 'migrate:1' }];
    const r = injectChecked(pod, WEBHOOK, defaultConfig());
    assert.deepEqual(namesOf(r.pod, 'initContainers'), ['proxy-init', 'sidecar-proxy', 'migrate']);
    assert.equal(containers(r.pod, 'initContainers')[1].restartPolicy, 'Always');
    assert.deepEqual(namesOf(r.pod, 'containers'), ['shop']);
  });

  it('without native sidecars the traffic setup runs after user init containers (they keep network access)', () => {
    const pod = replicaSetPod();
    spec(pod).initContainers = [{ name: 'migrate', image: 'migrate:1' }];
    const r = injectChecked(pod, WEBHOOK, defaultConfig());
    assert.deepEqual(namesOf(r.pod, 'initContainers'), ['migrate', 'proxy-init']);
  });

  it('holdApplicationUntilProxyStarts puts the sidecar first (values knob and proxy.istio.io/config annotation)', () => {
    const held = injectChecked(replicaSetPod(), WEBHOOK, defaultConfigWith({ global: { proxy: { holdApplicationUntilProxyStarts: true } } }));
    assert.deepEqual(namesOf(held.pod, 'containers'), ['sidecar-proxy', 'shop']);
    const pod = replicaSetPod();
    (pod.metadata as Obj).annotations = { 'proxy.istio.io/config': '{"holdApplicationUntilProxyStarts": true}' };
    const byAnnotation = injectChecked(pod, WEBHOOK, defaultConfig());
    assert.deepEqual(namesOf(byAnnotation.pod, 'containers'), ['sidecar-proxy', 'shop']);
  });

  it('the templates annotation selects two templates, merged in order; aliases expand', () => {
    const config = templatesConfig(
      {
        proxy: 'spec:\n  containers:\n  - name: proxy\n    image: proxy:1\n    env:\n    - name: FROM\n      value: proxy\n',
        logs: 'spec:\n  containers:\n  - name: proxy\n    env:\n    - name: FROM\n      value: logs\n  - name: log-shipper\n    image: shipper:1\n',
      },
      { aliases: { both: ['proxy', 'logs'] } },
    );
    for (const value of ['proxy, logs', 'both']) {
      const pod = replicaSetPod();
      (pod.metadata as Obj).annotations = { 'inject.istio.io/templates': value };
      const r = injectChecked(pod, WEBHOOK, config);
      assert.deepEqual(namesOf(r.pod, 'containers'), ['shop', 'proxy', 'log-shipper']);
      assert.equal(env(containers(r.pod)[1]).FROM, 'logs', 'the later template wins');
      assert.deepEqual(r.status.templates, ['proxy', 'logs']);
      assert.deepEqual(r.status.containers, ['proxy', 'log-shipper']);
    }
  });

  it('an unknown template is SI_INJECT_TEMPLATE_MISSING listing the known ones', () => {
    const pod = replicaSetPod();
    (pod.metadata as Obj).annotations = { 'inject.istio.io/templates': 'sidecar,nope' };
    const msg = code(() => injectPod(pod, WEBHOOK, defaultConfig()));
    assert.match(
      msg,
      /^SI_INJECT_TEMPLATE_MISSING: template "nope" requested by annotation inject\.istio\.io\/templates is not defined; known templates: sidecar; aliases: proxy/,
    );
  });

  it('a template that renders invalid YAML is SI_INJECT_RENDER_OUTPUT with the rendered lines around the error', () => {
    const config = templatesConfig({ broken: 'spec:\n  containers:\n  - name: x\n    image: {{ .ObjectMeta.Name }}\n   bad: indent\n' });
    const msg = code(() => injectPod({ metadata: { name: 'p' }, spec: { containers: [{ name: 'a' }] } }, WEBHOOK, config));
    assert.match(msg, /^SI_INJECT_RENDER_OUTPUT: template "broken" rendered text that is not valid YAML/);
    assert.match(msg, /rendered output:\n(.|\n)*image: p/);
  });

  it('a template rendering something other than metadata/spec is refused, naming the key', () => {
    const config = templatesConfig({ wrong: 'containers:\n- name: x\n' });
    const msg = code(() => injectPod({ spec: { containers: [{ name: 'a' }] } }, WEBHOOK, config));
    assert.match(msg, /^SI_INJECT_RENDER_OUTPUT: template "wrong" rendered a top-level "containers"/);
    assert.match(msg, /> 1 \| containers:/);
  });

  it("a template error is SI_TEMPLATE_EXEC with Go's message", () => {
    const config = templatesConfig({ t: '{{ .Nope }}' });
    const msg = code(() => injectPod({ spec: { containers: [{ name: 'a' }] } }, WEBHOOK, config));
    assert.match(msg, /^SI_TEMPLATE_EXEC: template: t:1:3: executing "t" at <.Nope>: can't evaluate field Nope in type \*inject.SidecarTemplateData/);
  });

  it('an injected container clashing with a user init container is SI_INJECT_CONFLICT, never a pod with duplicate names', () => {
    const pod = replicaSetPod();
    spec(pod).initContainers = [{ name: 'sidecar-proxy', image: 'x' }];
    assert.match(
      code(() => injectPod(pod, WEBHOOK, defaultConfig())),
      /^SI_INJECT_CONFLICT: .*two containers named "sidecar-proxy"/,
    );
  });

  it('skips what the decision skips, without touching the pod', () => {
    const pod = replicaSetPod();
    (pod.metadata as Obj).annotations = { 'sidecar.istio.io/inject': 'false' };
    const r = injectPod(pod, WEBHOOK, defaultConfig());
    assert.equal(r.kind, 'skipped');
    assert.equal(r.decision.reason, 'explicit-disabled');
  });

  it('managedFields are neither read nor changed, and not in the patch', () => {
    const pod = replicaSetPod();
    const managed = [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:labels': {} } } }];
    (pod.metadata as Obj).managedFields = managed;
    const r = injectChecked(pod, WEBHOOK, defaultConfig());
    assert.deepEqual((r.pod.metadata as Obj).managedFields, managed);
    assert.ok(r.patch.every((op) => !op.path.startsWith('/metadata/managedFields')));
  });

  it('injectedAnnotations are added and undone', () => {
    const config = defaultConfigWith({}, { injectedAnnotations: { 'example.com/injected-by': 'sidecar-injector' } });
    const r = injectChecked(replicaSetPod(), WEBHOOK, config);
    assert.equal(annotations(r.pod)['example.com/injected-by'], 'sidecar-injector');
  });

  it('labels and annotations the injection overwrites are restored by uninject', () => {
    const config = templatesConfig({
      t: 'metadata:\n  labels:\n    app: overwritten\n    added: "yes"\nspec:\n  containers:\n  - name: proxy\n    image: p:1\n',
    });
    const pod = replicaSetPod();
    const r = injectChecked(pod, WEBHOOK, config);
    assert.equal(((r.pod.metadata as Obj).labels as Obj).app, 'overwritten');
    const undo = r.status.undo ?? [];
    assert.ok(undo.some((e) => e.p === '/metadata/labels/app' && e.v === 'shop'));
    // An added member is named by its pointer's hash (format 2), not by an undo entry.
    assert.ok(!undo.some((e) => e.p === '/metadata/labels/added'));
    assert.ok((r.status.rm ?? '').includes(memberHash('/metadata/labels/added')));
  });

  it('keys with / and ~ are escaped in the patch', () => {
    const config = templatesConfig({ t: 'metadata:\n  annotations:\n    "a~b/c": "1"\nspec:\n  containers:\n  - name: proxy\n    image: p:1\n' });
    const pod = replicaSetPod();
    (pod.metadata as Obj).annotations = { 'x/y': 'z' };
    const r = injectChecked(pod, WEBHOOK, config);
    assert.ok(r.patch.some((op) => op.path === '/metadata/annotations/a~0b~1c'));
  });

  it('a malformed status annotation is SI_INJECT_STATUS saying what to do', () => {
    const pod = replicaSetPod();
    (pod.metadata as Obj).annotations = { 'sidecar.istio.io/status': '{not json' };
    assert.match(
      code(() => injectPod(pod, WEBHOOK, defaultConfig())),
      /^SI_INJECT_STATUS: annotation sidecar\.istio\.io\/status is not valid JSON; .*remove the annotation/,
    );
  });

  it('rejects malformed pods with SI_INPUT_OBJECT naming the field', () => {
    const cases: [unknown, RegExp][] = [
      [null, /the object to inject is null/],
      [[], /the object to inject is a list/],
      [{ metadata: [], spec: { containers: [] } }, /metadata is a list/],
      [{ metadata: { labels: { a: 1 } }, spec: { containers: [] } }, /metadata\.labels\["a"\] is a number/],
      [{ spec: {} }, /spec\.containers is missing/],
      [{ spec: { containers: [{ image: 'x' }] } }, /spec\.containers\[0\] has no name/],
      [{ spec: { containers: [{ name: 'a' }, { name: 'a' }] } }, /container name "a" is used twice/],
      [{ spec: { containers: [{ name: 'a' }], volumes: 'x' } }, /spec\.volumes is a string/],
    ];
    for (const [pod, want] of cases)
      assert.match(
        code(() => injectPod(pod, WEBHOOK, defaultConfig())),
        want,
      );
  });

  it('a pod with 2,000 env vars injects in well under a second with a handful of patch operations', () => {
    const pod = replicaSetPod();
    containers(pod)[0].env = Array.from({ length: 2000 }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` }));
    const start = process.hrtime.bigint();
    const r = injectPod(pod, WEBHOOK, defaultConfig());
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    assert.equal(r.kind, 'injected');
    if (r.kind === 'injected') assert.ok(r.patch.length <= 6, `${r.patch.length} ops`);
    assert.ok(ms < 1000, `${ms} ms`);
    injectChecked(cloneJson(pod), WEBHOOK, defaultConfig());
  });
});

describe('injectPod on hostile pods', () => {
  it("a user container on the sidecar's port is SI_INJECT_CONFLICT naming both", () => {
    const pod = replicaSetPod();
    containers(pod)[0].ports = [{ containerPort: 15090 }];
    assert.match(
      code(() => injectPod(pod, WEBHOOK, defaultConfig())),
      /^SI_INJECT_CONFLICT: container "shop" declares port TCP\/15090, which the injected container "sidecar-proxy" uses/,
    );
    const udp = replicaSetPod(); // the first pod is frozen by the test run's debug check (cow.ts)
    containers(udp)[0].ports = [{ containerPort: 15090, protocol: 'UDP' }];
    injectChecked(udp, WEBHOOK, defaultConfig());
  });

  it('a pod whose only container is named like a native sidecar is SI_INJECT_CONFLICT, never a pod without containers', () => {
    const pod = replicaSetPod();
    (pod.metadata as Record<string, unknown>).annotations = { 'sidecar.istio.io/nativeSidecar': 'true' };
    (pod.spec as Record<string, unknown>).containers = [{ name: 'sidecar-proxy', image: '' }];
    assert.match(
      code(() => injectPod(pod, WEBHOOK, defaultConfig())),
      /^SI_INJECT_CONFLICT: .*no containers left.*"sidecar-proxy"/,
    );
  });

  it('__proto__ and constructor keys stay plain data: no prototype pollution, patch and undo exact', () => {
    const pod = JSON.parse(
      '{"metadata":{"name":"p","labels":{"__proto__":"x","constructor":"y"},"annotations":{"__proto__":"{\\"polluted\\":true}"}},' +
        '"spec":{"containers":[{"name":"app","image":"a","env":[{"name":"__proto__","value":"v"}],"__proto__":{"polluted":true}}]}}',
    ) as JsonObject;
    const r = injectPod(pod, WEBHOOK, defaultConfig());
    assert.equal(r.kind, 'injected');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    if (r.kind !== 'injected') return;
    const labels = (r.pod.metadata as Obj).labels as Obj;
    assert.ok(Object.hasOwn(labels, '__proto__') && labels.__proto__ === 'x');
    assert.equal(Object.getPrototypeOf(labels), Object.prototype);
    const again = injectPod(r.pod, WEBHOOK, defaultConfig());
    assert.equal(again.kind === 'injected' && again.patch.length, 0);
  });

  it('ephemeral containers, unknown fields and native sidecars of the user are preserved', () => {
    const pod = replicaSetPod();
    spec(pod).ephemeralContainers = [{ name: 'debug', image: 'busybox' }];
    spec(pod).initContainers = [{ name: 'log-forwarder', image: 'fwd', restartPolicy: 'Always' }];
    spec(pod).futureField = { anything: [1, 2] };
    const r = injectChecked(pod, WEBHOOK, defaultConfig());
    assert.deepEqual(spec(r.pod).ephemeralContainers, [{ name: 'debug', image: 'busybox' }]);
    assert.deepEqual(spec(r.pod).futureField, { anything: [1, 2] });
    assert.ok(namesOf(r.pod, 'initContainers').includes('log-forwarder'));
  });

  it('200 containers and a megabyte of managedFields stay fast (generous bound)', () => {
    const pod = replicaSetPod();
    spec(pod).containers = Array.from({ length: 200 }, (_, i) => ({ name: `c${i}`, image: 'x', env: [{ name: 'A', value: String(i) }] }));
    (pod.metadata as Obj).managedFields = Array.from({ length: 4000 }, (_, i) => ({
      manager: `m${i}`,
      fieldsV1: { 'f:spec': { 'f:containers': { [`k:{"name":"c${i}"}`]: { '.': {} } } } },
    }));
    const start = process.hrtime.bigint();
    const r = injectPod(pod, WEBHOOK, defaultConfig());
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    assert.equal(r.kind, 'injected');
    assert.ok(ms < 1000, `${ms} ms`);
    if (r.kind === 'injected') assert.ok(r.patch.length <= 6, `${r.patch.length} ops`);
  });
});
