import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig, parseConfig } from '../profiles/index.js';
import { InputError } from '../errors.js';
import { explainManifest, type ExplainEntry } from './explain-manifest.js';
import { formatExplainJson, formatExplainText } from './explain-format.js';

const config = defaultConfig();
const one = (yaml: string, options = {}): ExplainEntry => {
  const entries = explainManifest(yaml, 'app.yaml', config, options);
  assert.equal(entries.length, 1);
  return entries[0];
};

const deployment = (opts: { meta?: string; templateMeta?: string; spec?: string; ns?: string } = {}): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
${opts.ns ? `  namespace: ${opts.ns}\n` : ''}${opts.meta ?? ''}spec:
  template:
    metadata:
      labels:
        app: web
${opts.templateMeta ?? ''}    spec:
${opts.spec ?? ''}      containers:
      - name: web
        image: nginx
`;

describe('explain: the webhook layer', () => {
  it('assumes a labelled namespace when no labels are given, and says what an unlabelled one would do', () => {
    const e = one(deployment());
    assert.equal(e.namespaceLabelsAssumed, true);
    assert.deepEqual(e.namespaceLabels, { 'istio-injection': 'enabled' });
    assert.equal(e.reached, true);
    assert.equal(e.via, 'namespace.sidecar-injector.io');
    assert.equal(e.injected, true);
    assert.equal(e.reason, 'policy-enabled');
    assert.ok(e.warnings.some((w) => w.includes('without the istio-injection=enabled label the pod would not reach the webhook')));
  });

  it('an unlabelled namespace and no pod label: not reached, and says what to label', () => {
    const e = one(deployment({ ns: 'shop' }), { namespaceLabels: {} });
    assert.equal(e.reached, false);
    assert.equal(e.injected, false);
    assert.equal(e.reason, 'object-not-selected');
    assert.match(e.message, /namespace shop is not labelled istio-injection=enabled/);
    assert.equal(e.namespace, 'shop');
  });

  it('a pod label inject=true reaches the webhook from an unlabelled namespace (object entry)', () => {
    const e = one(deployment().replace('        app: web\n', '        app: web\n        sidecar.istio.io/inject: "true"\n'), { namespaceLabels: {} });
    assert.equal(e.reached, true);
    assert.equal(e.via, 'object.sidecar-injector.io');
    assert.equal(e.injected, true);
    assert.equal(e.reason, 'explicit-enabled');
  });

  it('a namespace labelled disabled is never reached, whatever the pod says', () => {
    const e = one(deployment().replace('        app: web\n', '        app: web\n        sidecar.istio.io/inject: "true"\n'), {
      namespaceLabels: { 'istio-injection': 'disabled' },
    });
    assert.equal(e.reached, false);
    assert.equal(e.reason, 'namespace-not-selected');
    assert.match(e.message, /has istio-injection=disabled, so no webhook entry selects it/);
  });

  it('system namespaces and the injector namespace are excluded', () => {
    const e = one(deployment({ ns: 'kube-system' }));
    assert.equal(e.reached, false);
    assert.equal(e.reason, 'namespace-not-selected');
    assert.match(e.message, /excluded from the webhook/);
    assert.equal(one(deployment({ ns: 'mesh' }), { injectorNamespace: 'mesh' }).reached, false);
    assert.equal(one(deployment({ ns: 'legacy' }), { excludedNamespaces: ['legacy'] }).reason, 'namespace-not-selected');
  });

  it('without match conditions a hostNetwork pod reaches the webhook and the injector skips it', () => {
    const e = one(deployment({ spec: '      hostNetwork: true\n' }), { matchConditions: false });
    assert.equal(e.reached, true);
    assert.equal(e.injected, false);
    assert.equal(e.reason, 'host-network');
  });

  it('hostNetwork pods are filtered by the match condition; the reason is host-network', () => {
    const e = one(deployment({ spec: '      hostNetwork: true\n' }));
    assert.equal(e.reached, false);
    assert.equal(e.reason, 'host-network');
    assert.match(e.message, /hostNetwork/);
  });

  it('label inject=false: the namespace entry does not call the webhook', () => {
    const e = one(deployment().replace('        app: web\n', '        app: web\n        sidecar.istio.io/inject: "false"\n'));
    assert.equal(e.reached, false);
    assert.equal(e.reason, 'explicit-disabled');
  });

  it('lists the steps of both layers in order', () => {
    const e = one(deployment(), { namespaceLabels: { 'istio-injection': 'enabled' } });
    const layers = e.steps.map((s) => s.layer);
    assert.ok(layers.indexOf('injector') > layers.lastIndexOf('webhook'), 'webhook steps come first');
    assert.ok(e.steps.some((s) => s.layer === 'injector' && s.check === 'policy' && s.found === 'enabled'));
  });
});

describe('explain: the injector rules in webhook mode', () => {
  it('applies the config policy and selectors (unlike inject -f)', () => {
    const disabled = parseConfig('policy: disabled\ntemplates:\n  sidecar: "spec: {}"\n');
    const [e] = explainManifest(deployment(), 'f', disabled);
    assert.equal(e.reached, true);
    assert.equal(e.injected, false);
    assert.equal(e.reason, 'policy-disabled');
    const never = parseConfig('policy: enabled\nneverInjectSelector:\n- matchLabels: {app: web}\ntemplates:\n  sidecar: "spec: {}"\n');
    assert.equal(explainManifest(deployment(), 'f', never)[0].reason, 'never-inject-selector');
  });
});

describe('explain: misplacement lints', () => {
  it('the inject annotation on the Deployment metadata instead of the template', () => {
    const e = one(deployment({ meta: '  annotations:\n    sidecar.istio.io/inject: "true"\n' }));
    assert.ok(
      e.warnings.some(
        (w) => w.includes('annotation sidecar.istio.io/inject="true" is on the Deployment\'s own metadata') && w.includes('spec.template.metadata.labels'),
      ),
      e.warnings.join('\n'),
    );
  });

  it('the inject label on the CronJob metadata points at the right template path', () => {
    const cron = `apiVersion: batch/v1
kind: CronJob
metadata:
  name: c
  labels: {sidecar.istio.io/inject: "false"}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers: [{name: c, image: i}]
`;
    const e = one(cron);
    assert.ok(
      e.warnings.some((w) => w.includes('move it to spec.jobTemplate.spec.template.metadata.labels')),
      e.warnings.join('\n'),
    );
    assert.equal(e.injected, true, 'the misplaced opt-out does nothing');
  });

  it('an annotation where the objectSelector needs a label', () => {
    const yaml = deployment({ templateMeta: '      annotations:\n        sidecar.istio.io/inject: "true"\n' });
    const unlabelled = one(yaml, { namespaceLabels: {} });
    assert.equal(unlabelled.reached, false);
    assert.ok(
      unlabelled.warnings.some((w) => w.includes("invisible to the webhook's objectSelector") && w.includes('never reaches the injector')),
      unlabelled.warnings.join('\n'),
    );
    const labelled = one(yaml, { namespaceLabels: { 'istio-injection': 'enabled' } });
    assert.equal(labelled.injected, true);
    assert.ok(labelled.warnings.some((w) => w.includes('only gets a sidecar in namespaces labelled istio-injection=enabled')));
  });

  it('values like "yes": on the pod (from the decision) and on the workload', () => {
    const pod = one(deployment().replace('        app: web\n', '        app: web\n        sidecar.istio.io/inject: "yes"\n'));
    assert.ok(
      pod.warnings.some((w) => w.includes('"yes"') && w.includes('Write "true"')),
      pod.warnings.join('\n'),
    );
    const workload = one(deployment({ meta: '  labels:\n    sidecar.istio.io/inject: enabled\n' }));
    assert.ok(
      workload.warnings.some((w) => w.includes('label sidecar.istio.io/inject="enabled" ignored') && w.includes('Write "true"')),
      workload.warnings.join('\n'),
    );
  });

  it('a namespace label value other than enabled/disabled', () => {
    const e = one(deployment(), { namespaceLabels: { 'istio-injection': 'true' } });
    assert.equal(e.reached, false);
    assert.ok(e.warnings.some((w) => w.includes('istio-injection="true" matches no webhook entry')));
  });

  it('the namespace label put on the pod or on the workload', () => {
    const pod = one(deployment().replace('        app: web\n', '        app: web\n        istio-injection: enabled\n'));
    assert.ok(
      pod.warnings.some((w) => w.includes('istio-injection does nothing on a pod')),
      pod.warnings.join('\n'),
    );
    const workload = one(deployment({ meta: '  labels:\n    istio-injection: enabled\n' }));
    assert.ok(
      workload.warnings.some((w) => w.includes('istio-injection on a Deployment does nothing')),
      workload.warnings.join('\n'),
    );
  });

  it('a templates annotation naming a template the config lacks', () => {
    const e = one(deployment({ templateMeta: '      annotations:\n        inject.istio.io/templates: sidecar, nope\n' }));
    assert.ok(
      e.warnings.some((w) => w.includes('"nope"') && w.includes('known: proxy, sidecar') && w.includes('rejects')),
      e.warnings.join('\n'),
    );
    const ok = one(deployment({ templateMeta: '      annotations:\n        inject.istio.io/templates: proxy\n' }));
    assert.ok(!ok.warnings.some((w) => w.includes('does not define')), 'an alias is a known name');
  });

  it('no lints for a clean workload in a labelled namespace', () => {
    assert.deepEqual(one(deployment(), { namespaceLabels: { 'istio-injection': 'enabled' } }).warnings, []);
  });
});

describe('explain: input and output', () => {
  it('covers every pod template of every document, List items included, and ignores other kinds', () => {
    const yaml = `apiVersion: v1
kind: Service
metadata: {name: s}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: [{name: c, image: i}]}}
- {apiVersion: batch/v1, kind: Job, metadata: {name: j}, spec: {template: {spec: {containers: [{name: c, image: i}]}}}}
`;
    const entries = explainManifest(yaml, 'f', config, { namespace: 'team' });
    assert.deepEqual(
      entries.map((e) => [e.document, e.item, e.kind, e.namespace, e.name]),
      [
        [2, 'items[0]', 'Pod', 'a', 'p'],
        [2, 'items[1]', 'Job', 'team', 'j'],
      ],
    );
  });

  it('explains the items of a KRM ResourceList', () => {
    const rl = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, image: i}]}}
`;
    assert.deepEqual(
      explainManifest(rl, 'f', config).map((e) => [e.document, e.name]),
      [[1, 'p']],
    );
  });

  it('malformed input is an error with the document and line', () => {
    assert.throws(
      () => explainManifest('a: 1\n---\nkind: [\n', 'bad.yaml', config),
      (e: unknown) => e instanceof InputError && /^bad\.yaml\W+document 2, line 4\b/.test(e.describe()),
    );
  });

  it('JSON output has the stable field names', () => {
    const json = JSON.parse(formatExplainJson(explainManifest(deployment(), 'f', config))) as Record<string, unknown>[];
    for (const key of ['document', 'kind', 'name', 'namespace', 'reached', 'injected', 'reason', 'steps', 'warnings']) assert.ok(key in json[0], key);
    const step = (json[0].steps as Record<string, unknown>[])[0];
    assert.deepEqual(Object.keys(step), ['layer', 'check', 'found', 'effect']);
  });

  it('text output: verdict line, both layers, warnings', () => {
    const text = formatExplainText(
      explainManifest(deployment({ meta: '  annotations:\n    sidecar.istio.io/inject: "true"\n' }), 'f', config, { namespaceLabels: {} }),
    );
    assert.match(text, /^Deployment "default\/web" \(document 1\): NOT INJECTED \(object-not-selected\)\n/);
    assert.match(text, /\n {2}webhook configuration \(namespace default, labels none\): not reached\n/);
    assert.match(text, /\n {2}injector rules \(what it would decide if called\):\n/);
    assert.match(text, /\n {2}warning: annotation sidecar\.istio\.io\/inject="true" is on the Deployment's own metadata/);
    assert.match(formatExplainText([]), /^no pods or pod templates found/);
  });
});
