/**
 * The tutorial's sidecar config works as it is (issue 12): plain containers/volumes/
 * initContainers/imagePullSecrets, a name, the tutorial's inject values and status marker, and
 * precise hints for keys of the other form.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { injectPod } from '../inject/index.js';
import { loadConfig, parseConfig } from './load.js';

const TUTORIAL = `containers:
  - name: sidecar-nginx
    image: nginx:1.12.2
    imagePullPolicy: IfNotPresent
    ports:
      - containerPort: 80
    volumeMounts:
      - name: nginx-conf
        mountPath: /etc/nginx
volumes:
  - name: nginx-conf
    configMap:
      name: nginx-configmap
`;
const KEYS = `name: nginx
policy: disabled
injectionKeys:
  inject: sidecar-injector-webhook.morven.me/inject
  status: sidecar-injector-webhook.morven.me/status
  namespaceLabel: sidecar-injector
injectionValues:
  inject: [y, yes, true, on]
  injected: [injected]
`;
const pod = (annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'sleep', namespace: 'default', annotations },
  spec: { containers: [{ name: 'sleep', image: 'tutum/curl', command: ['/bin/sleep', 'infinity'] }] },
});
const INJECT = 'sidecar-injector-webhook.morven.me/inject';
const STATUS = 'sidecar-injector-webhook.morven.me/status';

describe('static sidecar config (the tutorial form)', () => {
  it('the tutorial config alone injects its containers and volumes as they are', () => {
    const config = parseConfig(TUTORIAL);
    assert.deepEqual(config.defaultTemplates, ['sidecar']);
    const r = injectPod(pod(), { namespace: 'default', mode: 'manual' }, config);
    assert.equal(r.kind, 'injected');
    if (r.kind !== 'injected') return;
    const spec = r.pod.spec as { containers: unknown[]; volumes: unknown[] };
    assert.deepEqual(spec.containers[1], {
      name: 'sidecar-nginx',
      image: 'nginx:1.12.2',
      imagePullPolicy: 'IfNotPresent',
      ports: [{ containerPort: 80 }],
      volumeMounts: [{ name: 'nginx-conf', mountPath: '/etc/nginx' }],
    });
    assert.deepEqual(spec.volumes, [{ name: 'nginx-conf', configMap: { name: 'nginx-configmap' } }]);
  });

  it('with a name and the tutorial keys: y/yes/true/on in any case opt in, in the webhook too', () => {
    const config = parseConfig(TUTORIAL + KEYS);
    assert.deepEqual(config.defaultTemplates, ['nginx']);
    for (const v of ['y', 'yes', 'YES', 'true', 'On']) {
      const r = injectPod(pod({ [INJECT]: v }), { namespace: 'default', mode: 'webhook' }, config);
      assert.equal(r.kind, 'injected', v);
      if (r.kind === 'injected') assert.deepEqual(r.status.templates, ['nginx']);
    }
    for (const v of ['no', 'false', 'maybe'])
      assert.equal(injectPod(pod({ [INJECT]: v }), { namespace: 'default', mode: 'webhook' }, config).kind, 'skipped', v);
    assert.equal(injectPod(pod(), { namespace: 'default', mode: 'webhook' }, config).kind, 'skipped');
  });

  it('a pod the tutorial webhook marked "status: injected" is recognised as injected, not an error', () => {
    const config = parseConfig(TUTORIAL + KEYS);
    const r = injectPod(pod({ [INJECT]: 'yes', [STATUS]: 'injected' }), { namespace: 'default', mode: 'webhook' }, config);
    assert.equal(r.kind, 'skipped');
    assert.equal(r.decision.reason, 'already-injected');
    // Our own status (JSON) is re-injected as before: idempotent.
    const once = injectPod(pod({ [INJECT]: 'yes' }), { namespace: 'default', mode: 'webhook' }, config);
    assert.equal(once.kind, 'injected');
    if (once.kind !== 'injected') return;
    const twice = injectPod(once.pod, { namespace: 'default', mode: 'webhook' }, config);
    assert.equal(twice.kind, 'injected');
    if (twice.kind === 'injected') assert.deepEqual(twice.pod, once.pod);
  });

  it('initContainers and imagePullSecrets; a "{{" in the sidecar stays literal', () => {
    const config = parseConfig(
      `initContainers:\n- name: init\n  image: busybox\n  command: ["sh", "-c", "echo {{ not a template }}"]\nimagePullSecrets:\n- name: regcred\ncontainers:\n- name: s\n  image: x\n`,
    );
    const r = injectPod(pod(), { namespace: 'default', mode: 'manual' }, config);
    assert.equal(r.kind, 'injected');
    if (r.kind !== 'injected') return;
    const spec = r.pod.spec as { initContainers: { command: string[] }[]; imagePullSecrets: unknown[] };
    assert.equal(spec.initContainers[0].command[2], 'echo {{ not a template }}');
    assert.deepEqual(spec.imagePullSecrets, [{ name: 'regcred' }]);
  });

  it('the tutorial\'s ConfigMap manifest (data["sidecarconfig.yaml"]) loads as is', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'si-static-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'configmap.yaml');
    await writeFile(
      file,
      stringify(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sidecar-injector-webhook-configmap' }, data: { 'sidecarconfig.yaml': TUTORIAL } },
        { blockQuote: 'literal' },
      ),
    );
    const config = await loadConfig(file);
    assert.deepEqual(Object.keys(config.templates), ['sidecar']);
  });

  it('precise errors: keys of the other form, bad items, a name clash', () => {
    const fails = (text: string, re: RegExp) => assert.throws(() => parseConfig(text), re);
    fails(
      'spec:\n  containers: []\n',
      /unknown key "spec": "spec" is part of a pod overlay: put the overlay in a template .* or for a plain sidecar write containers:\/volumes: at the top level/,
    );
    fails('image: nginx\n', /unknown key "image": "image" is a container field: put it under containers:/);
    fails('sidecarconfig.yaml: |\n  containers: []\n', /"sidecarconfig\.yaml" is the key of the tutorial's ConfigMap/);
    fails('annotations:\n  a: b\n', /use|injectedAnnotations/);
    fails('containers:\n- image: nginx\n', /containers\[0\]: needs a name/);
    fails('containers: nginx\n', /containers: must be a list/);
    fails('name: x\ntemplates:\n  x: "{}"\n', /"name" names a static sidecar/);
    fails('name: x\ncontainers:\n- name: s\n  image: i\ntemplates:\n  x: "{}"\n', /the static sidecar's name "x" is also a key under templates/);
    fails('injectionValues:\n  inject: [false]\n', /injectionValues\.inject\[0\]: must be a non-empty string/);
    // The old far-fetched guess is gone: containers is a key now, and a typo of it is caught.
    fails('container:\n- name: s\n', /did you mean "containers"/);
  });
});

describe('the tutorial config and policy mode', () => {
  it('policy compiles the tutorial config as it is: its opt-in values, in any ASCII case, are the match condition', async () => {
    const { compilePolicy } = await import('../policy/compile.js');
    const config = await loadConfig(new URL('../../examples/nginx-sidecar/config.yaml', import.meta.url).pathname);
    const spec = compilePolicy(config, { name: 'nginx' }).policy.spec as { matchConditions: { name: string; expression: string }[] };
    const decision = spec.matchConditions.find((c) => c.name === 'injection-decision')!.expression;
    assert.ok(decision.includes('.lowerAscii() in ["y", "yes", "true", "on"]'), decision);
  });
});
