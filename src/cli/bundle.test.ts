/**
 * The file the package's `bin` runs is an esbuild bundle (scripts/bundle.mjs), built by
 * `npm ci` (prepare) before the tests. These tests run that bundle, not the sources, so a
 * bundling mistake (a dependency that breaks when bundled, a path resolved from the wrong
 * directory) fails here instead of on a user's machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string; bin: Record<string, string> };
const BIN = `${ROOT}${pkg.bin['sidecar-injector']}`;
const built = existsSync(BIN);
const skip = built ? false : `${pkg.bin['sidecar-injector']} is not built (npm run build)`;

function run(args: string[], input = '') {
  return spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, input });
}

test('the bundled bin prints its version', { skip }, () => {
  const r = run(['--version']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), pkg.version);
});

test('the bundled bin injects the README example exactly as the golden says (built-in config found from the bundle)', { skip }, () => {
  const r = run(['inject', '-f', 'examples/istio-proxy/app.yaml']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, readFileSync(`${ROOT}testdata/inject/example-istio-proxy.injected.yaml`, 'utf8'));
});

test('the bundled bin renders a template and reports a template error with a non-zero exit', { skip }, () => {
  const ok = run(['template', 'render', 'examples/template/sidecar.tpl', '--data', 'examples/template/values.yaml']);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /name: log-shipper/);
  const bad = run(['template', 'render', '-', '--data', 'examples/template/values.yaml'], '{{ nosuch .x }}');
  assert.equal(bad.status, 3);
  assert.match(bad.stderr, /template: stdin:1: function "nosuch" not defined/);
});

test('the bundled bin writes install manifests (certificate generation bundled)', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'si-bundle-certs-'));
  try {
    const r = run(['manifests', '--certs-dir', dir]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /kind: MutatingWebhookConfiguration/);
    assert.match(r.stdout, /caBundle: \S{100,}/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The default: no certificate in the output, the server provisions it.
  const provision = run(['manifests']);
  assert.equal(provision.status, 0, provision.stderr);
  assert.match(provision.stdout, /--tls-provision/);
  assert.doesNotMatch(provision.stdout, /caBundle/);
});

/** Every chunk a bundle file loads before it runs (its static imports, transitively). */
function staticGraph(entry: string): string[] {
  const dir = BIN.slice(0, BIN.lastIndexOf('/') + 1);
  const seen = new Set<string>();
  const walk = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(dir + file, 'utf8').matchAll(/(?:from|import) ?"\.\/([^"]+)"/g)) walk(m[1]);
  };
  walk(entry);
  return [...seen];
}

test('the Kubernetes client loads only in commands that talk to the cluster: not at start-up, not for inject, explain or template, not serve without cluster flags', {
  skip,
}, () => {
  const dir = BIN.slice(0, BIN.lastIndexOf('/') + 1);
  const files = readdirSync(dir);
  // A marker of the one transport (src/kube/transport.ts): its deadline message.
  const client = files.filter((f) => readFileSync(dir + f, 'utf8').includes('no answer from the Kubernetes API within'));
  assert.equal(client.length, 1, 'the transport is bundled once (the image ships no node_modules)');
  // inject and explain (manual-inject, manual-io, the config gate), template (render, funcs), serve.
  const offline = ['manual-inject-', 'manual-io-', 'serve-gate-', 'pipeline-', 'template-', 'funcs-', 'serve-run-'];
  const entries = [BIN.slice(dir.length), ...files.filter((f) => offline.some((p) => f.startsWith(p)))];
  assert.ok(entries.length >= offline.length, `every offline command's chunk is in the bundle: ${entries.join(', ')}`);
  for (const entry of entries) {
    const loaded = staticGraph(entry);
    assert.deepEqual(
      loaded.filter((f) => client.includes(f)),
      [],
      `${entry} loads the Kubernetes client before it is asked for`,
    );
  }
  const status = run(['status', '--kubeconfig', '/nonexistent/kubeconfig']);
  assert.equal(status.status, 8, status.stderr);
  assert.match(status.stderr, /SI_CLUSTER_CONFIG/);
});
