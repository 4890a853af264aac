/**
 * @module cli/uninject-command
 * `sidecar-injector uninject -f FILE|-`: removes what the status annotation says was injected,
 * so `uninject(inject(x))` gives back `x`. Documents with nothing to undo come out byte for
 * byte; nothing is written unless the whole stream succeeded. KRM mode as for `inject`.
 */
import type { Command } from 'commander';
import type { CliIO } from './io.js';
import { registerManualCommand } from './manual-command.js';

export function register(program: Command, io: CliIO): void {
  registerManualCommand(program, io, {
    operation: 'uninject',
    description: 'remove injected sidecars from a manifest, as recorded in the status annotation',
    filenameHelp: 'manifest to clean (YAML or JSON, multi-document), or - for stdin',
    configHelp: 'the injector config used for injecting (it names the status annotation); default: the built-in one',
    namespaceHelp: 'namespace for objects without metadata.namespace (for messages)',
    quietHelp: 'do not print templates that had nothing to remove (errors are always printed)',
  });
}
