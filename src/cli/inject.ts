/**
 * @module cli/inject
 * `sidecar-injector inject -f FILE|-`: manual injection, as `istioctl kube-inject` does it,
 * through the same core as the webhook. Reads a manifest stream, writes it back with every pod
 * template injected; untouched documents byte for byte. Nothing is written unless the whole
 * stream succeeded. A ResourceList on the input switches to KRM function mode.
 */
import type { Command } from 'commander';
import { writeOutput, type CliIO } from './io.js';
import { MANUAL_HELP } from './manual-help.js';

interface InjectOptions {
  filename: string;
  config?: string;
  output?: string;
  namespace?: string;
  quiet?: boolean;
}

export function register(program: Command, io: CliIO): void {
  program
    .command('inject')
    .description('inject sidecars into the pod templates of a manifest (like istioctl kube-inject), offline')
    .requiredOption('-f, --filename <file>', 'manifest to inject (YAML or JSON, multi-document), or - for stdin')
    .option('-c, --config <path>', 'injector config: a directory with config and values files (a mounted ConfigMap), one YAML file, or a ConfigMap manifest; default: the built-in Istio-style proxy')
    .option('-o, --output <file>', 'write the result to FILE (replaced only when everything succeeded) instead of stdout')
    .option('-n, --namespace <namespace>', 'namespace for objects without metadata.namespace', 'default')
    .option('-q, --quiet', 'do not print skipped pods and warnings on stderr (errors are always printed)')
    .addHelpText('after', MANUAL_HELP.inject)
    .action(async (opts: InjectOptions) => {
      // The manifest, config and injection code loads only when the command runs (start-up time).
      const [{ injectDocuments }, { loadInjectorConfig, maybeRunKrm, printNotes, readManifestInput }] = await Promise.all([
        import('../manual/index.js'),
        import('./manual-io.js'),
      ]);
      const docs = await readManifestInput(io, opts.filename);
      if (await maybeRunKrm(io, docs, { operation: 'inject', configPath: opts.config, namespace: opts.namespace, output: opts.output })) return;
      const config = await loadInjectorConfig(io, opts.config, opts.quiet === true);
      const result = injectDocuments(docs, config, { namespace: opts.namespace });
      await writeOutput(io, opts.output, result.text);
      printNotes(io, result.notes, opts.quiet === true);
    });
}
