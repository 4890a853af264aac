/**
 * The shape of the code, checked with dependency-cruiser: no import cycles anywhere in the
 * repository's code (src/, test/, bench/, e2e/, scripts/); the general core (inject/, config/,
 * patch/, template/) imports nothing from a profile (src/istio/); no product file (src/ but its
 * tests) imports test support, benchmarks or scripts. The rules run on a small fixture first, so
 * a rule that stopped matching (a path typo, a resolver change) fails here instead of passing
 * silently. And no file name in src/ repeats (index.ts and types.ts may).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type IRuleSetType } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const repo = fileURLToPath(new URL('..', import.meta.url));

const RULES: IRuleSetType = {
  forbidden: [
    { name: 'no-cycle', severity: 'error', from: { path: '^(src|test|bench|e2e|scripts)/' }, to: { circular: true } },
    { name: 'core-imports-no-profile', severity: 'error', from: { path: '^src/(inject|config|patch|template)/' }, to: { path: '^src/istio/' } },
    // src/ is the product: only its tests may import test support, benchmarks or scripts.
    { name: 'product-imports-no-test-code', severity: 'error', from: { path: '^src/', pathNot: '\\.test\\.ts$' }, to: { path: '^(test|bench|e2e|scripts)/' } },
  ],
};

/**
 * Cycles allowed for now, as the set of files on the cycle. None: the last one (strip <->
 * istio-probes <-> istio-postprocess) went with the istio profile move (issue 11, section 2).
 * An entry here must name a cycle that exists (the test below fails on a stale one).
 */
const KNOWN_CYCLES: ReadonlyArray<ReadonlySet<string>> = [];

interface Violation {
  rule: string;
  from: string;
  to: string;
  cycle: string[];
}

/** The folders of the repository's own code (test/ only where it exists). */
const ROOTS = ['src', 'test', 'bench', 'e2e', 'scripts'];

async function violations(baseDir: string): Promise<{ violations: Violation[]; modules: number; unresolved: string[] }> {
  const cwd = process.cwd();
  // dependency-cruiser reads paths relative to the working directory.
  process.chdir(baseDir);
  try {
    const tsConfig = extractTSConfig(join(repo, 'tsconfig.json'));
    const { output } = await cruise(
      ROOTS.filter((r) => existsSync(join(baseDir, r))),
      {
        validate: true,
        ruleSet: RULES,
        tsPreCompilationDeps: true,
        doNotFollow: { path: 'node_modules' },
        tsConfig: { fileName: join(repo, 'tsconfig.json') },
      },
      undefined,
      { tsConfig },
    );
    assert.ok(typeof output === 'object', 'a cruise result');
    const unresolved = output.modules.flatMap((m) =>
      m.dependencies.filter((d) => d.couldNotResolve && !d.coreModule && d.dependencyTypes.includes('local')).map((d) => `${m.source} -> ${d.module}`),
    );
    return {
      modules: output.modules.length,
      unresolved,
      violations: output.summary.violations.map((v) => ({
        rule: v.rule.name,
        from: v.from,
        to: v.to,
        cycle: (v.cycle ?? []).map((c) => (typeof c === 'string' ? c : c.name)),
      })),
    };
  } finally {
    process.chdir(cwd);
  }
}

function isKnown(v: Violation): boolean {
  if (v.rule !== 'no-cycle') return false;
  const files = new Set([v.from, ...v.cycle]);
  return KNOWN_CYCLES.some((known) => [...files].every((f) => known.has(f)));
}

function fixture(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'si-shape-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

test('the rules catch a cycle and a core module importing a profile (fixture)', async () => {
  const dir = fixture({
    'src/inject/a.ts': "import { b } from './b.js';\nimport { p } from '../istio/p.js';\nexport const a = () => b + p;\n",
    'src/inject/b.ts': "import { a } from './a.js';\nexport const b = 1;\nexport const useA = () => a;\n",
    'src/istio/p.ts': 'export const p = 2;\n',
    'src/istio/q.ts': "import { a } from '../inject/a.js';\nexport const q = a;\n",
    'src/cli/c.ts': "import { h } from '../../test/support/h.js';\nexport const c = h;\n",
    'src/cli/c.test.ts': "import { h } from '../../test/support/h.js';\nexport const t = h;\n",
    'test/support/h.ts': 'export const h = 3;\n',
  });
  try {
    const found = await violations(dir);
    assert.deepEqual(found.unresolved, []);
    const profile = found.violations.filter((v) => v.rule === 'core-imports-no-profile').map((v) => `${v.from} -> ${v.to}`);
    assert.deepEqual(profile, ['src/inject/a.ts -> src/istio/p.ts'], 'inject/ importing istio/ is caught; istio/ importing inject/ is allowed');
    const testCode = found.violations.filter((v) => v.rule === 'product-imports-no-test-code').map((v) => `${v.from} -> ${v.to}`);
    assert.deepEqual(testCode, ['src/cli/c.ts -> test/support/h.ts'], 'a product file importing test support is caught; its test may');
    const cycles = found.violations.filter((v) => v.rule === 'no-cycle');
    assert.ok(cycles.length > 0, 'the cycle a <-> b is caught');
    for (const c of cycles) assert.deepEqual(new Set([c.from, ...c.cycle]), new Set(['src/inject/a.ts', 'src/inject/b.ts']));
    assert.equal(cycles.filter(isKnown).length, 0, 'an unknown cycle is not excused');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no import cycles in src/, test/, bench/, e2e/ and scripts/; inject/, config/, patch/, template/ import nothing from istio/; product code imports no test code', async () => {
  const found = await violations(repo);
  assert.ok(found.modules > 100, `the cruise saw the sources (${found.modules} modules)`);
  assert.deepEqual(found.unresolved, [], 'every relative import resolves');
  const unexpected = found.violations
    .filter((v) => !isKnown(v))
    .map((v) => `${v.rule}: ${v.from} -> ${v.to}${v.cycle.length > 0 ? ` (cycle: ${v.cycle.join(' -> ')})` : ''}`);
  assert.deepEqual(unexpected, []);
  // An exception that no longer matches anything must go, so it cannot hide a future cycle.
  const stale = KNOWN_CYCLES.filter((known) => !found.violations.some((v) => v.rule === 'no-cycle' && [v.from, ...v.cycle].every((f) => known.has(f))));
  assert.deepEqual(
    stale.map((k) => [...k].join(' <-> ')),
    [],
    'known cycles that are gone: delete them from KNOWN_CYCLES',
  );
});

/** Every file under src/ (tests too), as a path from the repository root. */
function srcFiles(dir = join(repo, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? srcFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [relative(repo, join(dir, e.name))] : [],
  );
}

test('a file name in src/ means one thing: no name repeats but index.ts and types.ts (and their tests)', () => {
  const byName = new Map<string, string[]>();
  for (const path of srcFiles()) byName.set(basename(path), [...(byName.get(basename(path)) ?? []), path]);
  assert.ok(byName.size > 300, `the walk saw the sources (${byName.size} names)`);
  const repeated = [...byName].filter(([name, paths]) => paths.length > 1 && !/^(index|types)(\.test)?\.ts$/.test(name)).map(([, paths]) => paths.join(', '));
  assert.deepEqual(repeated, [], 'give each file a name of its own (the domain in the name: ca-bundle-reconciler, pod-reconciler)');
});
