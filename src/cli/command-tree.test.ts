import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from './command-tree.js';
import { memoryIO } from '../../test/support/memory-io.js';

test('--help lists the program and exits 0', async () => {
  const io = memoryIO();
  assert.equal(await runCli(['--help'], io), 0);
  assert.match(io.out, /Usage: sidecar-injector/);
});

test('an unknown command is a usage error with a non-zero exit', async () => {
  const io = memoryIO();
  assert.equal(await runCli(['no-such-command'], io), 2);
  assert.match(io.err, /unknown command|too many arguments/);
});
