/**
 * The single executable (`npm run build:exe`), built fresh into a scratch directory and run
 * from there with a PATH that holds no `node`: it must need neither a Node installation nor the
 * package directory. Its output is compared with the npm package's bundle (what
 * `npx --no-install sidecar-injector` runs), byte for byte.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../test/support/server-process.js';
import { PACKAGE_FILES } from '../../src/util/package-file-names.js';
import { buildExe, commandPaths, EXAMPLE, EXAMPLE_GOLDEN, ROOT, serveOneReview } from './test-support.js';

const dir = mkdtempSync(join(tmpdir(), 'si-exe-test-'));
// No directory on this PATH holds node (or anything else).
const env = { PATH: join(dir, 'empty-path'), HOME: dir };
const BUNDLE = join(ROOT, 'dist', 'bin', 'sidecar-injector.mjs');
const bundleBuilt = existsSync(BUNDLE);
let exe = '';

before(() => {
  exe = buildExe(join(dir, 'out'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function runExe(args: string[]) {
  return spawnSync(exe, args, { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
}
function runBundle(args: string[]) {
  return spawnSync(process.execPath, [BUNDLE, ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
}

test('the PATH the executable runs with finds no node', () => {
  const r = spawnSync('/bin/sh', ['-c', 'command -v node'], { env, encoding: 'utf8' });
  assert.notEqual(r.status, 0, `node found at ${r.stdout}`);
});

test('the executable embeds exactly the files the code reads from its package (util/package-file-names.ts)', () => {
  const config = JSON.parse(readFileSync(join(dir, 'out', 'sea', 'sea-config.json'), 'utf8')) as { assets: Record<string, string> };
  assert.deepEqual(Object.keys(config.assets).sort(), [...PACKAGE_FILES].sort());
});

test('the executable does not depend on where it was built (no path of the checkout or the output directory inside)', () => {
  const bytes = readFileSync(exe);
  for (const path of [ROOT.replace(/\/$/, ''), dir]) assert.equal(bytes.indexOf(path), -1, `${path} is inside the executable`);
});

test('the executable prints the package version (package.json embedded as an asset)', () => {
  const r = runExe(['--version']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
});

test('every command prints its --help, the same text as the bundle', () => {
  const paths = commandPaths();
  assert.ok(paths.length >= 8, `only ${paths.length} commands found`);
  for (const path of paths) {
    const r = runExe([...path, '--help']);
    assert.equal(r.status, 0, `${path.join(' ')} --help: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^Usage: sidecar-injector${path.map((p) => ` ${p}`).join('')} `), path.join(' '));
    if (bundleBuilt) assert.equal(r.stdout, runBundle([...path, '--help']).stdout, `${path.join(' ')} --help differs from the bundle's`);
  }
});

test('the executable injects the README example byte-identically to the bundle (built-in config from its assets)', () => {
  const r = runExe(['inject', '-f', EXAMPLE]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, readFileSync(EXAMPLE_GOLDEN, 'utf8'));
  if (bundleBuilt) assert.equal(r.stdout, runBundle(['inject', '-f', EXAMPLE]).stdout);
});

test('the executable writes install manifests with the built-in config', () => {
  const r = runExe(['manifests']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /kind: MutatingWebhookConfiguration/);
  // The ConfigMap carries defaults/config.yaml verbatim (its first comment line included).
  const firstLine = readFileSync(join(ROOT, 'defaults', 'config.yaml'), 'utf8').split('\n')[0];
  assert.ok(r.stdout.includes(firstLine), `ConfigMap lacks "${firstLine}"`);
});

test('the executable serves one admission request with a development certificate', async () => {
  const port = await freePort();
  await serveOneReview({ command: exe, args: ['serve', '--port', String(port), '--address', '127.0.0.1'], env, cwd: dir, port, timeoutMs: 30_000 });
});

test('the embedded script requires only built-in modules, so Node prints no single-executable warning', () => {
  // Node's SEA require() loads only built-ins; for anything else it writes a four-line warning to
  // stderr (the optional packages of ws and node-fetch did, in status, restart and serve --reconcile).
  const script = readFileSync(join(dir, 'out', 'sea', 'sidecar-injector.cjs'), 'utf8');
  const required = [...new Set([...script.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!))];
  assert.ok(required.length > 10, `only ${required.length} require() calls found`);
  assert.deepEqual(
    required.filter((id) => !id.startsWith('node:') && !builtinModules.includes(id)),
    [],
  );
  const r = runExe(['status', '--kubeconfig', join(dir, 'no-such-kubeconfig')]);
  assert.match(r.stderr, /SI_CLUSTER_CONFIG/, 'status did not get as far as reading the kubeconfig');
  assert.doesNotMatch(r.stderr, /Warning|single-executable/);
});
