import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { defaultConfig, parseConfig } from '../profiles/index.js';
import { InjectorError } from '../errors.js';
import { readManifest } from '../manifest-io/index.js';
import type { JsonObject } from '../util/json.js';
import { injectManifest } from './inject-manifest.js';
import { templateFromPod } from './pod-templates.js';
import { uninjectManifest } from './uninject-manifest.js';

const config = defaultConfig();
/** A tiny config: one container, so outputs are short enough to assert on whole. */
const tiny = parseConfig(
  `policy: enabled
templates:
  sidecar: |
    spec:
      containers:
      - name: helper
        image: helper:1
        env:
        - name: WORKLOAD
          value: {{ .DeploymentMeta.Name | quote }}
        - name: NS
          value: {{ .DeploymentMeta.Namespace | quote }}
`,
  undefined,
  'tiny',
);

const deployment = (name: string, extra = ''): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
${extra}spec:
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: app
        image: app:1
`;

const values = (text: string) => readManifest(text, 'out').map((d) => d.value as JsonObject);
const containersOf = (obj: JsonObject): string[] => ((obj.spec as any).template.spec.containers as JsonObject[]).map((c) => c.name as string);

describe('injectManifest', () => {
  it('injects workloads, keeps other documents byte for byte and the comments leading a rewritten one', () => {
    const input = `# leading comment of the stream\nkind: Service\napiVersion: v1\nmetadata: {name: s}   # odd: flow style\n---\n# about the deployment\n${deployment('web')}---\n# only a comment\n`;
    const out = injectManifest(input, 'in.yaml', tiny);
    const docsIn = readManifest(input, 'in');
    const docsOut = readManifest(out.text, 'out');
    assert.equal(docsOut.length, 3);
    assert.equal(docsOut[0].text, docsIn[0].text);
    assert.equal(docsOut[2].text, docsIn[2].text);
    assert.match(docsOut[1].text, /^# about the deployment\napiVersion: apps\/v1\nkind: Deployment\n/);
    assert.deepEqual(containersOf(docsOut[1].value as JsonObject), ['app', 'helper']);
    assert.equal(out.changed, 1);
    assert.equal(out.unchanged, 0);
    assert.deepEqual(out.notes, []);
  });

  it('passes the workload as the owner and the namespace from the object, the option, or default', () => {
    const env = (text: string) => ((values(text)[0].spec as any).template.spec.containers[1].env as JsonObject[]).map((e) => e.value);
    assert.deepEqual(env(injectManifest(deployment('web', '  namespace: shop\n'), 'f', tiny).text), ['web', 'shop']);
    assert.deepEqual(env(injectManifest(deployment('web'), 'f', tiny, { namespace: 'team' }).text), ['web', 'team']);
    assert.deepEqual(env(injectManifest(deployment('web'), 'f', tiny).text), ['web', 'default']);
  });

  it('keeps an already-injected document byte for byte when injecting again changes nothing', () => {
    const once = injectManifest(deployment('web'), 'f', tiny).text;
    const commented = once.replace('kind: Deployment\n', 'kind: Deployment # added after injection\n');
    const again = injectManifest(commented, 'f', tiny);
    assert.equal(again.text, commented);
    assert.equal(again.changed, 0);
    assert.equal(again.unchanged, 1);
  });

  it('reports skips per template with kind, namespace/name, document and reason', () => {
    const input = `${deployment('web')}---\n${deployment('host').replace('    spec:\n      containers', '    spec:\n      hostNetwork: true\n      containers')}`;
    const out = injectManifest(input, 'f', tiny, { namespace: 'ns' });
    const [skip] = out.notes.filter((n) => n.type === 'skipped');
    assert.equal(skip.kind, 'Deployment');
    assert.equal(skip.name, 'host');
    assert.equal(skip.namespace, 'ns');
    assert.equal(skip.document, 1);
    assert.equal(skip.reason, 'host-network');
    assert.match(skip.message, /hostNetwork/);
    // The skipped document is untouched.
    assert.equal(readManifest(out.text, 'o')[1].text, readManifest(input, 'i')[1].text);
  });

  it('injects every workload inside a v1 List and leaves other items alone', () => {
    const input = `apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n- {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: app, image: i}]}}\n`;
    const [list] = values(injectManifest(input, 'f', tiny).text);
    const items = list.items as JsonObject[];
    assert.deepEqual(items[0], { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
    assert.deepEqual(
      ((items[1].spec as JsonObject).containers as JsonObject[]).map((c) => c.name),
      ['app', 'helper'],
    );
  });

  it('is all or nothing: a failing template throws with its document and line, after earlier documents succeeded', () => {
    const bad = deployment('bad').replace('      labels: {app: bad}\n', '      labels: {app: bad}\n      annotations: {inject.istio.io/templates: missing}\n');
    assert.throws(
      () => injectManifest(`${deployment('ok')}---\n${bad}`, 'two.yaml', config),
      (e: unknown) =>
        e instanceof InjectorError &&
        e.location?.document === 1 &&
        e.location.line === 20 &&
        e.location.file === 'two.yaml' &&
        /^Deployment "default\/bad": template "missing"/.test(e.message),
    );
  });

  it('malformed documents are InputErrors with index and line', () => {
    assert.throws(
      () => injectManifest(`${deployment('ok')}---\nkind: Pod\n  bad: indent\n`, 'm.yaml', config),
      (e: unknown) => e instanceof InjectorError && e.code === 'SI_INPUT_YAML' && e.location?.document === 1 && e.location.line === 15,
    );
    assert.throws(
      () => injectManifest('apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {}\n', 'm.yaml', config),
      (e: unknown) => e instanceof InjectorError && e.code === 'SI_INPUT_OBJECT' && /spec\.template/.test(e.message),
    );
  });

  it('keeps CRLF line endings in rewritten documents', () => {
    const input = deployment('w').replaceAll('\n', '\r\n');
    const out = injectManifest(input, 'f', tiny).text;
    assert.ok(!/[^\r]\n/.test(out), 'every line break is CRLF');
    assert.deepEqual(containersOf(values(out)[0]), ['app', 'helper']);
  });

  it('reads YAML as Kubernetes does: 0644 is 420 in the rewritten document', () => {
    const input = `apiVersion: v1
kind: Pod
metadata: {name: yaml11}
spec:
  containers: [{name: app, image: i}]
  volumes: [{name: v, configMap: {name: c, defaultMode: 0644}}]
`;
    const out = values(injectManifest(input, 'f', tiny).text)[0];
    assert.equal((out.spec as any).volumes[0].configMap.defaultMode, 420);
  });

  it('uninject(inject(x)) == x and inject is idempotent, for generated workloads', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}[a-z0-9]$/);
    fc.assert(
      fc.property(name, fc.array(name, { minLength: 1, maxLength: 4 }), fc.option(name, { nil: undefined }), fc.boolean(), (wl, containers, ns, labels) => {
        const uniq = [...new Set(containers)].filter((c) => c !== 'sidecar-proxy' && c !== 'proxy-init');
        fc.pre(uniq.length > 0);
        // Names are quoted: `on`, `no`, `yes` and `off` match the pattern and are booleans in YAML 1.1.
        const q = JSON.stringify;
        const input = `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${q(wl)}\n${ns ? `  namespace: ${q(ns)}\n` : ''}spec:\n  template:\n${labels ? '    metadata:\n      labels: {app: x}\n' : ''}    spec:\n      containers:\n${uniq.map((c) => `      - name: ${q(c)}\n        image: img/${c}:1\n`).join('')}`;
        const once = injectManifest(input, 'f', config).text;
        assert.equal(injectManifest(once, 'f', config).text, once);
        const back = uninjectManifest(once, 'f', config).text;
        assert.deepEqual(values(back), values(input));
      }),
      { numRuns: 25 },
    );
  });

  it('stays linear: 400 documents inject quickly', () => {
    const input = Array.from({ length: 400 }, (_, i) =>
      i % 2 === 0 ? deployment(`w${i}`) : `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c${i}}\n`,
    ).join('---\n');
    const start = performance.now();
    const out = injectManifest(input, 'f', config);
    assert.equal(out.changed, 200);
    assert.ok(performance.now() - start < 10_000, 'generous bound: a quadratic pass would take far longer');
  });
});

describe('templateFromPod', () => {
  it('keeps the template key order and adds metadata first when the template had none', () => {
    const original = { spec: { containers: [] }, metadata: { labels: { a: 'b' } } } as unknown as JsonObject;
    assert.deepEqual(Object.keys(templateFromPod(original, { metadata: { labels: {} }, spec: {} })), ['spec', 'metadata']);
    assert.deepEqual(Object.keys(templateFromPod({ spec: {} }, { metadata: { annotations: {} }, spec: {} })), ['metadata', 'spec']);
  });
});
