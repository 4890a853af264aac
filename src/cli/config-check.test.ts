import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { memoryIO } from '../testing/memory-io.js';
import { runCli } from './program.js';

test('config check: exit 0 with a summary; exit 4 naming file, template, line and field; -f pods are checked too', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'si-config-check-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ok = memoryIO();
  assert.equal(await runCli(['config', 'check', '-c', 'examples/nginx-sidecar/config.yaml'], ok), 0, ok.err);
  assert.match(ok.out, /^ok: 1 template\(s\) x 4 pod\(s\) = 4 injections, 0 failure\(s\)/m);
  assert.match(ok.out, /restricted: template nginx: sidecar-nginx would fail Pod Security "restricted"/);

  const file = join(dir, 'bad.yaml');
  await writeFile(file, 'templates:\n  sidecar: |\n    spec:\n      containers:\n      - name: shipper\n        image: x\n        ports:\n        - containerPort: 99999\n');
  const pods = join(dir, 'pods.yaml');
  await writeFile(pods, 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers: [{name: web, image: nginx}]\n');
  const bad = memoryIO();
  assert.equal(await runCli(['config', 'check', '-c', file, '-f', pods], bad), 4);
  assert.match(bad.out, new RegExp(`FAIL ${file.replace(/[.]/g, '\\.')}:5: template sidecar, pod plain: spec\\.containers\\[name=shipper\\]\\.ports\\[0\\]\\.containerPort: Invalid value`));
  assert.match(bad.out, /pod .*pods\.yaml Deployment\/web: spec\.containers\[name=shipper\]/);
  assert.match(bad.err, /SI_CONFIG_INVALID/);
});
