/**
 * The npm package as users get it: `npm pack` (of the already built dist/), its file list, and
 * `npm install -g ./sidecar-injector-*.tgz` into a fresh prefix, its dependencies resolved from
 * a loopback registry holding exactly the lockfile's versions (release/npm-registry.ts), then
 * the installed `sidecar-injector` run from an empty directory.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startLockfileRegistry } from './npm-registry.js';
import { EXAMPLE, EXAMPLE_GOLDEN, ROOT } from './test-support.js';

const run = promisify(execFile);
const skip = existsSync(join(ROOT, 'dist', 'bin', 'sidecar-injector.mjs')) ? false : 'dist/ is not built (npm run build)';
const dir = mkdtempSync(join(tmpdir(), 'si-pack-test-'));
const prefix = join(dir, 'prefix');
const clean = join(dir, 'clean');
let files: string[] = [];
let tarball = '';

before(async () => {
  if (skip !== false) return;
  mkdirSync(clean);
  // --ignore-scripts: "prepare" would rebuild dist/, which `npm ci` has just built.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  files = packed.files.map((f) => f.path).sort();
  tarball = join(dir, packed.filename);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('the package ships the CLI bundle, the library, the default config and the README', { skip }, () => {
  for (const needed of ['package.json', 'README.md', 'defaults/config.yaml', 'defaults/values.yaml', 'dist/bin/sidecar-injector.mjs', 'dist/index.js']) {
    assert.ok(files.includes(needed), `${needed} is not in the package`);
  }
});

test('the package ships nothing from the tests, the sources, the release tooling or the build outputs', { skip }, () => {
  const forbidden = [/\.test\.[cm]?[jt]s$/, /(^|\/)testing\//, /^testdata\//, /^src\//, /^(examples|bench|e2e|scripts|deploy|out)\//, /^dist\/release\//, /sidecar-injector-linux/, /\.oci\.tar$/];
  assert.deepEqual(files.filter((f) => forbidden.some((re) => re.test(f))), []);
});

test('every bundle file the package ships is reachable from the bin (no chunks left over from earlier builds)', { skip }, () => {
  const shipped = files.filter((f) => f.startsWith('dist/bin/'));
  const reached = new Set<string>();
  const visit = (file: string): void => {
    if (reached.has(file)) return;
    reached.add(file);
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"\.\/([\w.-]+\.mjs)"/g)) visit(`dist/bin/${m[1]}`);
  };
  visit('dist/bin/sidecar-injector.mjs');
  assert.deepEqual(shipped.filter((f) => !reached.has(f)), []);
  assert.ok(reached.size > 3, `only ${reached.size} bundle files reached: the import pattern no longer matches esbuild's output`);
});

test('npm install -g of the tarball into a fresh prefix gives a working sidecar-injector', { skip }, async () => {
  // Tarballs from the cache `npm ci` filled; a fresh cache for the install, so every
  // dependency comes through the loopback registry.
  const npmCache = (await run('npm', ['config', 'get', 'cache'], { cwd: ROOT, encoding: 'utf8' })).stdout.trim();
  const registry = await startLockfileRegistry(join(ROOT, 'package-lock.json'), npmCache);
  try {
    await run('npm', ['install', '-g', '--prefix', prefix, '--registry', registry.url, '--cache', join(dir, 'npm-cache'), '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: clean, encoding: 'utf8' });
  } finally {
    await registry.close();
  }
  const bin = join(prefix, 'bin', 'sidecar-injector');
  // The bin is `#!/usr/bin/env node`: node on PATH, nothing from the repository.
  const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: dir };
  const help = await run(bin, ['--help'], { cwd: clean, env, encoding: 'utf8' });
  assert.match(help.stdout, /^Usage: sidecar-injector /);
  const version = await run(bin, ['--version'], { cwd: clean, env, encoding: 'utf8' });
  assert.equal(version.stdout.trim(), (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  const injected = await run(bin, ['inject', '-f', EXAMPLE], { cwd: clean, env, encoding: 'utf8' });
  assert.equal(injected.stdout, readFileSync(EXAMPLE_GOLDEN, 'utf8'));
});
