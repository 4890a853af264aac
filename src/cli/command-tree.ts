/**
 * @module cli/command-tree
 * Builds the `sidecar-injector` command tree. Each command lives in its own file and exports
 * `register(program, io)`; this file only lists them. `runCli` runs one command line in-process
 * and returns the exit status, so tests need no child processes.
 */
import { Command, CommanderError } from 'commander';
import { toInjectorError } from '../errors.js';
import type { CliIO } from './io.js';
import { COMMANDS } from './commands.js';
import { packageVersion } from '../install/options.js';
import { longOptions, usageHint, withoutHelpForUnknownCommand } from './usage-hints.js';

/** The package's version (package.json), as `-v` and `version --client` print it. */
const VERSION = packageVersion();

export function buildProgram(io: CliIO, argv: readonly string[] = []): Command {
  // Filled once every command is registered; read only when an error is printed.
  const known = new Set<string>();
  const program = new Command('sidecar-injector')
    .description('Kubernetes sidecar injector: admission webhook, manual injection and install tooling')
    .version(VERSION, '-v, --version', 'print the client version (sidecar-injector version also asks the cluster)')
    .showHelpAfterError('(run with --help for usage)')
    // The program's own options (-v/--version) only before a command: after one, `inject ... -v`
    // would print the version and exit 0 without injecting. There they are unknown options.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: (s) => io.stderr(s),
      // A usage error commander finds reads like every other error: with its catalogue code.
      outputError: (s, write) => write(usageHint(s.replace(/^error: /, 'Error [SI_USAGE]: '), argv, known)),
    });
  for (const register of COMMANDS) register(program, io);
  // Subcommands inherit output routing and exitOverride so errors come back to runCli.
  for (const cmd of program.commands) {
    cmd.exitOverride().configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: (s) => io.stderr(s),
      outputError: (s, write) => write(usageHint(s.replace(/^error: /, 'Error [SI_USAGE]: '), argv, known)),
    });
  }
  for (const name of longOptions(program)) known.add(name);
  return program;
}

/** Run one command line (without `node` and script: e.g. `['inject', '-f', 'x.yaml']`). */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const program = buildProgram(io, argv);
  try {
    await program.parseAsync([...withoutHelpForUnknownCommand(program, argv)], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end with exitCode 0; usage errors were already printed by commander.
      return err.exitCode === 0 ? 0 : 2;
    }
    const e = toInjectorError(err);
    io.stderr(`Error [${e.code}]: ${e.describe()}\n`);
    if (e.code === 'SI_INTERNAL' && err instanceof Error && err.stack) io.stderr(`${err.stack}\n`);
    return e.exitCode;
  }
}
