/**
 * The dead-code check (knip, `npm run deadcode` in `npm test`), run on a small fixture with the
 * repository's own rules, so a rule switched off in knip.json fails here instead of passing
 * silently: an export no other file imports, a file nothing imports and a dependency nothing
 * uses are each reported, and an export used by another file is not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));

interface KnipIssue {
  file: string;
  files: { name: string }[];
  dependencies: { name: string }[];
  exports: { name: string }[];
}

test('knip reports an unused export, an unused file and an unused dependency, with the repository rules (fixture)', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'si-knip-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ours = JSON.parse(readFileSync(join(repo, 'knip.json'), 'utf8')) as { rules?: Record<string, string> };
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'fixture', version: '0.0.0', type: 'module', dependencies: { 'left-pad': '1.3.0' } }),
    'knip.json': JSON.stringify({ entry: ['src/index.ts'], project: ['src/**/*.ts'], rules: ours.rules ?? {} }),
    'src/index.ts': "import { used } from './lib.js';\nexport const api = used;\n",
    'src/lib.ts': 'export const used = 1;\nexport const unused = 2;\n',
    'src/orphan.ts': 'export const orphan = 3;\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const r = spawnSync(join(repo, 'node_modules', '.bin', 'knip'), ['--no-progress', '--reporter', 'json'], { cwd: dir, encoding: 'utf8' });
  assert.notEqual(r.status, 0, `knip fails on the fixture: ${r.stderr}`);
  const issues = (JSON.parse(r.stdout) as { issues: KnipIssue[] }).issues;
  const found = issues.flatMap((i) => [
    ...i.files.map((f) => `file ${f.name}`),
    ...i.dependencies.map((d) => `dependency ${d.name}`),
    ...i.exports.map((e) => `export ${i.file} ${e.name}`),
  ]);
  assert.deepEqual(found.sort(), ['dependency left-pad', 'export src/lib.ts unused', 'file src/orphan.ts']);
});
