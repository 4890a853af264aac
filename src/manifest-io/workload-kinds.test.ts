import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { InputError } from '../errors.js';
import type { JsonObject, JsonValue } from '../util/json.js';
import { readManifest } from './documents.js';
import { podTemplates, withPodTemplate, workloadKind } from './workload-kinds.js';

const fixture = (name: string): string => readFileSync(new URL(`../../testdata/manifests/${name}`, import.meta.url), 'utf8');
const CONFORMANCE = new URL('../../../shared/conformance/istio/inject/', import.meta.url);

function shapeError(value: JsonValue): InputError {
  try {
    podTemplates(value, { file: 'f.yaml', document: 3, line: 12 });
  } catch (err) {
    assert.ok(err instanceof InputError);
    return err;
  }
  assert.fail('expected an InputError');
}

describe('podTemplates: where each workload keeps its pod template', () => {
  const docs = readManifest(fixture('all-kinds.yaml'), 'all-kinds.yaml');
  const found = docs.map((d) => podTemplates(d.value).map((t) => ({ kind: t.owner.kind, name: t.owner.name, path: t.path.join('.') })));

  const expected: Array<[string, string, string]> = [
    ['Pod', 'pod', ''],
    ['Deployment', 'deploy', 'spec.template'],
    ['StatefulSet', 'sts', 'spec.template'],
    ['DaemonSet', 'ds', 'spec.template'],
    ['ReplicaSet', 'rs', 'spec.template'],
    ['ReplicationController', 'rc', 'spec.template'],
    ['Job', 'job', 'spec.template'],
    ['CronJob', 'cron', 'spec.jobTemplate.spec.template'],
    ['DeploymentConfig', 'dc', 'spec.template'],
    ['Deployment', 'legacy', 'spec.template'],
  ];
  expected.forEach(([kind, name, path], i) => {
    it(`${kind} ${name}: ${path || 'the Pod itself'}`, () => {
      assert.deepEqual(found[i], [{ kind, name, path }]);
    });
  });

  it('leaves a custom resource that is also called Deployment, and a Service, alone', () => {
    assert.deepEqual(found[10], []);
    assert.deepEqual(found[11], []);
  });

  it('looks inside v1 List items (recursively) and skips items that are not workloads', () => {
    assert.deepEqual(found[12], [
      { kind: 'Deployment', name: 'in-list', path: 'items.1.spec.template' },
      { kind: 'Job', name: 'nested', path: 'items.2.items.0.spec.template' },
    ]);
  });

  it('gives the template, its metadata and spec, and the owner (namespace, metadata)', () => {
    const [pod] = podTemplates(docs[0].value);
    assert.equal(pod.owner.namespace, 'ns');
    assert.deepEqual(pod.template, { metadata: { name: 'pod', namespace: 'ns' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    const [deploy] = podTemplates(docs[1].value);
    assert.deepEqual(deploy.metadata, { labels: { app: 'a' } });
    assert.deepEqual(deploy.owner.metadata, { name: 'deploy' });
    assert.equal(deploy.spec, (deploy.template as any).spec);
    const [inList] = podTemplates(docs[12].value);
    assert.equal(inList.owner.namespace, 'team');
    assert.deepEqual(inList.owner.path, ['items', 1]);
  });

  it('yields nothing for non-objects and objects without kind/apiVersion', () => {
    for (const v of [null, 'text', 42, [1], {}, { kind: 'Deployment' }, { apiVersion: 'apps/v1' }]) assert.deepEqual(podTemplates(v as JsonValue), []);
    assert.equal(workloadKind({ apiVersion: 'apps/v1', kind: 'Deployment' })?.kind, 'Deployment');
    assert.equal(workloadKind({ apiVersion: 'v1', kind: 'DeploymentConfig' })?.kind, 'DeploymentConfig');
    assert.equal(workloadKind({ apiVersion: 'batch/v1beta1', kind: 'CronJob' })?.kind, 'CronJob');
  });

  it('rejects a malformed template with the kind, name, field and document', () => {
    const err = shapeError({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { template: 'oops' } });
    assert.equal(err.code, 'SI_INPUT_OBJECT');
    assert.equal(err.message, 'Deployment "shop/web": spec.template must be an object (the pod template), found a string ("oops")');
    assert.deepEqual(err.location, { file: 'f.yaml', document: 3, line: 12 });
    assert.match(
      shapeError({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' }, spec: {} }).message,
      /CronJob "c": spec\.jobTemplate must be an object/,
    );
    assert.match(shapeError({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }).message, /Pod "p": spec must be an object, found nothing/);
    assert.match(
      shapeError({ apiVersion: 'apps/v1', kind: 'Deployment', spec: { template: { spec: [] } } }).message,
      /spec\.template\.spec must be an object \(the pod spec\), found a list/,
    );
    assert.match(
      shapeError({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'Pod', metadata: 'x', spec: {} }] }).message,
      /metadata must be an object/,
    );
    assert.match(shapeError({ apiVersion: 'v1', kind: 'List', items: ['x'] }).message, /at items\[0\]: a List item must be an object/);
  });

  it('finds the templates of every Istio injection input', { skip: !existsSync(CONFORMANCE) && 'shared conformance data absent' }, () => {
    const read = (name: string) => readManifest(readFileSync(new URL(name, CONFORMANCE)), name);
    const paths = (name: string) => read(name).flatMap((d) => podTemplates(d.value).map((t) => `${t.owner.kind}:${t.path.join('.')}`));
    assert.deepEqual(paths('cronjob.yaml'), ['CronJob:spec.jobTemplate.spec.template']);
    assert.deepEqual(paths('hello-multi.yaml'), ['Deployment:spec.template', 'Deployment:spec.template']);
    assert.deepEqual(paths('list.yaml'), ['Deployment:items.0.spec.template', 'Deployment:items.1.spec.template']);
    assert.deepEqual(paths('deploymentconfig-multi.yaml'), ['DeploymentConfig:items.1.spec.template']);
    assert.deepEqual(paths('hello-service.yaml'), []);
  });
});

describe('withPodTemplate', () => {
  const deployment: JsonObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { replicas: 2, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [] } }, strategy: {} },
  };

  it('returns a new document with the template replaced, keeping key order and not touching the input', () => {
    const before = JSON.stringify(deployment);
    const out = withPodTemplate(deployment, ['spec', 'template'], {
      metadata: { labels: { app: 'web', injected: 'yes' } },
      spec: { containers: [{ name: 'sidecar' }] },
    }) as any;
    assert.equal(JSON.stringify(deployment), before);
    assert.deepEqual(Object.keys(out.spec), ['replicas', 'template', 'strategy']);
    assert.deepEqual(out.spec.template.spec.containers, [{ name: 'sidecar' }]);
    assert.equal(out.metadata, deployment.metadata); // untouched branches are shared, not copied
  });

  it('puts a Pod template back as the Pod metadata and spec', () => {
    const pod: JsonObject = { apiVersion: 'v1', kind: 'Pod', spec: { containers: [] }, status: {} };
    const [ref] = podTemplates(pod);
    const out = withPodTemplate(pod, ref.path, { metadata: { name: 'p', annotations: { a: 'b' } }, spec: { containers: [{ name: 'x' }] } }) as JsonObject;
    assert.deepEqual(Object.keys(out), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    assert.deepEqual(out.metadata, { name: 'p', annotations: { a: 'b' } });
    assert.deepEqual(out.spec, { containers: [{ name: 'x' }] });
  });

  it('replaces templates inside List items by their path', () => {
    const docs = readManifest(fixture('all-kinds.yaml'), 'f');
    const list = docs[12].value;
    const refs = podTemplates(list);
    let out = list;
    for (const ref of refs) out = withPodTemplate(out, ref.path, { ...ref.template, metadata: { labels: { done: 'true' } } });
    assert.deepEqual(
      podTemplates(out).map((t) => t.metadata),
      [{ labels: { done: 'true' } }, { labels: { done: 'true' } }],
    );
    assert.deepEqual((out as any).items[0], (list as any).items[0]);
  });

  it('keeps a `__proto__` key as data while copying', () => {
    const obj = JSON.parse('{"apiVersion":"apps/v1","kind":"Deployment","__proto__":{"x":1},"spec":{"template":{"spec":{}}}}') as JsonObject;
    const out = withPodTemplate(obj, ['spec', 'template'], { spec: { containers: [] } }) as JsonObject;
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.ok(Object.hasOwn(out, '__proto__'));
  });
});
