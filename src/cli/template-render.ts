/**
 * @module cli/template-render
 * `sidecar-injector template render TEMPLATE_FILE --data DATA_FILE`: renders a Go template with
 * the product's own engine and function set, so users can debug an injection template (or any
 * Helm/Istio-style template) outside the webhook. Data is read the way Kubernetes and Helm read
 * it: JSON, or YAML 1.1, with every number a float64 as after Go's YAML -> JSON decode.
 */
import type { Command } from 'commander';
import { writeOutput, type CliIO } from './io.js';

export interface RenderOptions {
  data?: string;
  name?: string;
  allowEnv?: boolean;
  output?: string;
}

export function register(program: Command, io: CliIO): void {
  // Other `template ...` subcommands may register the parent first; share it.
  const parent =
    program.commands.find((c) => c.name() === 'template') ??
    program.command('template').description('work with Go text/template templates (Istio and Helm style)');
  parent
    .command('render')
    .description('render a template with the injector\'s engine and functions; prints the output exactly')
    .argument('<template-file>', 'template file, or - for stdin')
    .option('-d, --data <file>', 'data as JSON or YAML (YAML 1.1, as Kubernetes reads it), or - for stdin; none means nil data')
    .option('-n, --name <name>', 'execute this {{define}}d template instead of the file\'s main template')
    .option('--allow-env', 'provide the env function (reads this process\'s environment)')
    .option('-o, --output <file>', 'write the output to a file instead of stdout')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .action(async (templateFile: string, opts: RenderOptions) => {
      // The YAML reader and the template engine load only when the command runs.
      const { renderFiles } = await import('./template-render-run.js');
      await writeOutput(io, opts.output, await renderFiles(io, templateFile, opts));
    });
  parent.exitOverride().configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) });
}
