import assert from 'node:assert/strict';
import { test } from 'node:test';
import { run } from './kube.js';

// A child that exits before reading its input must report its own exit, not the pipe's EPIPE
// (a CI run failed on a bare "write EPIPE" that hid which command failed and why).
test('run: a command that exits without reading a large input reports its exit code and stderr', async () => {
  const input = 'x'.repeat(4 * 1024 * 1024);
  const r = await run('sh', ['-c', 'echo refused >&2; exit 3'], { input, allowFail: true });
  assert.equal(r.code, 3);
  assert.equal(r.stderr.trim(), 'refused');
  await assert.rejects(run('sh', ['-c', 'echo refused >&2; exit 3'], { input }), /exited 3: refused/);
});

test('run: a command that cannot start rejects with the spawn error', async () => {
  await assert.rejects(run('/nonexistent/kubectl', [], { input: 'x'.repeat(1024 * 1024) }), (err: NodeJS.ErrnoException) => err.code === 'ENOENT');
});
