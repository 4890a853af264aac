/**
 * @module cli/status-hint.test
 * The drift hint `status` ends with is a restart command for what status looked at (issue 27,
 * item 9): the same -n or -A, config and cluster flags, quoted for a POSIX shell when needed.
 * The e2e self-healing scenario checks it on a real apiserver.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restartCommand } from './status-run.js';

const base = { injectorNamespace: 'sidecar-injector' };

test('the hint keeps the namespace status looked at, or -A', () => {
  assert.equal(restartCommand(base, 'shop'), 'sidecar-injector restart --stale --missing --yes -n shop');
  assert.equal(restartCommand({ ...base, allNamespaces: true }, undefined), 'sidecar-injector restart --stale --missing --yes -A');
});

test('the hint keeps --config, --kubeconfig, --context and --webhook-config, quoted where a shell needs it', () => {
  assert.equal(
    restartCommand({ ...base, config: 'my config/dir', kubeconfig: '/k/config', context: "o'brien", webhookConfig: 'mesh-injector' }, 'default'),
    `sidecar-injector restart --stale --missing --yes -n default -c 'my config/dir' --kubeconfig /k/config --context 'o'\\''brien' --webhook-config mesh-injector`,
  );
});
