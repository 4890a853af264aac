/**
 * @module cli/rollout-command
 * `sidecar-injector rollout --from A --to B -n NS[,NS...]`: move namespaces from one injector
 * revision to another (Istio's revisions), one batch at a time, each gated on its new pods
 * being Ready with the new sidecar, and moved back when they are not. `--undo` moves namespaces
 * back to what the last move replaced. A dry run unless `--yes`.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CliIO } from './io.js';
import { durationFlag } from './duration-flag.js';
import { parsePositive, parseRevisionName } from './heal-options.js';
import { addKubeOptions } from './kube-options.js';
import { formatOption } from './output.js';
import type { RolloutCliOptions } from './rollout-run.js';

export function register(program: Command, io: CliIO): void {
  const cmd = program
    .command('rollout')
    .description(
      'move namespaces from one injector revision to another, a batch at a time: relabel, restart, wait until every new pod is Ready with the new sidecar; on failure move the batch back and say why; a dry run unless --yes',
    )
    .option('--from <revision>', 'the revision (or tag) the namespaces are on now; "default" is the install without --revision', parseTarget)
    .option('--to <revision>', 'the revision (or tag) to move them to', parseTarget)
    .option('--undo', 'move the namespaces back to what the last rollout replaced (recorded on each namespace)')
    .option('-n, --namespace <namespaces>', 'namespaces to move, in order (comma-separated or repeated)', collectNamespaces)
    .option('-A, --all-namespaces', 'every namespace on --from (with --undo: every namespace a rollout moved)')
    .option('--batch <n>', 'namespaces moved together', parsePositive, 1)
    .option('--max-in-flight <n>', 'workloads restarting at once', parsePositive, 1)
    .addOption(
      new Option('--interval <duration>', 'pause between starting two restarts').argParser(durationFlag({ maxMs: 24 * 3_600_000 })).default(2000, '2s'),
    )
    .addOption(
      new Option('--timeout <duration>', 'how long a restarted workload may take until every new pod is Ready with the new sidecar')
        .argParser(durationFlag({ maxMs: 24 * 3_600_000 }))
        .default(300_000, '5m'),
    )
    .option('--dry-run', 'only print what would happen (the default)')
    .option('--yes', 'really move the namespaces')
    .addOption(formatOption(['table', 'wide', 'json', 'yaml'] as const, 'table', "as kubectl: a table for people, wide adds each pod's reason"))
    .option(
      '-c, --config <path>',
      'injector config whose injection keys (namespace label, revision label, status annotation) to use; default: the built-in one',
    );
  addKubeOptions(cmd).action(async (opts: RolloutCliOptions) => {
    const { runRollout } = await import('./rollout-run.js');
    await runRollout(io, opts);
  });
}

function parseTarget(value: string): string {
  return value === 'default' ? value : parseRevisionName(value);
}

function collectNamespaces(value: string, previous: string[] | undefined): string[] {
  const names = value.split(',').map((n) => n.trim());
  if (names.some((n) => !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(n))) throw new InvalidArgumentError(`"${value}" is not a list of namespace names`);
  return [...(previous ?? []), ...names];
}
