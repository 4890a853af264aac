import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { memoryIO } from '../../test/support/memory-io.js';
import { runCli } from './command-tree.js';

test('config check: exit 0 with a summary; exit 4 naming file, template, line and field; -f pods are checked too', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'si-config-check-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ok = memoryIO();
  assert.equal(await runCli(['config', 'check', '-c', 'examples/nginx-sidecar/config.yaml'], ok), 0, ok.err);
  assert.match(ok.out, /^ok: 1 template\(s\) x 4 pod\(s\) = 4 injections, 0 failure\(s\)/m);
  assert.match(ok.out, /restricted: template nginx: sidecar-nginx would fail Pod Security "restricted"/);

  const file = join(dir, 'bad.yaml');
  await writeFile(
    file,
    'templates:\n  sidecar: |\n    spec:\n      containers:\n      - name: shipper\n        image: x\n        ports:\n        - containerPort: 99999\n',
  );
  const pods = join(dir, 'pods.yaml');
  await writeFile(
    pods,
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers: [{name: web, image: nginx}]\n',
  );
  const bad = memoryIO();
  assert.equal(await runCli(['config', 'check', '-c', file, '-f', pods], bad), 4);
  assert.match(
    bad.out,
    new RegExp(
      `FAIL ${file.replace(/[.]/g, '\\.')}:5: template sidecar, pod plain: spec\\.containers\\[name=shipper\\]\\.ports\\[0\\]\\.containerPort: Invalid value`,
    ),
  );
  assert.match(bad.out, /pod .*pods\.yaml Deployment\/web: spec\.containers\[name=shipper\]/);
  assert.match(bad.err, /SI_CONFIG_INVALID/);
});

test('config check -f: a pod that is itself invalid is blamed, not the config (exit 5, its file and line)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'si-config-check-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const pods = join(dir, 'pods.yaml');
  await writeFile(
    pods,
    [
      'apiVersion: v1\nkind: Pod\nmetadata: {name: good}\nspec:\n  containers: [{name: app, image: nginx}]',
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  annotations: {sidecar.istio.io/proxyCPU: lots}\nspec:\n  containers: [{name: app, image: nginx}]',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: dup}\nspec:\n  template:\n    spec:\n      containers: [{name: web, image: nginx}, {name: web, image: nginx}]',
    ].join('\n---\n') + '\n',
  );
  const io = memoryIO();
  assert.equal(await runCli(['config', 'check', '-f', pods], io), 5, io.err);
  const fails = io.out.split('\n').filter((l) => l.startsWith('FAIL '));
  assert.equal(fails.length, 2, `one line per bad pod, not per template: ${io.out}`);
  assert.match(
    fails[0],
    new RegExp(`^FAIL ${pods.replace(/[.]/g, '\\.')}:7: pod .*Pod/web \\(the pod itself, not the config\\): SI_INJECT_ANNOTATION: invalid value 'lots'`),
  );
  assert.match(fails[1], /pods\.yaml:15: pod .*Deployment\/dup \(the pod itself, not the config\): SI_INPUT_OBJECT: container name "web" is used twice/);
  assert.doesNotMatch(io.err, /SI_CONFIG_INVALID/);
  assert.match(
    io.err,
    /^Error \[SI_INPUT_OBJECT\]: config check: the config passed, but 2 of the pods given with -f cannot be injected because of the pod itself; first: .*; fix the pod\n$/,
  );

  // A config that fails as well is still the config's failure first (exit 4).
  const bad = join(dir, 'bad.yaml');
  await writeFile(
    bad,
    'templates:\n  sidecar: |\n    spec:\n      containers:\n      - name: shipper\n        image: x\n        ports:\n        - containerPort: 99999\n',
  );
  const both = memoryIO();
  assert.equal(await runCli(['config', 'check', '-c', bad, '-f', pods], both), 4);
  assert.match(both.err, /SI_CONFIG_INVALID/);
});
