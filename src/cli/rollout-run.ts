/**
 * @module cli/rollout-run
 * The running part of `rollout` (loaded only when it runs: it brings the Kubernetes client).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { InjectorError } from '../errors.js';
import { connect } from '../kube/client.js';
import { formatPlan, formatResults } from '../rollout/rollout-format.js';
import { planRollout, type NamespaceMove } from '../rollout/rollout-plan.js';
import { executeRollout, type RolloutReport } from '../rollout/run.js';
import type { CliIO } from './io.js';
import { loadInjectorConfig } from './manual-io.js';
import { withClusterHint } from './kube-options.js';
import { dataText } from './output.js';

export interface RolloutCliOptions {
  from?: string;
  to?: string;
  undo?: boolean;
  namespace?: string[];
  allNamespaces?: boolean;
  batch: number;
  maxInFlight: number;
  interval: number;
  timeout: number;
  dryRun?: boolean;
  yes?: boolean;
  /** Absent: the table for people. */
  output?: 'table' | 'json' | 'yaml' | 'wide';
  config?: string;
  kubeconfig?: string;
  context?: string;
}

export async function runRollout(io: CliIO, opts: RolloutCliOptions): Promise<void> {
  if (opts.yes === true && opts.dryRun === true) throw new InjectorError('SI_USAGE', '--dry-run and --yes exclude each other');
  if (opts.allNamespaces === true && opts.namespace !== undefined) throw new InjectorError('SI_USAGE', '--namespace and --all-namespaces exclude each other');
  if (opts.undo === true && (opts.from !== undefined || opts.to !== undefined))
    throw new InjectorError('SI_USAGE', '--undo moves namespaces back to what their last rollout replaced: drop --from and --to');
  if (opts.undo !== true && (opts.from === undefined || opts.to === undefined))
    throw new InjectorError('SI_USAGE', 'say which revisions: --from A --to B ("default" is the install without --revision), or --undo');
  const config = await loadInjectorConfig(io, opts.config, true);
  const api = connect({ kubeconfig: opts.kubeconfig, context: opts.context });
  let moves: NamespaceMove[];
  try {
    moves = await planRollout(api, {
      keys: config.injectionKeys,
      statusKey: config.injectionKeys.status,
      ...(opts.from !== undefined ? { from: opts.from } : {}),
      ...(opts.to !== undefined ? { to: opts.to } : {}),
      undo: opts.undo === true,
      ...(opts.namespace !== undefined ? { namespaces: opts.namespace } : {}),
      all: opts.allNamespaces === true,
      now: new Date(),
    });
  } catch (err) {
    throw await withClusterHint(err, opts);
  }
  const wide = opts.output === 'wide';
  const head = {
    kind: 'SidecarRollout' as const,
    undo: opts.undo === true,
    ...(opts.from !== undefined ? { from: opts.from } : {}),
    ...(opts.to !== undefined ? { to: opts.to } : {}),
  };
  if (opts.yes !== true) {
    if (opts.output === 'json' || opts.output === 'yaml') io.stdout(await dataText({ ...head, dryRun: true, plan: moves }, opts.output));
    else io.stdout(`${formatPlan(moves, opts.batch, true, wide)}(dry run: nothing was changed; add --yes to move the namespaces)\n`);
    return;
  }
  io.stderr(formatPlan(moves, opts.batch, false, wide));
  const results = await executeRollout(
    moves,
    { batchSize: opts.batch, maxInFlight: opts.maxInFlight, intervalMs: opts.interval, timeoutMs: opts.timeout },
    {
      api,
      statusKey: config.injectionKeys.status,
      now: () => new Date(),
      sleep: (ms) => sleep(ms),
      log: (line) => io.stderr(`${new Date().toISOString()} ${line}\n`),
    },
  );
  const report: RolloutReport = { ...head, dryRun: false, namespaces: results };
  io.stdout(opts.output === 'json' || opts.output === 'yaml' ? await dataText(report, opts.output) : formatResults(results, wide));
  const failed = results.find((r) => r.result === 'rolled-back' || r.result === 'rollback-failed');
  if (failed !== undefined) {
    const moved = results.filter((r) => r.result === 'moved').map((r) => r.namespace);
    const untouched = results.filter((r) => r.result === 'not-started').map((r) => r.namespace);
    throw new InjectorError(
      'SI_ROLLOUT_ROLLED_BACK',
      `${failed.result === 'rolled-back' ? 'rolled back' : 'ROLLBACK FAILED for'} ${failed.namespace}: ${failed.detail}. Moved: ${moved.join(', ') || 'none'}; not started: ${untouched.join(', ') || 'none'}`,
    );
  }
}
