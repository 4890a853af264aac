/**
 * @module cli/restart
 * `sidecar-injector restart --stale --missing`: restart the workloads whose pods have a stale
 * or missing sidecar, as `kubectl rollout restart` does, a few at a time, waiting for each to
 * progress. A dry run unless `--yes`. Bare pods and Jobs are reported, never restarted.
 */
import { Option, type Command } from 'commander';
import { formatOption } from './output.js';
import type { CliIO } from './io.js';
import { addHealOptions, parsePositive } from './heal-options.js';
import { durationFlag } from './duration-flag.js';
import type { RestartCliOptions } from './restart-run.js';

export function register(program: Command, io: CliIO): void {
  addHealOptions(
    program
      .command('restart')
      .description(
        'restart (like kubectl rollout restart) the Deployments, StatefulSets and DaemonSets whose pods have a stale or missing sidecar; a dry run unless --yes',
      ),
  )
    .option('--stale', 'restart workloads with pods whose sidecar is stale')
    .option('--missing', 'restart workloads with pods that lack their sidecar')
    .option('--max-in-flight <n>', 'workloads rolling at once', parsePositive, 1)
    .addOption(new Option('--interval <duration>', 'pause between starting two restarts').argParser(durationFlag({ maxMs: 3_600_000 })).default(2000, '2s'))
    .addOption(
      new Option('--timeout <duration>', 'stop when a restarted workload shows no progress in this time')
        .argParser(durationFlag({ minMs: 1000, maxMs: 86_400_000 }))
        .default(300_000, '5m'),
    )
    .option('--dry-run', 'only print what would be restarted and why (the default)')
    .option('--yes', 'really restart')
    .addOption(formatOption(['text', 'json', 'yaml'] as const, 'text', 'the outcome of every workload'))
    .action(async (opts: RestartCliOptions) => {
      const { runRestart } = await import('./restart-run.js');
      await runRestart(io, opts);
    });
}
