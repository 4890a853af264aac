/**
 * The npm package as users get it: `scripts/pack.mjs` (what `npm run pack` runs after the build;
 * here on the already built dist/), its file list and shipped package.json, then the tarball
 * installed the two ways users install it, `npm install -g` into a fresh prefix and
 * `npm install --omit=dev` into a fresh project, its dependencies resolved from a loopback
 * registry holding exactly the lockfile's runtime versions (release/npm-registry.ts). Only the
 * `dependencies` are installed, so a command or the library reaching for anything else (a
 * devDependency the bundle failed to inline) fails here with a missing module; a static scan of
 * the shipped modules' imports covers the commands not run here.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { builtinModules } from 'node:module';
import { dirname, join, posix } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../test/support/server-process.js';
import { startLockfileRegistry, type LockfileRegistry } from './npm-registry.js';
import { EXAMPLE, EXAMPLE_GOLDEN, ROOT, serveOneReview } from './test-support.js';

const run = promisify(execFile);
const skip = existsSync(join(ROOT, 'dist', 'bin', 'sidecar-injector.mjs')) ? false : 'dist/ is not built (npm run build)';
const dir = mkdtempSync(join(tmpdir(), 'si-pack-test-'));
const prefix = join(dir, 'prefix');
const project = join(dir, 'project');
const clean = join(dir, 'clean');
const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
// The closure of `dependencies` (package.json): what the CLI bundle and the library entry load.
const RUNTIME_PACKAGES = ['argparse', 'js-yaml', 're2js', 'yaml'];
// The bin is `#!/usr/bin/env node`: node on PATH, nothing from the repository.
const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: dir };
let files: string[] = [];
let tarball = '';
let registry: LockfileRegistry | undefined;

before(async () => {
  if (skip !== false) return;
  mkdirSync(clean);
  const { stdout } = await run(process.execPath, [join(ROOT, 'scripts', 'pack.mjs'), '--json', '--out', dir], { cwd: ROOT, encoding: 'utf8' });
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  files = packed.files.map((f) => f.path).sort();
  tarball = join(dir, packed.filename);
  // Tarballs from the cache `npm ci` filled; each install gets a fresh cache, so every
  // dependency comes through the loopback registry.
  const npmCache = (await run('npm', ['config', 'get', 'cache'], { cwd: ROOT, encoding: 'utf8' })).stdout.trim();
  registry = await startLockfileRegistry(join(ROOT, 'package-lock.json'), npmCache);
});
after(async () => {
  await registry?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `npm install` of the tarball from `cwd` (stdout and stderr: npm's warnings go to stderr). */
function npmInstall(cwd: string, flags: string[]): Promise<{ stdout: string; stderr: string }> {
  const url = (registry as LockfileRegistry).url;
  return run('npm', ['install', ...flags, '--registry', url, '--cache', mkdtempSync(join(dir, 'npm-cache-')), '--no-audit', '--no-fund', tarball], {
    cwd,
    encoding: 'utf8',
  });
}

/** The packages npm installed for the package, by name (scoped ones as @scope/name). */
function installedPackages(nodeModules: string): string[] {
  return readdirSync(nodeModules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(nodeModules, name)).map((sub) => `${name}/${sub}`) : [name]))
    .sort();
}

test('the package ships the CLI bundle, the library, the default config and the README', { skip }, () => {
  for (const needed of ['package.json', 'README.md', 'defaults/config.yaml', 'defaults/values.yaml', 'dist/bin/sidecar-injector.mjs', 'dist/index.js']) {
    assert.ok(files.includes(needed), `${needed} is not in the package`);
  }
});

test('the package ships nothing from the tests, the sources, the release tooling or the build outputs', { skip }, () => {
  const forbidden = [
    /\.test\.[cm]?[jt]s$/,
    /(^|\/)testing\//,
    /^testdata\//,
    /^src\//,
    /^(examples|bench|e2e|scripts|deploy|out)\//,
    /^dist\/release\//,
    /sidecar-injector-linux/,
    /\.oci\.tar$/,
  ];
  assert.deepEqual(
    files.filter((f) => forbidden.some((re) => re.test(f))),
    [],
  );
});

/**
 * The files `entry` reaches through relative imports (static and dynamic, as esbuild and tsc
 * write them), and the bare specifiers (packages, builtins) they import, by package name.
 */
function moduleGraph(entry: string): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    // Comment lines dropped: bundled JSDoc names types as {import('./index.js').X}.
    const text = readFileSync(join(ROOT, file), 'utf8').replace(/^\s*(?:\*|\/\/).*$/gm, '');
    for (const m of text.matchAll(
      /(?:^|[^\w.$'"`])(?:import|export)\s*(?:[\w*{}\s,$]+from\s*)?\(?\s*['"]([^'"\s]+)['"]|(?:^|[^\w.])(?:__)?require\(\s*"([^"]+)"\s*\)/gm,
    )) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith('.')) visit(posix.join(posix.dirname(file), spec));
      else bare.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  };
  visit(entry);
  return { files, bare };
}

const isBuiltin = (spec: string): boolean => builtinModules.includes(spec.replace(/^node:/, ''));

test('every bundle file the package ships is reachable from the bin (no chunks left over from earlier builds)', { skip }, () => {
  const shipped = files.filter((f) => f.startsWith('dist/bin/'));
  const reached = moduleGraph('dist/bin/sidecar-injector.mjs').files;
  assert.deepEqual(
    shipped.filter((f) => !reached.has(f)),
    [],
  );
  assert.ok(reached.size > 3, `only ${reached.size} bundle files reached: the import pattern no longer matches esbuild's output`);
});

test("the CLI bundle loads only Node built-ins, the library entry only the package's dependencies", { skip }, () => {
  // require()s of optional packages esbuild leaves in place, each inside a try/catch with a
  // fallback: node-fetch's `encoding`, ws's native `bufferutil` and `utf-8-validate`.
  const optional = ['bufferutil', 'encoding', 'utf-8-validate'];
  const bundle = moduleGraph('dist/bin/sidecar-injector.mjs').bare;
  assert.deepEqual(
    [...bundle].filter((s) => !isBuiltin(s) && !optional.includes(s)),
    [],
  );
  const library = moduleGraph('dist/index.js');
  assert.ok(library.files.size > 50, `only ${library.files.size} library files reached: the import pattern no longer matches tsc's output`);
  assert.deepEqual([...library.bare].filter((s) => !isBuiltin(s)).sort(), Object.keys(rootPackage.dependencies).sort());
});

test('`npm pack` in the repository is refused with the way that works, and leaves no tarball in the work tree', { skip }, async () => {
  const before = readdirSync(ROOT).filter((f) => f.endsWith('.tgz'));
  const refused = await run('npm', ['pack'], { cwd: ROOT, encoding: 'utf8' }).then(
    () => undefined,
    (err: { code?: number; stderr?: string }) => err,
  );
  assert.ok(refused !== undefined, '`npm pack` succeeded: it ships the `prepare` script, and writes into the work tree');
  assert.match(refused.stderr ?? '', /use `npm run pack`/);
  assert.deepEqual(
    readdirSync(ROOT).filter((f) => f.endsWith('.tgz')),
    before,
  );
});

test('the prepack hook lets `npm run pack` through (npm runs pre<script> for `npm run <script>` too)', { skip }, async () => {
  // README: `npm run pack && npm install -g ./out/...`. Run as npm runs it before the pack script.
  const hook = await run('npm', ['run', '-s', 'prepack'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(hook.stderr, '');
});

test('npm install -g of the tarball: no install-scripts warning, only the runtime dependencies, and the commands run', { skip }, async () => {
  mkdirSync(prefix);
  const installed = await npmInstall(clean, ['-g', '--omit=dev', '--prefix', prefix]);
  assert.doesNotMatch(installed.stderr, /install-scripts|allowScripts/, installed.stderr);
  const home = join(prefix, 'lib', 'node_modules', 'sidecar-injector');
  const shipped = JSON.parse(readFileSync(join(home, 'package.json'), 'utf8')) as { scripts?: unknown; dependencies: Record<string, string> };
  assert.equal(shipped.scripts, undefined, 'the shipped package.json has scripts');
  assert.deepEqual(shipped.dependencies, rootPackage.dependencies);
  assert.deepEqual(installedPackages(join(home, 'node_modules')), RUNTIME_PACKAGES);

  const bin = join(prefix, 'bin', 'sidecar-injector');
  const help = await run(bin, ['--help'], { cwd: clean, env, encoding: 'utf8' });
  assert.match(help.stdout, /^Usage: sidecar-injector /);
  const version = await run(bin, ['--version'], { cwd: clean, env, encoding: 'utf8' });
  assert.equal(version.stdout.trim(), rootPackage.version);
  const injected = await run(bin, ['inject', '-f', EXAMPLE], { cwd: clean, env, encoding: 'utf8' });
  assert.equal(injected.stdout, readFileSync(EXAMPLE_GOLDEN, 'utf8'));
  // certs (@peculiar/x509, bundled): a CA and a serving certificate on disk.
  await run(bin, ['certs', '--service', 'sidecar-injector', '--namespace', 'sidecar-injector', '--out', join(dir, 'certs')], {
    cwd: clean,
    env,
    encoding: 'utf8',
  });
  assert.match(readFileSync(join(dir, 'certs', 'tls.crt'), 'utf8'), /^-----BEGIN CERTIFICATE-----/);

  // status reads the cluster through src/kube, bundled in its own chunk: against a cluster that
  // is not there, a clear error about that address, not a missing module.
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, KUBECONFIG_UNREACHABLE);
  const status = await run(bin, ['status'], { cwd: clean, env: { ...env, KUBECONFIG: kubeconfig }, encoding: 'utf8' }).then(
    () => assert.fail('status exited 0 without a cluster'),
    (err: { stderr: string }) => err.stderr,
  );
  assert.match(status, /127\.0\.0\.1:1\b/);
  assert.doesNotMatch(status, /ERR_MODULE_NOT_FOUND|Cannot find (module|package)|SI_INTERNAL/);

  // serve (pino, prom-client, a development certificate) with --reconcile, which loads the same
  // Kubernetes client: it answers a review while its leader election fails against that cluster.
  const port = await freePort();
  const args = ['serve', '--port', String(port), '--address', '127.0.0.1', '--reconcile'];
  await serveOneReview({ command: bin, args, env: { ...env, KUBECONFIG: kubeconfig }, cwd: clean, port, timeoutMs: 30_000 });
});

test('npm install --omit=dev of the tarball into a project: the library entry imports and injects, the bin runs', { skip }, async () => {
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const installed = await npmInstall(project, ['--omit=dev']);
  assert.doesNotMatch(installed.stderr, /install-scripts|allowScripts/, installed.stderr);
  assert.deepEqual(installedPackages(join(project, 'node_modules')), [...RUNTIME_PACKAGES, 'sidecar-injector'].sort());

  writeFileSync(join(project, 'consumer.js'), CONSUMER);
  const consumed = await run(process.execPath, ['consumer.js'], { cwd: project, env, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(consumed.stdout), { kind: 'injected', containers: ['app', 'sidecar-proxy'] });
  const version = await run(join(project, 'node_modules', '.bin', 'sidecar-injector'), ['--version'], { cwd: project, env, encoding: 'utf8' });
  assert.equal(version.stdout.trim(), rootPackage.version);
});

const KUBECONFIG_UNREACHABLE = `apiVersion: v1
kind: Config
clusters:
- name: gone
  cluster: {server: 'https://127.0.0.1:1', insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: t}
contexts:
- name: gone
  context: {cluster: gone, user: u}
current-context: gone
`;

const CONSUMER = `
import { defaultConfig, injectPod } from 'sidecar-injector';
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } };
const result = injectPod(pod, { namespace: 'shop', mode: 'webhook' }, defaultConfig());
console.log(JSON.stringify({ kind: result.kind, containers: result.pod?.spec.containers.map((c) => c.name) }));
`;
