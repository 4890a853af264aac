// Bundles the CLI into one ES module (dist/bin/sidecar-injector.mjs), the file the package's
// `bin` runs, with one chunk per lazily loaded command implementation. Loading a few files
// instead of ~170 modules and their dependencies halves the webhook's cold start (spawn to
// first answer). The entry sits two directories deep, like the sources, so
// `new URL('../../defaults/...', import.meta.url)` finds the same files.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

// Chunk names carry content hashes: without a clean start, every rebuild would leave the
// previous chunks behind, and `npm pack` would ship them.
rmSync('dist/bin', { recursive: true, force: true });

await build({
  entryPoints: { 'sidecar-injector': 'src/cli/main.ts' },
  outdir: 'dist/bin',
  outExtension: { '.js': '.mjs' },
  // Each command's implementation is a dynamic import: its own chunk, compiled only when run.
  splitting: true,
  chunkNames: '[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Bundled CommonJS dependencies (pino, prom-client) call require(): give ESM one.
  banner: { js: "import { createRequire as __siCreateRequire } from 'node:module'; const require = __siCreateRequire(import.meta.url);" },
  legalComments: 'none',
  logLevel: 'warning',
});
