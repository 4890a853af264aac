import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIO } from '../../test/support/memory-io.js';
import { runCli } from './command-tree.js';
import { DEFAULT_IMAGE_WARNING } from './install-manifests.js';

test('inject/uninject with nothing to do: a notice on stderr, the input unchanged on stdout, exit 0', async () => {
  for (const op of ['inject', 'uninject']) {
    const empty = memoryIO('');
    assert.equal(await runCli([op, '-f', '-'], empty), 0);
    assert.equal(empty.err, `notice: nothing to ${op} in <stdin>: the input is empty\n`);
    const svc = 'apiVersion: v1\nkind: Service\nmetadata: {name: s}\n';
    const io = memoryIO(svc);
    assert.equal(await runCli([op, '-f', '-'], io), 0);
    assert.equal(io.out, svc);
    assert.match(io.err, new RegExp(`^notice: nothing to ${op} in <stdin>: it holds no pod or workload`));
    const quiet = memoryIO(svc);
    assert.equal(await runCli([op, '-f', '-', '-q'], quiet), 0);
    assert.equal(quiet.err, '');
  }
});

test('manifests without --image warns that the default image is not published and how to build one', async () => {
  const io = memoryIO();
  assert.equal(await runCli(['manifests', '--no-certs', '--no-ca-bundle-reconcile'], io), 0, io.err);
  assert.ok(io.err.includes(DEFAULT_IMAGE_WARNING));
  assert.match(DEFAULT_IMAGE_WARNING, /not published yet.*npm run image .*skopeo copy oci:out\/image:0\.1\.0 docker:\/\/REGISTRY/);
  const given = memoryIO();
  assert.equal(await runCli(['manifests', '--no-certs', '--no-ca-bundle-reconcile', '--image', 'r.example/si:1'], given), 0, given.err);
  assert.ok(!given.err.includes('not published'));
});

test('URL mode (--webhook-url) writes no Deployment: no image warning; without --certs-dir it is refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'si-url-'));
  try {
    const io = memoryIO();
    assert.equal(await runCli(['manifests', '--webhook-url', 'https://192.168.1.10:9443', '--certs-dir', dir], io), 0, io.err);
    assert.ok(!io.err.includes('not published'), io.err);
    assert.match(io.out, /kind: MutatingWebhookConfiguration/);
    assert.doesNotMatch(io.out, /kind: Deployment/);
    const bare = memoryIO();
    assert.equal(await runCli(['manifests', '--webhook-url', 'https://192.168.1.10:9443'], bare), 2);
    assert.match(bare.err, /^Error \[SI_USAGE\]: --webhook-url needs --certs-dir DIR: .*serve --tls-dir DIR/);
    assert.equal(bare.out, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
