/**
 * The package as a library user meets it: build it with the real build config (declarations
 * included) into a temporary `node_modules/sidecar-injector`, compile a small consumer against
 * it through `package.json#exports` (its `types` condition), run the consumer, and check that
 * every type the public signatures mention can be named from the entry point.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
// Generous: a cold build of src/ takes ~20 s on a busy machine.
const TIMEOUT_MS = 300_000;

const CONSUMER = `
import {
  defaultConfig, decide, injectPod, loadConfig, parseConfig, uninjectPod, InjectorError, ConfigError,
  type DecisionConfig, type ErrorCode, type InjectedResult, type InjectionContext, type InjectionResult,
  type JsonPatchOperation, type LoadedConfig, type UndoEntry, type UninjectResult,
} from 'sidecar-injector';

const config: LoadedConfig = defaultConfig();
const ctx: InjectionContext = { namespace: 'shop', mode: 'webhook' };
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
const result: InjectionResult = injectPod(pod, ctx, config);
if (result.kind !== 'injected') throw new Error('not injected: ' + result.decision.reason);
const injected: InjectedResult = result;
const patch: JsonPatchOperation[] = injected.patch;
const undo: UndoEntry[] = injected.status.undo ?? [];
const back: UninjectResult = uninjectPod(injected.pod, config);
const decisionConfig: DecisionConfig = config;
const verdict = decide(pod, ctx, decisionConfig);

let code: ErrorCode | undefined;
try {
  parseConfig('templates: 3');
} catch (err) {
  if (err instanceof InjectorError) code = err.code;
  if (!(err instanceof ConfigError)) throw err;
}
const loaded: Promise<LoadedConfig> = loadConfig('/nonexistent/config').catch((err: unknown) => {
  if (err instanceof InjectorError) return config;
  throw err;
});

// The types are real, not \`any\`: each line below must be a compile error.
// @ts-expect-error the context needs a namespace and a mode
injectPod(pod, {}, config);
// @ts-expect-error not a code of the catalogue
const wrong: ErrorCode = 'SI_NO_SUCH_CODE';
// @ts-expect-error a result has no such kind
if (result.kind === 'failed') throw new Error();

await loaded;
console.log(JSON.stringify({ ops: patch.length, undo: undo.length, back: back.kind, inject: verdict.inject, code, wrong }));
`;

/** Named types (interfaces, aliases, classes, enums) from the package that the exports mention. */
function unnamedTypes(entry: string, root: string): string[] {
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry) as ts.SourceFile);
  assert.ok(moduleSymbol, 'the entry point is a module');
  const resolve = (s: ts.Symbol): ts.Symbol => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  const exportsOf = checker.getExportsOfModule(moduleSymbol);
  const exported = new Set(exportsOf.map(resolve));
  // A same-named export is as good for a consumer (a type re-declared identically elsewhere).
  const names = new Set(exportsOf.map((s) => s.name));
  const missing = new Map<string, string>();
  const seen = new Set<ts.Node>();
  const visit = (node: ts.Node, via: string): void => {
    if (seen.has(node)) return;
    seen.add(node);
    // Private members are emitted without types: nothing a consumer can meet.
    if (ts.isPropertyDeclaration(node) && node.modifiers?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)) return;
    if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node)) {
      const symbol = checker.getSymbolAtLocation(ts.isTypeReferenceNode(node) ? node.typeName : node.expression);
      const target = symbol === undefined ? undefined : resolve(symbol);
      const decl = target?.declarations?.[0];
      if (target && decl && !(target.flags & ts.SymbolFlags.TypeParameter) && decl.getSourceFile().fileName.startsWith(root)) {
        if (!exported.has(target) && !names.has(target.name))
          missing.set(target.name, `${target.name} (${decl.getSourceFile().fileName.slice(root.length)}, met via ${via})`);
        for (const d of target.declarations ?? []) visit(d, via);
      }
    }
    ts.forEachChild(node, (child) => visit(child, via));
  };
  for (const s of exported) for (const d of s.declarations ?? []) visit(d, s.name);
  return [...missing.values()].sort();
}

test('a consumer compiles and runs against the built package, and can name every type it meets', { timeout: TIMEOUT_MS * 2 }, async () => {
  // Inside the repository so the built package finds its dependencies in ../node_modules.
  const dir = mkdtempSync(join(repo, '.consumer-'));
  try {
    const pkg = join(dir, 'node_modules', 'sidecar-injector');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), readFileSync(join(repo, 'package.json')));
    symlinkSync(join(repo, 'defaults'), join(pkg, 'defaults'));
    await run(process.execPath, [tsc, '-p', join(repo, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist')], { cwd: repo, timeout: TIMEOUT_MS });

    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { exports: Record<string, { types?: string; default?: string }> };
    const types = manifest.exports['.'].types;
    assert.ok(types !== undefined, 'package.json#exports["."] has a types condition');
    assert.ok(readFileSync(join(pkg, types), 'utf8').includes('injectPod'), `${types} is built and declares injectPod`);

    writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(repo, 'node_modules', '@types')],
          outDir: 'out',
        },
        files: ['consumer.ts'],
      }),
    );
    const compiled = await run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: dir, timeout: TIMEOUT_MS }).then(
      () => '',
      (err: { stdout?: string; message: string }) => err.stdout || err.message,
    );
    assert.equal(compiled, '', 'the consumer compiles against the declarations');

    const { stdout } = await run(process.execPath, [join(dir, 'out', 'consumer.js')], { cwd: dir, timeout: 60_000 });
    const seen = JSON.parse(stdout) as { ops: number; back: string; inject: boolean; code: string };
    assert.ok(seen.ops > 0, 'the injection produced a patch');
    assert.equal(seen.back, 'uninjected');
    assert.equal(seen.inject, true);
    assert.equal(seen.code, 'SI_CONFIG_INVALID');

    assert.deepEqual(
      unnamedTypes(join(pkg, 'dist', 'index.d.ts'), join(pkg, 'dist') + '/'),
      [],
      'types a consumer meets but cannot import from sidecar-injector',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
