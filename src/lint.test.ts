/**
 * The linter's rules, run on a small fixture with the repository's own biome.json, so a rule that
 * was switched off, renamed or stopped matching fails here instead of passing silently: unused
 * variables and imports, a floating promise (also of a function imported from another file:
 * Biome infers the types itself, no tsc), and `any` in product code (allowed in tests).
 * `npm test` runs the linter itself on the whole repository (`npm run lint`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const biome = join(repo, 'node_modules', '.bin', 'biome');

const FILES: Record<string, string> = {
  'src/remote.ts': 'export async function remote(): Promise<number> {\n  return 1;\n}\n',
  'src/floating.ts': "import { remote } from './remote.js';\n\nexport function go(): void {\n  remote();\n}\n",
  'src/unused.ts': "import { remote } from './remote.js';\n\nexport function f(): number {\n  const left = 2;\n  return 1;\n}\n",
  'src/any.ts': 'export function g(x: any): unknown {\n  return x;\n}\n',
  'src/any.test.ts': 'export function h(x: any): unknown {\n  return x;\n}\n',
  'src/clean.ts': "import { remote } from './remote.js';\n\nexport async function ok(): Promise<number> {\n  return await remote();\n}\n",
};

test('the lint rules catch unused variables and imports, floating promises and any in product code (fixture)', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'si-lint-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const config = JSON.parse(readFileSync(join(repo, 'biome.json'), 'utf8')) as Record<string, unknown>;
  // The fixture is no git checkout; the schema path is the repository's.
  config.vcs = { enabled: false };
  config.$schema = join(repo, 'node_modules', '@biomejs', 'biome', 'configuration_schema.json');
  writeFileSync(join(dir, 'biome.json'), JSON.stringify(config));
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const r = spawnSync(biome, ['lint', '--reporter=github', '--max-diagnostics=100', 'src'], { cwd: dir, encoding: 'utf8' });
  assert.notEqual(r.status, 0, 'the linter fails on the fixture');
  // GitHub reporter: "::error title=lint/x/rule,file=src/a.ts,line=..."
  const found = new Set([...`${r.stdout}${r.stderr}`.matchAll(/title=lint\/\w+\/(\w+),file=([^,]+),/g)].map((m) => `${relative(dir, m[2])} ${m[1]}`));
  assert.deepEqual(
    [...found].sort(),
    ['src/any.ts noExplicitAny', 'src/floating.ts noFloatingPromises', 'src/unused.ts noUnusedImports', 'src/unused.ts noUnusedVariables'],
    `${r.stdout}\n${r.stderr}`,
  );
});
