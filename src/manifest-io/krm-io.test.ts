import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { InputError } from '../errors.js';
import type { JsonObject } from '../util/json.js';
import { readManifest } from './documents.js';
import { podTemplates, withPodTemplate } from './workload-kinds.js';
import { findResourceList, krmExitCode, readResourceList, resultFor, writeResourceList } from './krm-io.js';

const fixture = (name: string): string => readFileSync(new URL(`../../testdata/manifests/${name}`, import.meta.url), 'utf8');
const REPO = fileURLToPath(new URL('../../', import.meta.url));

function hasKpt(): boolean {
  return spawnSync('kpt', ['version'], { stdio: 'ignore' }).status === 0;
}

describe('KRM function mode: ResourceList in, ResourceList out', () => {
  const docs = readManifest(fixture('krm-resource-list.yaml'), 'stdin');

  it('recognises a ResourceList and exposes items and functionConfig', () => {
    const rl = findResourceList(docs);
    assert.ok(rl);
    assert.equal(rl.apiVersion, 'config.kubernetes.io/v1');
    assert.deepEqual(
      rl.items.map((i) => i.kind),
      ['Deployment', 'Service'],
    );
    assert.deepEqual(rl.functionConfig?.data, { revision: 'canary' });
  });

  it('is not KRM mode for ordinary manifests, or for several documents', () => {
    assert.equal(findResourceList(readManifest(fixture('all-kinds.yaml'), 'f')), undefined);
    assert.equal(findResourceList(readManifest(`${fixture('krm-resource-list.yaml')}---\nkind: Service\n`, 'f')), undefined);
  });

  it('builds results with resourceRef and the file the orchestrator recorded', () => {
    const rl = findResourceList(docs)!;
    assert.deepEqual(resultFor(rl.items[0], 'warning', 'skipped: host network', 'spec.template.spec.hostNetwork'), {
      message: 'skipped: host network',
      severity: 'warning',
      resourceRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' },
      field: { path: 'spec.template.spec.hostNetwork' },
      file: { path: 'deploy.yaml', index: 0 },
    });
    assert.deepEqual(resultFor({ kind: 'X' }, 'info', 'm'), { message: 'm', severity: 'info' });
  });

  it('writes items back with their orchestration annotations, keeps functionConfig, appends results', () => {
    const rl = findResourceList(docs)!;
    const items = rl.items.map((item) => {
      let out = item;
      for (const ref of podTemplates(item))
        out = withPodTemplate(out, ref.path, { ...ref.template, metadata: { labels: { app: 'web', injected: 'true' } } }) as JsonObject;
      return out;
    });
    const text = writeResourceList(rl, items, [resultFor(rl.items[1], 'info', 'not a workload')]);
    const [back] = readManifest(text, 'stdout');
    const out = back.value as any;
    assert.deepEqual(Object.keys(out), ['apiVersion', 'kind', 'items', 'functionConfig', 'results']);
    assert.deepEqual(out.items[0].metadata, (rl.items[0] as any).metadata);
    assert.equal(out.items[0].metadata.annotations['internal.config.kubernetes.io/path'], 'deploy.yaml');
    assert.deepEqual(out.items[0].spec.template.metadata.labels, { app: 'web', injected: 'true' });
    assert.deepEqual(out.items[1], rl.items[1]);
    assert.deepEqual(out.functionConfig, rl.functionConfig);
    assert.deepEqual(out.results, [
      { message: 'not a workload', severity: 'info', resourceRef: { apiVersion: 'v1', kind: 'Service', name: 'web' }, file: { path: 'deploy.yaml', index: 1 } },
    ]);
  });

  it('answers JSON with JSON', () => {
    const rl = findResourceList(readManifest('{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[]}', 'f'))!;
    const text = writeResourceList(rl, [], [{ message: 'x', severity: 'error' }]);
    assert.deepEqual(JSON.parse(text), {
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      items: [],
      results: [{ message: 'x', severity: 'error' }],
    });
  });

  it('exits non-zero only when a result is an error', () => {
    assert.equal(krmExitCode([{ message: 'a', severity: 'warning' }, { message: 'b' }]), 0);
    assert.equal(krmExitCode([{ message: 'a', severity: 'error' }]), 1);
  });

  it('rejects a ResourceList whose items are not resources', () => {
    const [doc] = readManifest('apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [1]\n', 'stdin');
    assert.throws(
      () => readResourceList(doc),
      (e: unknown) => e instanceof InputError && e.code === 'SI_INPUT_OBJECT',
    );
  });

  it('is accepted by `kpt fn eval --exec`: items round-trip, comments survive, results are shown', { skip: !hasKpt() && 'kpt not installed' }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'krm-'));
    try {
      const pkg = join(dir, 'pkg');
      execFileSync('mkdir', ['-p', pkg]);
      writeFileSync(
        join(pkg, 'app.yaml'),
        '# the web app\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx # pinned\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n',
      );
      const fn = join(dir, 'fn.mts');
      const manifests = new URL('./index.ts', import.meta.url).href;
      writeFileSync(
        fn,
        `import { readFileSync } from 'node:fs';
import { readManifest, findResourceList, writeResourceList, resultFor, podTemplates, withPodTemplate } from ${JSON.stringify(manifests)};
const rl = findResourceList(readManifest(readFileSync(0), 'stdin'));
if (!rl) { process.stderr.write('not a ResourceList'); process.exit(1); }
const results = [];
const items = rl.items.map((item) => {
  let out = item;
  for (const ref of podTemplates(item)) {
    out = withPodTemplate(out, ref.path, { ...ref.template, metadata: { annotations: { 'example.com/touched': 'yes' } } });
    results.push(resultFor(item, 'warning', 'touched ' + ref.owner.name, ref.path.join('.')));
  }
  return out;
});
process.stdout.write(writeResourceList(rl, items, results));
`,
      );
      const exec = join(dir, 'fn.sh');
      writeFileSync(exec, `#!/bin/sh\ncd ${JSON.stringify(REPO)} && exec node --import tsx ${JSON.stringify(fn)}\n`);
      chmodSync(exec, 0o755);
      const run = spawnSync('kpt', ['fn', 'eval', pkg, '--exec', exec], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(run.status, 0, run.stderr + run.stdout);
      assert.match(run.stdout + run.stderr, /\[warning\] apps\/v1\/Deployment\/web spec\.template: touched web/);
      const after = readFileSync(join(pkg, 'app.yaml'), 'utf8');
      assert.match(after, /^# the web app\n/);
      assert.match(after, /image: nginx # pinned/);
      assert.match(after, /example\.com\/touched: 'yes'/);
      assert.doesNotMatch(after, /config\.kubernetes\.io/); // kpt strips its bookkeeping again
      const docsAfter = readManifest(after, 'app.yaml');
      assert.deepEqual(
        docsAfter.map((d) => (d.value as JsonObject).kind),
        ['Deployment', 'Service'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
