/**
 * @module cli/sea-main
 * Entry point of the single executable (scripts/build-exe.mjs). Node 20 runs an executable's
 * embedded script as CommonJS, where main.ts's top-level await is not allowed; otherwise the
 * same: run the CLI, exit with its status.
 */
import { processIO } from './io.js';
import { runCli } from './command-tree.js';

void runCli(process.argv.slice(2), processIO()).then((code) => {
  process.exitCode = code;
});
