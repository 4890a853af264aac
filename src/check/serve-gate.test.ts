/**
 * The serve side of `config check`: through the real reload machinery, a config whose sidecar
 * is invalid for every pod is refused, the last good config keeps serving, and the reason is in
 * /readyz.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { productRuntime } from '../cli/serve.js';
import { atomicWrite } from '../../test/support/atomic-writer.js';
import { send } from '../../test/support/https-client.js';
import { startHarness } from '../../test/support/webhook-harness.js';

const GOOD = 'templates:\n  sidecar: |\n    spec:\n      containers:\n      - name: shipper\n        image: fluent-bit:3.0\n';
const BAD =
  'templates:\n  sidecar: |\n    spec:\n      containers:\n      - name: shipper\n        image: {{ .Values.imag }}\n        volumeMounts:\n        - name: logs\n          mountPath: /var/log\n';

test('serve: a reload to a config invalid for every pod is refused; the last good one serves; /readyz says why', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'si-gate-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await atomicWrite(dir, { config: GOOD, values: '{}' });
  const runtime = await productRuntime();
  const h = await startHarness({
    inject: runtime.inject,
    config: { ...runtime.config, path: dir },
    reload: { debounceMs: 20, pollMs: 60_000 },
  });
  t.after(() => h.server.shutdown());
  const ready = async () => JSON.parse((await send({ port: h.port, path: '/readyz' })).body) as { config: Record<string, unknown> };
  const goodHash = (await ready()).config.hash;
  assert.equal(typeof goodHash, 'string');

  await atomicWrite(dir, { config: BAD, values: '{}' });
  await h.server.reloadNow();
  const after = await ready();
  assert.equal(after.config.hash, goodHash, 'the last good config keeps serving');
  assert.match(JSON.stringify(after.config.lastError), /gives a pod the API server would refuse for every representative pod/);
  assert.ok(
    h.logs.some((l) => JSON.stringify(l).includes('every representative pod')),
    'the reason is logged',
  );
});
