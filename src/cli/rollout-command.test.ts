/**
 * `rollout`'s command line: what it refuses before touching a cluster. (What it does to a
 * cluster: src/rollout/rollout.test.ts, and e2e scenario 32 on a node.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryIO } from '../../test/support/memory-io.js';
import { runCli } from './command-tree.js';

test('rollout refuses a wrong command line with exit 2 and a message that says what to do', async () => {
  const cases: [string[], RegExp][] = [
    [['rollout', '-n', 'shop'], /say which revisions: --from A --to B/],
    [['rollout', '--undo', '--from', 'default', '-n', 'shop'], /--undo moves namespaces back .*drop --from and --to/],
    [['rollout', '--from', 'default', '--to', 'Canary', '-n', 'shop'], /revision "Canary" must be a lowercase DNS label/],
    [['rollout', '--from', 'default', '--to', 'canary', '-n', 'Shop'], /"Shop" is not a list of namespace names/],
    [['rollout', '--from', 'default', '--to', 'canary', '-n', 'shop', '-A'], /--namespace and --all-namespaces exclude each other/],
    [['rollout', '--from', 'default', '--to', 'canary', '-n', 'shop', '--yes', '--dry-run'], /--dry-run and --yes exclude each other/],
    [['rollout', '--from', 'default', '--to', 'canary', '-n', 'shop', '--timeout', 'soon'], /expected a Go duration such as 30s/],
    [['rollout', '--from', 'default', '--to', 'canary', '-n', 'shop', '-o', 'jsno'], /unknown output format "jsno": expected table, wide, json, yaml/],
  ];
  for (const [args, message] of cases) {
    const io = memoryIO();
    assert.equal(await runCli(args, io), 2, `${args.join(' ')}: ${io.err}`);
    assert.match(io.err, message, args.join(' '));
    assert.doesNotMatch(io.err, /\n\s+at /, 'no stack trace');
  }
});

test('rollout without a reachable cluster is a cluster error, not a crash', async () => {
  const io = memoryIO();
  assert.equal(await runCli(['rollout', '--from', 'default', '--to', 'canary', '-n', 'shop', '--kubeconfig', '/nonexistent/kubeconfig'], io), 8, io.err);
  assert.match(io.err, /SI_CLUSTER_CONFIG/);
});
