// `npm run pack`: the npm package, written to out/ (or --out DIR), never into the work tree.
// It is packed from a staging copy of what package.json's `files` lists, with a package.json
// that has no `scripts`. The repository keeps `prepare` (so `npm ci` builds the CLI in a clone),
// but shipped, npm 11 counts the `prepare` of a package installed from a tarball as an install
// script not covered by allowScripts and warns on every `npm install -g ./sidecar-injector-*.tgz`;
// the installed package runs its built bundle and needs no script. `npm pack` at the root is
// refused (the `prepack` hook runs this with --refuse), so there is one way to make the package.
//
//   node scripts/pack.mjs [--out DIR] [--json]   prints the tarball's path (npm's report with --json)
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const fail = (message) => {
  process.stderr.write(`pack: ${message}\n`);
  process.exit(1);
};

const { values } = parseArgs({ options: { out: { type: 'string' }, json: { type: 'boolean' }, refuse: { type: 'boolean' } } });
// `npm run pack` runs the `prepack` hook too (npm runs pre<script> for `npm run <script>`): only
// `npm pack` itself (npm_command "pack") is refused.
if (values.refuse && ['run', 'run-script'].includes(process.env.npm_command ?? '')) process.exit(0);
if (values.refuse) {
  fail(
    'use `npm run pack` (it writes out/ and ships a package.json without the build scripts); `npm pack` here would ship `prepare`, which a global install warns about',
  );
}
if (!existsSync(join(ROOT, 'dist', 'bin', 'sidecar-injector.mjs'))) fail('dist/ is not built: run `npm run build` first');

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const published = { ...pkg };
delete published.scripts;
const out = resolve(values.out ?? join(ROOT, 'out'));
const stage = mkdtempSync(join(tmpdir(), 'si-pack-'));
let packed;
try {
  for (const entry of pkg.files) cpSync(join(ROOT, entry), join(stage, entry), { recursive: true });
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
  mkdirSync(out, { recursive: true });
  packed = spawnSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: stage, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
} finally {
  // Before any exit: process.exit in the try would skip this and leave the staging copy behind.
  rmSync(stage, { recursive: true, force: true });
}
if (packed.status !== 0) fail(`npm pack exited ${packed.status ?? packed.signal}`);
const [report] = JSON.parse(packed.stdout);
const tarball = join(out, report.filename);
const shown = relative(process.cwd(), tarball).startsWith('..') ? tarball : relative(process.cwd(), tarball);
process.stdout.write(values.json ? packed.stdout : `${shown}\n`);
