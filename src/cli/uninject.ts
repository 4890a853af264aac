/**
 * @module cli/uninject
 * `sidecar-injector uninject -f FILE|-`: removes what the status annotation says was injected,
 * so `uninject(inject(x))` gives back `x`. Documents with nothing to undo come out byte for
 * byte; nothing is written unless the whole stream succeeded. KRM mode as for `inject`.
 */
import type { Command } from 'commander';
import { writeOutput, type CliIO } from './io.js';
import { MANUAL_HELP } from './manual-help.js';

interface UninjectOptions {
  filename: string;
  config?: string;
  output?: string;
  namespace?: string;
  quiet?: boolean;
}

export function register(program: Command, io: CliIO): void {
  program
    .command('uninject')
    .description('remove injected sidecars from a manifest, as recorded in the status annotation')
    .requiredOption('-f, --filename <file>', 'manifest to clean (YAML or JSON, multi-document), or - for stdin')
    .option('-c, --config <path>', 'the injector config used for injecting (it names the status annotation); default: the built-in one')
    .option('-o, --output <file>', 'write the result to FILE (replaced only when everything succeeded) instead of stdout')
    .option('-n, --namespace <namespace>', 'namespace for objects without metadata.namespace (for messages)', 'default')
    .option('-q, --quiet', 'do not print templates that had nothing to remove (errors are always printed)')
    .addHelpText('after', MANUAL_HELP.uninject)
    .action(async (opts: UninjectOptions) => {
      // The manifest, config and injection code loads only when the command runs (start-up time).
      const [{ uninjectDocuments }, { loadInjectorConfig, maybeRunKrm, printNotes, readManifestInput }] = await Promise.all([
        import('../manual/index.js'),
        import('./manual-io.js'),
      ]);
      const docs = await readManifestInput(io, opts.filename);
      if (await maybeRunKrm(io, docs, { operation: 'uninject', configPath: opts.config, namespace: opts.namespace, output: opts.output })) return;
      const config = await loadInjectorConfig(io, opts.config, opts.quiet === true);
      const result = uninjectDocuments(docs, config, { namespace: opts.namespace });
      await writeOutput(io, opts.output, result.text);
      printNotes(io, result.notes, opts.quiet === true);
    });
}
