/**
 * @module cli/manual-command
 * What `inject` and `uninject` share: the same flags (manifest, config, output, namespace,
 * quiet), KRM function mode on a ResourceList, the whole stream done before anything is
 * written, notes on stderr. Each command supplies its texts and its operation.
 */
import type { Command } from 'commander';
import { InjectorError } from '../errors.js';
import type { CliIO } from './io.js';
import { collectFiles } from './manifest-sources.js';
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
  filename: string[];
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
    .requiredOption(
      '-f, --filename <file>',
      `${spec.filenameHelp}; repeat -f for more, a directory reads its .yaml, .yml and .json files, an http(s) URL is fetched`,
      collectFiles,
    )
    .option('-c, --config <path>', spec.configHelp)
    .addOption(manualOutputOption())
    .addOption(outputFileOption())
    .option('-n, --namespace <namespace>', spec.namespaceHelp, 'default')
    .option('-q, --quiet', spec.quietHelp)
    .addHelpText('after', MANUAL_HELP[operation])
    .action(async (opts: ManualCommandOptions) => {
      // The manifest, config and injection code loads only when the command runs (start-up time).
      const [manual, { loadInjectorConfig, maybeRunKrm, printNotes }, { readManifest, findResourceList }, { readManifestSources, joinStreams }] =
        await Promise.all([import('../manual-inject/index.js'), import('./manual-io.js'), import('../manifest-io/index.js'), import('./manifest-sources.js')]);
      const file = outputFile(opts.output, opts.outputFile);
      const format = opts.output?.format;
      const sources = (await readManifestSources(io, opts.filename)).map((s) => ({ name: s.name, docs: readManifest(s.bytes, s.name) }));
      if (
        sources.length === 1 &&
        (await maybeRunKrm(io, sources[0].docs, { operation, configPath: opts.config, namespace: opts.namespace, output: file, format }))
      )
        return;
      const krm = sources.find((s) => findResourceList(s.docs) !== undefined);
      if (krm !== undefined)
        throw new InjectorError('SI_USAGE', `${krm.name} is a KRM ResourceList: a function's input comes alone, so give it as the only -f`);
      const quiet = opts.quiet === true;
      const config = await loadInjectorConfig(io, opts.config, quiet, operation === 'inject');
      const run = operation === 'inject' ? manual.injectDocuments : manual.uninjectDocuments;
      // Each source on its own (its documents count from 1, as its notes say), written as one stream.
      const results = sources.map((s) => ({ name: s.name, docs: s.docs, result: run(s.docs, config, { namespace: opts.namespace, validate: true }) }));
      await writeStream(io, file, joinStreams(results.map((r) => r.result.text)), format);
      for (const r of results) {
        printNotes(io, r.result.notes, quiet, sources.length > 1 ? r.name : undefined);
        // Nothing to work on is not an error, but a silent success would hide a wrong file.
        if (!quiet && r.result.changed + r.result.unchanged === 0) {
          const what = r.docs.every((d) => d.value === null)
            ? 'the input is empty'
            : 'it holds no pod or workload (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob, DeploymentConfig, List)';
          io.stderr(`notice: nothing to ${operation} in ${r.name}: ${what}\n`);
        }
      }
    });
}
