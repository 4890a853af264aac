/**
 * @module cli/status-command
 * `sidecar-injector status`: for every pod in scope, is its sidecar current, stale, missing,
 * skipped or foreign, grouped by owning workload. Exits 9 (SI_HEAL_DRIFT) when something is
 * stale or missing, so CI and cron can act on it. Read-only.
 */
import type { Command } from 'commander';
import { formatOption } from './output.js';
import type { CliIO } from './io.js';
import { addHealOptions } from './heal-options.js';
import type { StatusCliOptions } from './status-run.js';

export function register(program: Command, io: CliIO): void {
  addHealOptions(
    program.command('status').description('report, per workload, which pods have a current, stale or missing sidecar (exit 9 when any is stale or missing)'),
  )
    .addOption(formatOption(['table', 'json', 'yaml'] as const, 'table'))
    .action(async (opts: StatusCliOptions) => {
      const { runStatus } = await import('./status-run.js');
      await runStatus(io, opts);
    });
}
