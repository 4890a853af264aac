/**
 * @module cli/version.test
 * `-v` and `version`: the client version is package.json's; with no cluster configured the
 * client version still prints (exit 0) and stderr says why there is no server; a configured
 * cluster that does not answer is exit 8 after the client line, as with kubectl. The server and
 * webhook versions from a real apiserver are checked by the e2e suite (docs blocks, docs/e2e.md).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { memoryIO } from '../../test/support/memory-io.js';
import { runCli } from './command-tree.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const dir = mkdtempSync(join(tmpdir(), 'si-version-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[], env: Record<string, string | undefined> = {}) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
  try {
    const io = memoryIO();
    return { code: await runCli(argv, io), out: io.out, err: io.err };
  } finally {
    process.env = saved;
  }
}

test('-v and --version print the package version', async () => {
  for (const flag of ['-v', '--version']) {
    const r = await run([flag]);
    assert.equal(r.code, 0);
    assert.equal(r.out, `${pkg.version}\n`);
  }
});

test('version --client -o json: client version, Node.js and platform, no cluster access', async () => {
  const r = await run(['version', '--client', '-o', 'json'], { KUBECONFIG: '/nonexistent' });
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), {
    clientVersion: { version: pkg.version, nodeVersion: process.version, platform: `${process.platform}/${process.arch}` },
  });
});

test('version with no kubeconfig at all: the client version, and a note instead of an error', async () => {
  const r = await run(['version'], { KUBECONFIG: undefined, HOME: dir });
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`^Client Version: v${pkg.version.replace(/\./g, '\\.')} \\(Node\\.js`));
  assert.match(r.err, /^note: no server version: no kubeconfig: .*pass --kubeconfig FILE or set KUBECONFIG\n$/);
});

test('version against a cluster that does not answer: client line, then exit 8 saying what to check', async () => {
  const kc = join(dir, 'kubeconfig');
  writeFileSync(
    kc,
    'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: dev\n  context: {cluster: c, user: u}\ncurrent-context: dev\n',
  );
  const r = await run(['version', '--kubeconfig', kc]);
  assert.equal(r.code, 8);
  assert.match(r.out, /^Client Version: /);
  assert.match(
    r.err,
    /^Error \[SI_CLUSTER_REQUEST\]: GET \/version: .*ECONNREFUSED.*; at https:\/\/127\.0\.0\.1:1 \(context "dev"\): the cluster cannot be reached: check that it is running/,
  );
  assert.doesNotMatch(r.err, /\n\s+at /);
});
