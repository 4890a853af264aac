/**
 * @module cli/config-check
 * `sidecar-injector config check [-c CFG] [-f PODS...]`: catch a broken sidecar before a pod
 * does (check/). Exit 0 with a summary when every injection gives a pod the API server would
 * accept; exit 4 (SI_CONFIG_INVALID) naming file, template, line and field otherwise. The
 * report goes to stdout either way.
 */
import type { Command } from 'commander';
import type { CliIO } from './io.js';
import { formatOption } from './output.js';

interface CheckCliOptions {
  config?: string;
  filename?: string[];
  output: 'text' | 'json' | 'yaml';
}

export function register(program: Command, io: CliIO): void {
  const parent = program.commands.find((c) => c.name() === 'config') ?? program.command('config').description('work with the injector config');
  parent
    .command('check')
    .description('inject every template into representative pods (and -f pods) and validate the results as the API server would')
    .option('-c, --config <path>', 'injector config (default: the built-in one)')
    .option('-f, --filename <file...>', 'more pods or workloads to check (YAML or JSON, multi-document)')
    .addOption(formatOption(['text', 'json', 'yaml'] as const, 'text'))
    .action(async (opts: CheckCliOptions) => {
      const { runConfigCheck } = await import('./config-check-run.js');
      await runConfigCheck(io, opts);
    });
}
