/**
 * @module cli/template-render
 * `sidecar-injector template render TEMPLATE_FILE --data DATA_FILE`: renders a Go template with
 * the product's own engine and function set, so users can debug an injection template (or any
 * Helm/Istio-style template) outside the webhook. Data is read the way Kubernetes and Helm read
 * it: JSON, or YAML 1.1, with every number a float64 as after Go's YAML -> JSON decode.
 */
import type { Command } from 'commander';
import { collectFiles } from './manifest-sources.js';
import { InjectorError } from '../errors.js';
import { writeOutput, type CliIO } from './io.js';
import { formatOption, outputFileOption, writeStream } from './output.js';
import type { RenderOptions } from './template-render-run.js';

export function register(program: Command, io: CliIO): void {
  // Other `template ...` subcommands may register the parent first; share it.
  const parent =
    program.commands.find((c) => c.name() === 'template') ??
    program.command('template').description('work with Go text/template templates (Istio and Helm style)');
  parent
    .command('render')
    .description(
      "render a template with the injector's engine and functions; prints the output exactly. With -f POD: render the config's template for that pod exactly as injection does",
    )
    .argument('[template-file]', 'template file, or - for stdin (not with -f)')
    .option('-c, --config <path>', 'with -f: the injector config whose template to render (default: the built-in one)')
    .option(
      '-f, --filename <file>',
      'a pod or workload (YAML or JSON; its first pod template; a directory or an http(s) URL too): render with the same typed data the injector uses',
      collectFiles,
    )
    .option('--template <name>', "with -f: the config's template to render (default: those injection would select)")
    .option('--merged', 'with -f: print the injected Pod (a whole object: apiVersion, kind, name, namespace) instead of the overlay')
    .option('-n, --namespace <namespace>', 'with -f: namespace for a pod without metadata.namespace (default: default)')
    .addOption(formatOption(['yaml', 'json'], undefined, "with -f; a template's own output is printed as it is"))
    .option('-d, --data <file>', 'data as JSON or YAML (YAML 1.1, as Kubernetes reads it), or - for stdin; none means nil data')
    .option('--name <name>', "execute this {{define}}d template instead of the file's main template")
    .option('--allow-env', "provide the env function (reads this process's environment)")
    .addOption(outputFileOption())
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .action(async (templateFile: string | undefined, opts: RenderOptions) => {
      const misplaced = notForForm(opts);
      if (misplaced !== undefined) throw new InjectorError('SI_USAGE', misplaced);
      if (opts.filename !== undefined) {
        const { renderForPod } = await import('./template-render-pod.js');
        await writeStream(io, opts.outputFile, await renderForPod(io, templateFile, opts), opts.output);
        return;
      }
      if (templateFile === undefined)
        throw new InjectorError('SI_USAGE', "give a template file, or -f POD (with --config) to render a config's template for a pod");
      if (opts.output !== undefined)
        throw new InjectorError(
          'SI_USAGE',
          `-o chooses the format of -f's overlay or pod; a template's own output is printed as it is: write it to a file with --output-file FILE`,
        );
      // The YAML reader and the template engine load only when the command runs.
      const { renderFiles } = await import('./template-render-run.js');
      await writeOutput(io, opts.outputFile, await renderFiles(io, templateFile, opts));
    });
  parent.exitOverride().configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) });
}

/**
 * A flag of the other form is refused, never ignored: `-f POD --data x.yaml` would otherwise
 * render without the data the user named (even a missing file passed).
 */
function notForForm(opts: RenderOptions): string | undefined {
  const given = (flags: [keyof RenderOptions, string][]) => flags.filter(([k]) => opts[k] !== undefined).map(([, f]) => f);
  if (opts.filename !== undefined) {
    const wrong = given([
      ['data', '--data'],
      ['name', '--name'],
      ['allowEnv', '--allow-env'],
    ]);
    if (wrong.length > 0)
      return `${wrong.join(', ')} ${wrong.length === 1 ? 'goes' : 'go'} with a template file, not with -f POD (which renders the config's templates with the injector's own data); drop ${wrong.length === 1 ? 'it' : 'them'}`;
    return undefined;
  }
  if (opts.namespace !== undefined) return '-n/--namespace goes with -f POD; to execute a {{define}}d template use --name NAME';
  const wrong = given([
    ['config', '--config'],
    ['template', '--template'],
    ['merged', '--merged'],
  ]);
  if (wrong.length > 0)
    return `${wrong.join(', ')} ${wrong.length === 1 ? 'goes' : 'go'} with -f POD (a config's template for a pod), not with a template file`;
  return undefined;
}
