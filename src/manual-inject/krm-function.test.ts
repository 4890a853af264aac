import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultConfig } from '../profiles/index.js';
import { ConfigError } from '../errors.js';
import { findResourceList, readManifest, type ResourceList } from '../manifest-io/index.js';
import { REPO } from '../../test/support/manual-goldens.js';
import type { JsonObject } from '../util/json.js';
import { krmSettings, runKrm } from './krm-function.js';

const config = defaultConfig();

function resourceList(items: string, functionConfig = ''): ResourceList {
  const rl = findResourceList(readManifest(`apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${items}${functionConfig}`, '<stdin>'));
  assert.ok(rl);
  return rl;
}

const DEPLOYMENT = `- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    namespace: shop
    annotations:
      internal.config.kubernetes.io/path: app.yaml
      internal.config.kubernetes.io/index: '0'
  spec:
    template:
      metadata: {labels: {app: web}}
      spec:
        containers: [{name: web, image: nginx}]
`;
const HOST = `- apiVersion: v1
  kind: Pod
  metadata:
    name: host
    annotations: {internal.config.kubernetes.io/path: pod.yaml}
  spec:
    hostNetwork: true
    containers: [{name: c, image: i}]
`;
const SERVICE = `- {apiVersion: v1, kind: Service, metadata: {name: web, annotations: {internal.config.kubernetes.io/path: app.yaml, internal.config.kubernetes.io/index: '1'}}}
`;

const parse = (text: string) => readManifest(text, 'out')[0].value as any;

describe('KRM function mode', () => {
  it('injects items in place, keeps their annotations and other items, reports skips as info results', () => {
    const rl = resourceList(DEPLOYMENT + SERVICE + HOST);
    const out = runKrm(rl, 'inject', config, {});
    assert.equal(out.exitCode, 0);
    const back = parse(out.text);
    assert.deepEqual(Object.keys(back), ['apiVersion', 'kind', 'items', 'results']);
    const [dep, svc, pod] = back.items;
    assert.deepEqual(dep.metadata, rl.items[0].metadata, 'workload metadata with kpt annotations unchanged');
    assert.deepEqual(
      dep.spec.template.spec.containers.map((c: JsonObject) => c.name),
      ['web', 'sidecar-proxy'],
    );
    assert.deepEqual(svc, rl.items[1]);
    assert.deepEqual(pod, rl.items[2]);
    assert.deepEqual(out.results, [
      {
        message: 'skipped: pod has hostNetwork: true; sidecars are never injected into host-network pods (host-network)',
        severity: 'info',
        resourceRef: { apiVersion: 'v1', kind: 'Pod', name: 'host' },
        file: { path: 'pod.yaml' },
      },
    ]);
  });

  it('uses an injector config and namespace from a ConfigMap functionConfig, and keeps functionConfig', () => {
    const fc = `functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: fn}
  data:
    namespace: team
    config: |
      templates:
        sidecar: |
          spec:
            containers:
            - name: from-fn-config
              image: x
              env: [{name: NS, value: {{ .DeploymentMeta.Namespace | quote }}}]
`;
    const rl = resourceList(`- {apiVersion: batch/v1, kind: Job, metadata: {name: j}, spec: {template: {spec: {containers: [{name: c, image: i}]}}}}\n`, fc);
    const settings = krmSettings(rl);
    assert.equal(settings.namespace, 'team');
    assert.ok(settings.config);
    const out = runKrm(rl, 'inject', settings.config, { namespace: settings.namespace }, settings.results);
    const back = parse(out.text);
    const injected = back.items[0].spec.template.spec.containers[1];
    assert.equal(injected.name, 'from-fn-config');
    assert.deepEqual(injected.env, [{ name: 'NS', value: 'team' }]);
    assert.deepEqual(back.functionConfig, rl.functionConfig);
  });

  it('warns about functionConfig it does not use', () => {
    const other = krmSettings(resourceList(' []\n', 'functionConfig: {apiVersion: example.com/v1, kind: Setter, metadata: {name: s}}\n'));
    assert.match(other.results[0].message, /functionConfig Setter "s" is not used/);
    const keys = krmSettings(resourceList(' []\n', 'functionConfig: {apiVersion: v1, kind: ConfigMap, metadata: {name: s}, data: {nmespace: x}}\n'));
    assert.match(keys.results[0].message, /data\.nmespace is not used; known keys: config, values, namespace/);
  });

  it('an invalid data.config is a ConfigError naming the functionConfig', () => {
    const rl = resourceList(' []\n', 'functionConfig: {apiVersion: v1, kind: ConfigMap, metadata: {name: fn}, data: {config: "policy: [", values: "{}"}}\n');
    assert.throws(
      () => krmSettings(rl),
      (e: unknown) => e instanceof ConfigError && /functionConfig ConfigMap "fn"/.test(e.message),
    );
  });

  it('all or nothing: an error in one item returns every item unchanged, an error result and exit 1', () => {
    const bad = `- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: bad}
  spec: {template: {metadata: {annotations: {inject.istio.io/templates: nope}}, spec: {containers: [{name: c, image: i}]}}}
`;
    const rl = resourceList(DEPLOYMENT + bad);
    const out = runKrm(rl, 'inject', config, {});
    assert.equal(out.exitCode, 1);
    assert.deepEqual(parse(out.text).items, rl.items);
    const error = out.results.find((r) => r.severity === 'error');
    assert.ok(error);
    assert.deepEqual(error.resourceRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'bad' });
    assert.match(error.message, /^\[SI_INJECT_TEMPLATE_MISSING\]/);
    assert.ok(out.error);
  });

  it('uninjects items injected in KRM mode', () => {
    const rl = resourceList(DEPLOYMENT);
    const injected = findResourceList(readManifest(runKrm(rl, 'inject', config, {}).text, 'x'))!;
    const back = runKrm(injected, 'uninject', config, {});
    assert.deepEqual(parse(back.text).items, rl.items);
  });
});

function hasKpt(): boolean {
  return spawnSync('kpt', ['version'], { stdio: 'ignore' }).status === 0;
}

/** A package directory with the istio-proxy example and an untouched ConfigMap file. */
function makePackage(dir: string): string {
  const pkg = join(dir, 'pkg');
  mkdirSync(pkg, { recursive: true });
  cpSync(join(REPO, 'examples/istio-proxy/app.yaml'), join(pkg, 'app.yaml'));
  writeFileSync(
    join(pkg, 'settings.yaml'),
    '# settings, untouched\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings   # keep me\ndata:\n  mode: "on"\n',
  );
  return pkg;
}

/** The exec wrapper kpt runs: our CLI from this checkout, reading the ResourceList on stdin. */
function makeWrapper(dir: string): string {
  const exec = join(dir, 'inject.sh');
  writeFileSync(exec, `#!/bin/sh\ncd ${JSON.stringify(REPO)} && exec node --import tsx src/cli/main.ts inject -f - "$@"\n`);
  chmodSync(exec, 0o755);
  return exec;
}

describe('with the real kpt', { skip: !hasKpt() && 'kpt not installed' }, () => {
  it('kpt fn eval --exec injects the package files; untouched files and comments survive', () => {
    const dir = mkdtempSync(join(tmpdir(), 'krm-inject-'));
    try {
      const pkg = makePackage(dir);
      const run = spawnSync('kpt', ['fn', 'eval', pkg, '--exec', makeWrapper(dir)], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(run.status, 0, run.stderr + run.stdout);
      const app = readFileSync(join(pkg, 'app.yaml'), 'utf8');
      assert.match(app, /name: sidecar-proxy/);
      assert.match(app, /name: proxy-init/);
      assert.match(app, /sidecar\.istio\.io\/status/);
      assert.match(app, /targetPort: http # the container port's name/, 'comments in the untouched Service survive');
      // kpt itself re-serialises every file it reads (kyaml), so only the content and the
      // comments of an untouched file can be asserted, not its exact bytes.
      const settings = readFileSync(join(pkg, 'settings.yaml'), 'utf8');
      assert.match(settings, /^# settings, untouched\n/);
      assert.match(settings, /name: settings +# keep me/);
      assert.deepEqual(readManifest(settings, 's')[0].value, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'on' } });
      assert.doesNotMatch(app, /config\.kubernetes\.io/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('kpt fn eval --fn-config: a ConfigMap carrying the log-shipper config; skips show as results', () => {
    const dir = mkdtempSync(join(tmpdir(), 'krm-inject-'));
    try {
      const pkg = join(dir, 'pkg');
      mkdirSync(pkg);
      cpSync(join(REPO, 'examples/log-shipper/app.yaml'), join(pkg, 'app.yaml'));
      writeFileSync(
        join(pkg, 'host.yaml'),
        'apiVersion: v1\nkind: Pod\nmetadata:\n  name: host\nspec:\n  hostNetwork: true\n  containers:\n  - name: c\n    image: i\n',
      );
      const configText = readFileSync(join(REPO, 'examples/log-shipper/config.yaml'), 'utf8');
      const fnConfig = join(dir, 'fn-config.yaml');
      writeFileSync(fnConfig, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: log-shipper\ndata:\n  config: |\n${configText.replace(/^/gm, '    ')}\n`);
      const run = spawnSync('kpt', ['fn', 'eval', pkg, '--exec', makeWrapper(dir), '--fn-config', fnConfig], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(run.status, 0, run.stderr + run.stdout);
      assert.match(run.stdout + run.stderr, /\[info\] v1\/Pod\/host: skipped: pod has hostNetwork: true/);
      const app = readFileSync(join(pkg, 'app.yaml'), 'utf8');
      assert.equal(app.match(/name: log-shipper/g)?.length, 2, 'the Deployment and the CronJob');
      assert.match(app, /^# An app that writes its log file/, 'the leading comment of a rewritten document is kept');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('kpt fn render: the examples/krm-function/kpt package and its Kptfile pipeline', () => {
    const dir = mkdtempSync(join(tmpdir(), 'krm-render-'));
    try {
      const pkg = join(dir, 'kpt');
      cpSync(join(REPO, 'examples/krm-function/kpt'), pkg, { recursive: true });
      // The example's wrapper calls an installed sidecar-injector; use this checkout instead.
      cpSync(makeWrapper(dir), join(pkg, 'inject.sh'));
      // kpt resolves a relative exec path against its working directory.
      const run = spawnSync('kpt', ['fn', 'render', '.', '--allow-exec'], { cwd: pkg, encoding: 'utf8', timeout: 120_000 });
      assert.equal(run.status, 0, run.stderr + run.stdout);
      const app = readFileSync(join(pkg, 'app.yaml'), 'utf8');
      assert.match(app, /name: sidecar-proxy/);
      assert.match(app, /^# A kpt package/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a failing injection fails the kpt run and leaves the files alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'krm-fail-'));
    try {
      const pkg = makePackage(dir);
      const bad =
        'apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\n  annotations:\n    inject.istio.io/templates: nope\nspec:\n  containers:\n  - name: c\n    image: i\n';
      writeFileSync(join(pkg, 'bad.yaml'), bad);
      const before = readFileSync(join(pkg, 'app.yaml'), 'utf8');
      const run = spawnSync('kpt', ['fn', 'eval', pkg, '--exec', makeWrapper(dir)], { encoding: 'utf8', timeout: 120_000 });
      assert.notEqual(run.status, 0);
      assert.match(run.stdout + run.stderr, /SI_INJECT_TEMPLATE_MISSING/);
      assert.equal(readFileSync(join(pkg, 'app.yaml'), 'utf8'), before);
      assert.equal(readFileSync(join(pkg, 'bad.yaml'), 'utf8'), bad);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function hasStandaloneKustomize(): boolean {
  return spawnSync('kustomize', ['version'], { stdio: 'ignore' }).status === 0;
}

describe('with kustomize', () => {
  it('kustomize build --enable-exec runs the transformer of examples/krm-function/kustomize', {
    skip: !hasStandaloneKustomize() && 'no standalone kustomize (kubectl kustomize cannot run exec functions)',
  }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'krm-kustomize-'));
    try {
      const kdir = join(dir, 'kustomize');
      cpSync(join(REPO, 'examples/krm-function/kustomize'), kdir, { recursive: true });
      cpSync(makeWrapper(dir), join(kdir, 'inject.sh'));
      const run = spawnSync('kustomize', ['build', '--enable-alpha-plugins', '--enable-exec', kdir], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /name: sidecar-proxy/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('kubectl kustomize leaves exec transformers out (documented in the example README)', {
    skip: spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status !== 0 && 'kubectl not installed',
  }, () => {
    const run = spawnSync('kubectl', ['kustomize', '--enable-alpha-plugins', join(REPO, 'examples/krm-function/kustomize')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stdout, /sidecar-proxy/);
    assert.match(readFileSync(join(REPO, 'examples/krm-function/README.md'), 'utf8'), /`kubectl kustomize` has no\s+`--enable-exec` flag/);
  });
});
