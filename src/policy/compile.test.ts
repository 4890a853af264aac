import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig, parseConfig } from '../profiles/index.js';
import { InjectorError } from '../errors.js';
import { injectPod } from '../inject/index.js';
import { compilePolicy } from './compile.js';

const example = (p: string) => fileURLToPath(new URL(`../../examples/${p}`, import.meta.url));

function config(templates: Record<string, string>, extra: Record<string, unknown> = {}) {
  return parseConfig(JSON.stringify({ policy: 'enabled', defaultTemplates: Object.keys(templates), templates, ...extra }));
}

function refused(fn: () => unknown, ...parts: (string | RegExp)[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof InjectorError, String(err));
    assert.equal(err.code, 'SI_POLICY_UNSUPPORTED', err.message);
    assert.match(err.message, /use the webhook for this config/);
    for (const p of parts) typeof p === 'string' ? assert.ok(err.message.includes(p), `${err.message} lacks ${p}`) : assert.match(err.message, p);
    return true;
  });
}

const expr = (c: ReturnType<typeof compilePolicy>) => (c.policy.spec as any).mutations[0].jsonPatch.expression as string;

describe('compilePolicy', () => {
  it('compiles the tutorial nginx config unchanged: v1 shapes, bindings per webhook scope, annotation default in CEL', async () => {
    const c = compilePolicy(await loadConfig(example('policy-nginx-sidecar/config.yaml')), { name: 'nginx' });
    const spec = c.policy.spec as any;
    assert.equal(c.policy.apiVersion, 'admissionregistration.k8s.io/v1');
    assert.equal(c.policy.kind, 'MutatingAdmissionPolicy');
    assert.equal(spec.reinvocationPolicy, 'IfNeeded');
    assert.equal(spec.failurePolicy, 'Fail');
    assert.deepEqual(spec.matchConstraints.resourceRules, [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }]);
    assert.deepEqual(
      spec.mutations.map((m: any) => m.patchType),
      ['JSONPatch'],
    );
    const names = spec.matchConditions.map((m: any) => m.name);
    assert.deepEqual(names, ['not-mirror-pod', 'not-host-network', 'not-ignored-namespace', 'not-yet-injected', 'injection-decision']);
    assert.match(spec.matchConditions[3].expression, /sidecar-injector-webhook\.morven\.me\/status/);
    assert.deepEqual(
      c.bindings.map((b) => [b.kind, b.metadata && (b.metadata as any).name, (b.spec as any).policyName]),
      [
        ['MutatingAdmissionPolicyBinding', 'nginx-namespace', 'nginx'],
        ['MutatingAdmissionPolicyBinding', 'nginx-object', 'nginx'],
      ],
    );
    const ns = (c.bindings[0].spec as any).matchResources.namespaceSelector.matchExpressions;
    assert.deepEqual(ns[0], { key: 'sidecar-injector', operator: 'In', values: ['enabled'] });
    const e = expr(c);
    assert.match(e, /Object\.spec\.containers\{name: "sidecar-nginx", image: "nginx:1\.27-alpine"/);
    // The ConfigMap name comes from the pod's annotation, else the values' default.
    assert.match(e, /object\.metadata\.annotations\["sidecar-injector-webhook\.morven\.me\/nginx-config"\] : "nginx-configmap"/);
    // The core puts new volumes before the pod's own (strategic merge): so does the policy.
    assert.match(e, /"\/spec\/volumes\/0"/);
    assert.match(e, /"\/metadata\/annotations\/sidecar-injector-webhook\.morven\.me~1status"/);
  });

  it('writes the status annotation with the template hash the webhook writes', async () => {
    const cfg = await loadConfig(example('policy-nginx-sidecar/config.yaml'));
    const c = compilePolicy(cfg, { name: 'nginx' });
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'n', labels: { 'sidecar-injector-webhook.morven.me/inject': 'true' }, annotations: { a: 'b' } },
      spec: { containers: [{ name: 'app', image: 'x' }], volumes: [{ name: 'v', emptyDir: {} }] },
    };
    const r = injectPod(pod, { namespace: 'n', mode: 'webhook' }, cfg);
    assert.equal(r.kind, 'injected');
    const status = (r.pod.metadata as any).annotations['sidecar-injector-webhook.morven.me/status'] as string;
    // A pod with annotations and volumes needs no undo record: the status is one literal.
    const vars = (c.policy.spec as any).variables as { name: string; expression: string }[];
    const statusVar = vars.find((v) => v.name === 'status')!;
    assert.ok(statusVar.expression.includes(JSON.stringify(status)), `${statusVar.expression} lacks ${status}`);
  });

  it('refuses the webhook-only log shipper naming template, line and construct', async () => {
    const cfg = await loadConfig(example('log-shipper/config.yaml'));
    refused(
      () => compilePolicy(cfg, { name: 'x' }),
      'template "log-shipper", line 2',
      '{{$volume := annotation .ObjectMeta "logging.example.com/volume" .Values.volume}}',
    );
  });

  it('refuses the built-in Istio-style config', async () => {
    const { defaultConfig } = await import('../profiles/index.js');
    refused(() => compilePolicy(defaultConfig(), { name: 'x' }), /template "sidecar", line \d+/);
  });

  it('refuses ranges over containers, toYaml of pod data, conditions on pod fields', () => {
    refused(
      () => compilePolicy(config({ t: 'spec:\n  containers:\n{{- range .Spec.Containers }}\n  - name: {{ .Name }}-copy\n{{- end }}\n' }), { name: 'x' }),
      'line 3',
      '{{range .Spec.Containers}}',
      'reads .Spec.Containers',
    );
    refused(
      () => compilePolicy(config({ t: 'spec:\n  containers:\n  - name: s\n    image: x\n    args: [{{ toYaml .ObjectMeta.Labels }}]\n' }), { name: 'x' }),
      'line 5',
      'toYaml .ObjectMeta.Labels',
    );
    refused(
      () => compilePolicy(config({ t: '{{ if eq .ObjectMeta.Namespace "prod" }}spec:\n  containers:\n  - name: s\n    image: x\n{{ end }}' }), { name: 'x' }),
      'line 1',
      'if eq .ObjectMeta.Namespace',
    );
    refused(
      () =>
        compilePolicy(
          config({ t: '{{ template "h" . }}{{ define "h" }}spec:\n  containers:\n  - name: s\n    image: {{ .DeploymentMeta.Name }}\n{{ end }}' }),
          { name: 'x' },
        ),
      'reads .DeploymentMeta.Name',
    );
  });

  it('compiles .Values-only templates with control flow, rendered once', () => {
    const c = compilePolicy(
      config(
        {
          t: '{{ $n := .Values.names }}spec:\n  initContainers:\n{{- range $i, $e := $n }}\n  - name: init-{{ $e }}\n    image: {{ $.Values.image | quote }}\n    restartPolicy: Always\n{{- end }}\n',
        },
        { values: { names: [0, 1], image: 'img:1' } },
      ),
      { name: 'x' },
    );
    const e = expr(c);
    assert.match(e, /"\/spec\/initContainers\/0", value: Object\.spec\.initContainers\{name: "init-0", image: "img:1", restartPolicy: "Always"\}/);
    assert.match(e, /"\/spec\/initContainers\/1", value: Object\.spec\.initContainers\{name: "init-1"/);
    assert.match(e, /has\(object\.spec\.initContainers\) \?/);
  });

  it('splices printed pod fields into CEL strings, with the missing-value default the core prints', () => {
    const t =
      'spec:\n  containers:\n  - name: s\n    image: x\n    env:\n    - name: WHO\n      value: "{{ .ObjectMeta.Namespace }}/{{ .ObjectMeta.Name }}"\n' +
      '    - name: APP\n      value: {{ index .ObjectMeta.Labels "app" | quote }}\n    - name: SA\n      value: {{ quote .Spec.ServiceAccountName }}\n' +
      '    - name: TEAM\n      value: {{ annotation .ObjectMeta "example.com/team" .Values.team | quote }}\n';
    const e = expr(compilePolicy(config({ t }, { values: { team: 'none' } }), { name: 'x' }));
    assert.match(e, /value: \(request\.namespace \+ "\/" \+ \(has\(object\.metadata\.name\) \? object\.metadata\.name : ""\)\)/);
    assert.match(e, /object\.metadata\.labels\["app"\] : ""\)/);
    assert.match(e, /object\.spec\.serviceAccountName : ""\)/);
    assert.match(e, /object\.metadata\.annotations\["example\.com\/team"\] : "none"\)/);
  });

  it('refuses a pod field printed where YAML would change its type or break (unquoted)', () => {
    const t = 'spec:\n  containers:\n  - name: s\n    image: x\n    env:\n    - name: APP\n      value: {{ index .ObjectMeta.Labels "app" }}\n';
    refused(() => compilePolicy(config({ t }), { name: 'x' }), 'line 7', 'label "app"', 'quote it');
    const t2 = 'spec:\n  containers:\n  - name: s\n    image: x\n    args: ["{{ index .ObjectMeta.Annotations "a" }}"]\n';
    refused(() => compilePolicy(config({ t: t2 }), { name: 'x' }), 'annotation "a"');
  });

  it('refuses item names made from pod fields, changes to the pod, Istio post-processing and injectedAnnotations', () => {
    refused(
      () => compilePolicy(config({ t: 'spec:\n  containers:\n  - name: {{ .ObjectMeta.Name | quote }}\n    image: x\n' }), { name: 'x' }),
      'item names must be fixed',
    );
    refused(
      () => compilePolicy(config({ t: 'spec:\n  dnsPolicy: None\n  containers:\n  - name: s\n    image: x\n' }), { name: 'x' }),
      'changes the pod',
      '/spec/dnsPolicy',
    );
    refused(
      () => compilePolicy(config({ t: 'metadata:\n  labels:\n    a: b\nspec:\n  containers:\n  - name: s\n    image: x\n' }), { name: 'x' }),
      'changes the pod',
      '/metadata/labels',
    );
    refused(
      () => compilePolicy(config({ t: 'spec:\n  containers:\n  - name: s\n    image: x\n' }, { values: { istioPostProcessing: true } }), { name: 'x' }),
      'istioPostProcessing',
    );
    refused(
      () => compilePolicy(config({ t: 'spec:\n  containers:\n  - name: s\n    image: x\n' }, { injectedAnnotations: { a: 'b' } }), { name: 'x' }),
      'injectedAnnotations',
    );
  });

  it('writes one status for every pod shape: format 2 removes the lists the injection created when they are left empty', () => {
    const t =
      'spec:\n  initContainers:\n  - name: i\n    image: x\n  containers:\n  - name: s\n    image: x\n  volumes:\n  - name: v\n    emptyDir: {}\n  imagePullSecrets:\n  - name: reg\n';
    const c = compilePolicy(config({ t }), { name: 'x' });
    const variables = (c.policy.spec as any).variables as { name: string; expression: string }[];
    assert.deepEqual(
      variables.map((v) => v.name),
      ['status'],
      'no per-shape undo record',
    );
    const status = JSON.parse(JSON.parse(variables[0].expression)) as Record<string, unknown>;
    assert.deepEqual(status, {
      initContainers: ['i'],
      containers: ['s'],
      volumes: ['v'],
      imagePullSecrets: ['reg'],
      revision: 'default',
      templates: ['t'],
      templateHash: status.templateHash,
      v: 2,
    });
  });

  it('binds unlabelled namespaces too with enableNamespacesByDefault', () => {
    const c = compilePolicy(config({ t: 'spec:\n  containers:\n  - name: s\n    image: x\n' }), {
      name: 'x',
      enableNamespacesByDefault: true,
      failurePolicy: 'Ignore',
    });
    assert.deepEqual(
      c.bindings.map((b) => (b.metadata as any).name),
      ['x-namespace', 'x-object', 'x-auto'],
    );
    assert.equal((c.policy.spec as any).failurePolicy, 'Ignore');
  });
});

describe('policy examples', () => {
  it('the committed policy YAMLs are what the compiler writes for the example configs', async () => {
    const { readFileSync } = await import('node:fs');
    const { stringifyObject } = await import('../yaml/emit.js');
    for (const [cfg, name, out] of [
      ['policy-nginx-sidecar/config.yaml', 'nginx-sidecar', 'policy-nginx-sidecar/nginx-policy.yaml'],
      ['policy-log-shipper/config.yaml', 'log-shipper', 'policy-log-shipper/policy.yaml'],
    ]) {
      const c = compilePolicy(await loadConfig(example(cfg)), { name });
      const text = [c.policy, ...c.bindings].map((d) => stringifyObject(d)).join('---\n');
      assert.equal(
        readFileSync(example(out), 'utf8'),
        text,
        `${out} is stale: sidecar-injector policy -c examples/${cfg} --name ${name} --output-file examples/${out}`,
      );
    }
  });
});
