/**
 * The file the package's `bin` runs is an esbuild bundle (scripts/bundle.mjs), built by
 * `npm ci` (prepare) before the tests. These tests run that bundle, not the sources, so a
 * bundling mistake (a dependency that breaks when bundled, a path resolved from the wrong
 * directory) fails here instead of on a user's machine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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
  const r = run(['manifests']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /kind: MutatingWebhookConfiguration/);
  assert.match(r.stdout, /caBundle: \S{100,}/);
});
