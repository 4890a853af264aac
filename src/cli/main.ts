#!/usr/bin/env node
/**
 * @module cli/main
 * Process entry point of the `sidecar-injector` binary.
 */
import { processIO } from './io.js';
import { runCli } from './command-tree.js';

const code = await runCli(process.argv.slice(2), processIO());
process.exitCode = code;
