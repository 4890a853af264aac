/**
 * @module cli/manual-command
 * What `inject` and `uninject` share: the same flags (manifest, config, output, namespace,
 * quiet), KRM function mode on a ResourceList, the whole stream done before anything is
 * written, notes on stderr. Each command supplies its texts and its operation.
 */
import type { Command } from 'commander';
import type { CliIO } from './io.js';
import { MANUAL_HELP } from './manual-help.js';
import { manualOutputOption, outputFile, outputFileOption, writeStream, type ManualOutputChoice } from './output.js';

export interface ManualCommandSpec {
  operation: 'inject' | 'uninject';
  description: string;
  filenameHelp: string;
  configHelp: string;
  namespaceHelp: string;
  quietHelp: string;
}

interface ManualCommandOptions {
  filename: string;
  config?: string;
  output?: ManualOutputChoice;
  outputFile?: string;
  namespace?: string;
  quiet?: boolean;
}

export function registerManualCommand(program: Command, io: CliIO, spec: ManualCommandSpec): void {
  const { operation } = spec;
  program
    .command(operation)
    .description(spec.description)
    .requiredOption('-f, --filename <file>', spec.filenameHelp)
    .option('-c, --config <path>', spec.configHelp)
    .addOption(manualOutputOption())
    .addOption(outputFileOption())
    .option('-n, --namespace <namespace>', spec.namespaceHelp, 'default')
    .option('-q, --quiet', spec.quietHelp)
    .addHelpText('after', MANUAL_HELP[operation])
    .action(async (opts: ManualCommandOptions) => {
      // The manifest, config and injection code loads only when the command runs (start-up time).
      const [manual, { loadInjectorConfig, maybeRunKrm, printNotes, readManifestInput }] = await Promise.all([
        import('../manual-inject/index.js'),
        import('./manual-io.js'),
      ]);
      const file = outputFile(opts.output, opts.outputFile);
      const format = opts.output?.format;
      const docs = await readManifestInput(io, opts.filename);
      if (await maybeRunKrm(io, docs, { operation, configPath: opts.config, namespace: opts.namespace, output: file, format })) return;
      const quiet = opts.quiet === true;
      const config = await loadInjectorConfig(io, opts.config, quiet, operation === 'inject');
      const run = operation === 'inject' ? manual.injectDocuments : manual.uninjectDocuments;
      const result = run(docs, config, { namespace: opts.namespace, validate: true });
      await writeStream(io, file, result.text, format);
      printNotes(io, result.notes, quiet);
      // Nothing to work on is not an error, but a silent success would hide a wrong file.
      if (!quiet && result.changed + result.unchanged === 0) {
        const what = docs.every((d) => d.value === null)
          ? 'the input is empty'
          : 'it holds no pod or workload (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob, DeploymentConfig, List)';
        io.stderr(`notice: nothing to ${operation} in ${opts.filename === '-' ? '<stdin>' : opts.filename}: ${what}\n`);
      }
    });
}
