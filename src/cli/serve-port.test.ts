import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { memoryIO } from '../../test/support/memory-io.js';
import { runCli } from './command-tree.js';
import { banner } from './serve-run.js';

test('serve on a port in use: one line naming the flag, exit 2 (SI_LISTEN_FAILED), no stack trace', async (t) => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.after(() => blocker.close());
  const port = (blocker.address() as { port: number }).port;
  const io = memoryIO();
  const code = await runCli(['serve', '--port', String(port), '--address', '127.0.0.1'], io);
  assert.equal(code, 2);
  const lines = io.err
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('{')); // JSON log lines aside
  assert.deepEqual(lines, [`Error [SI_LISTEN_FAILED]: port ${port} is in use: choose another with --port`]);
  assert.doesNotMatch(io.err, /\n\s+at /);
});

test('the banner names the address bound, and says when it is every interface', () => {
  assert.equal(banner('127.0.0.1', 9443, undefined), 'sidecar-injector webhook listening on https://127.0.0.1:9443/inject\n');
  assert.match(
    banner(undefined, 9443, 9090),
    /^sidecar-injector webhook listening on https:\/\/0\.0\.0\.0:9443\/inject \(all interfaces, IPv4 and IPv6; choose one with --address; from this host: https:\/\/127\.0\.0\.1:9443\/inject\); monitoring on http:\/\/0\.0\.0\.0:9090\/metrics\n$/,
  );
  assert.match(banner('::1', 9443, undefined), /https:\/\/\[::1\]:9443\/inject/);
});
