// Builds the single-file CLI, out/sidecar-injector-<platform>-<arch>: a Node single executable
// application (https://nodejs.org/docs/latest-v20.x/api/single-executable-applications.html),
// i.e. a copy of the node binary running this build with our CLI and the files it reads at run
// time (util/package-file-names.ts) injected by postject. Runs on a machine without Node.
//
//   node scripts/build-exe.mjs [--out DIR]      (npm run build:exe; DIR defaults to out/)
//
// Node 20 runs the embedded script as CommonJS and can `require` only built-in modules, so the
// CLI is bundled again here as one CommonJS file, without chunks, with util/package-files.ts
// swapped for its SEA twin (files from the executable's assets, not from a package directory).
// No code cache: V8's cache bytes differ between builds, and the image embeds this executable
// and must have the same digest for the same inputs.
import { build } from 'esbuild';
import { builtinModules } from 'node:module';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outIndex = process.argv.indexOf('--out');
const out = outIndex > 0 && process.argv[outIndex + 1] ? resolve(process.argv[outIndex + 1]) : join(root, 'out');
const work = join(out, 'sea');
const exe = join(out, `sidecar-injector-${process.platform}-${process.arch}`);
// The sentinel Node looks for to know it carries a blob (same for every Node version).
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
// Must equal PACKAGE_FILES in src/util/package-file-names.ts (scripts/release/exe.test.ts checks).
const ASSETS = ['defaults/config.yaml', 'defaults/values.yaml', 'package.json'];

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

const seaFiles = {
  name: 'package-files-for-sea',
  setup(b) {
    b.onResolve({ filter: /\/package-files\.js$/ }, () => ({ path: join(root, 'src/util/package-files-sea.ts') }));
  },
};
// Optional packages that are not installed (ws's bufferutil and utf-8-validate, node-fetch's
// encoding): their require() sits in a try/catch, so esbuild leaves it in the bundle. Node's
// SEA require() then prints a four-line warning on stderr before it throws, in every process
// that loads them (`status`, `restart`, `serve --reconcile`). Bundle each as a module that
// throws what a missing package throws, so the try/catch takes its fallback silently.
const builtins = new Set(builtinModules);
const missingOptional = {
  name: 'missing-optional-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'probe' || builtins.has(args.path) || args.path.startsWith('node:')) return undefined;
      const found = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'probe' });
      return found.errors.length > 0 ? { path: args.path, namespace: 'missing-optional' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'missing-optional' }, (args) => ({
      contents: `throw Object.assign(new Error(${JSON.stringify(`Cannot find module '${args.path}'`)}), { code: 'MODULE_NOT_FOUND' });`,
      loader: 'js',
    }));
  },
};
await build({
  entryPoints: [join(root, 'src/cli/sea-main.ts')],
  outfile: join(work, 'sidecar-injector.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  plugins: [seaFiles, missingOptional],
  legalComments: 'none',
  logLevel: 'warning',
});

const assets = Object.fromEntries(ASSETS.map((name) => [name, join(root, name)]));
// `main` is relative (to the working directory below): Node stores it in the blob, and an
// absolute path would make the executable depend on where the repository was checked out.
writeFileSync(
  join(work, 'sea-config.json'),
  `${JSON.stringify(
    {
      main: 'sidecar-injector.cjs',
      output: 'sea-prep.blob',
      disableExperimentalSEAWarning: true,
      useCodeCache: false,
      assets,
    },
    null,
    2,
  )}\n`,
);
execFileSync(process.execPath, ['--experimental-sea-config', 'sea-config.json'], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });

rmSync(exe, { force: true });
copyFileSync(process.execPath, exe);
chmodSync(exe, 0o755);
// postject (LIEF) warns "Can't find string offset for section name '.note...'" for every ELF
// note section of node; harmless (the blob is injected all the same), so only other lines are passed on.
const injected = spawnSync(
  process.execPath,
  [join(root, 'node_modules/postject/dist/cli.js'), exe, 'NODE_SEA_BLOB', join(work, 'sea-prep.blob'), '--sentinel-fuse', FUSE],
  { encoding: 'utf8' },
);
const noise = /^warning: Can't find string offset for section name '\.note[^']*'$/;
const stderr = injected.stderr
  .split('\n')
  .filter((l) => l !== '' && !noise.test(l))
  .join('\n');
if (stderr !== '') console.error(stderr);
if (injected.status !== 0) throw new Error(`postject failed (exit ${injected.status}) on ${exe}`);
console.log(exe);
