/**
 * The shape of the YAML layer: product code reads and writes YAML only through src/yaml/, so the
 * go-yaml rule table cannot be bypassed by a stray `import { parse } from 'yaml'`. Tests and test
 * helpers (test/support/) may use the `yaml` library as an independent reference.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const LIBRARY_IMPORT = /(?:from\s+|import\s*\(\s*)['"](?:yaml|js-yaml)['"]/;

function productFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'yaml') out.push(...productFiles(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
      out.push(path);
    }
  }
  return out;
}

describe('one YAML module', () => {
  it('no product file outside src/yaml/ imports a YAML library', () => {
    const files = productFiles(SRC);
    assert.ok(files.length > 100, `only ${files.length} files scanned`);
    const offenders = files.filter((f) => LIBRARY_IMPORT.test(readFileSync(f, 'utf8'))).map((f) => relative(SRC, f));
    assert.deepEqual(offenders, []);
  });

  it('the check sees an import when there is one', () => {
    assert.ok(LIBRARY_IMPORT.test("import { parse } from 'yaml';"));
    assert.ok(LIBRARY_IMPORT.test("const { stringify } = await import('yaml');"));
    assert.ok(LIBRARY_IMPORT.test('import jsyaml from "js-yaml";'));
    assert.ok(!LIBRARY_IMPORT.test("import { x } from './index.js';"));
  });
});
