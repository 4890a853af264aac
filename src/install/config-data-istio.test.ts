import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { parseConfig } from '../profiles/index.js';
import { configMapData } from './config-data.js';

test('manifests ships the ConfigMap picked out of a multi-document file, with the mesh ConfigMap found beside it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'si-cm-data-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const cm = (name: string) =>
    stringify(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name },
        data: { config: 'policy: enabled\ntemplates:\n  sidecar: |\n    metadata: {}\n', values: '{"global":{"proxy":{}}}' },
      },
      { blockQuote: 'literal' },
    );
  const mesh = stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'istio-canary' }, data: { mesh: 'enablePrometheusMerge: false\n' } });
  const file = join(dir, 'all.yaml');
  await writeFile(file, `${cm('istio-sidecar-injector')}---\n${cm('istio-sidecar-injector-canary')}---\n${mesh}`);
  const data = await configMapData(`${file}#istio-sidecar-injector-canary`);
  assert.equal(data.loaded.compatibility.mode, 'istio');
  // The server reads the mounted config and values: same mode, same mesh config.
  const served = parseConfig(data.config, data.values);
  assert.equal(served.compatibility.mode, 'istio');
  assert.deepEqual(served.values.meshConfig, { enablePrometheusMerge: false });
});
