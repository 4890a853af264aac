import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { memoryIO } from '../../test/support/memory-io.js';
import { runCli } from './command-tree.js';

const example = (p: string) => fileURLToPath(new URL(`../../examples/${p}`, import.meta.url));

test('policy prints the policy and its bindings as YAML, or writes them with --output-file', async () => {
  const io = memoryIO();
  assert.equal(await runCli(['policy', '-c', example('policy-nginx-sidecar/config.yaml'), '--name', 'web'], io), 0);
  const docs = parseAllDocuments(io.out).map((d) => d.toJSON() as { kind: string; metadata: { name: string } });
  assert.deepEqual(
    docs.map((d) => `${d.kind}/${d.metadata.name}`),
    ['MutatingAdmissionPolicy/web', 'MutatingAdmissionPolicyBinding/web-namespace', 'MutatingAdmissionPolicyBinding/web-object'],
  );
  const dir = mkdtempSync(join(tmpdir(), 'si-policy-'));
  try {
    const out = join(dir, 'p.yaml');
    const io2 = memoryIO();
    assert.equal(await runCli(['policy', '-c', example('policy-nginx-sidecar/config.yaml'), '--name', 'web', '--output-file', out], io2), 0);
    assert.equal(readFileSync(out, 'utf8'), io.out);
    assert.equal(io2.out, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('policy refuses a webhook-only config with exit 4, SI_POLICY_UNSUPPORTED, template, line and construct', async () => {
  const io = memoryIO();
  assert.equal(await runCli(['policy', '-c', example('log-shipper/config.yaml')], io), 4);
  assert.equal(io.out, '');
  assert.match(
    io.err,
    /^Error \[SI_POLICY_UNSUPPORTED\]: template "log-shipper", line 2: \{\{\$volume := annotation \.ObjectMeta .*use the webhook for this config\n$/,
  );
});

test('policy rejects a bad --failure-policy as a usage error', async () => {
  const io = memoryIO();
  assert.equal(await runCli(['policy', '--failure-policy', 'fail'], io), 2);
});
