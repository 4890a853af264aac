/**
 * @module cli/restart-run
 * The running part of `restart` (loaded only when it runs).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { InjectorError } from '../errors.js';
import { classifyPod } from '../heal/classify.js';
import { describePlan, planRestart } from '../heal/restart-plan.js';
import { rollOut, settledTargets, type RolloutOutcome } from '../heal/restart-workloads.js';
import type { CliIO } from './io.js';
import { dataText } from './output.js';
import { scanFromCli } from './status-run.js';
import { servedConfigHint } from './restart-hint.js';
import { webhookConfigName, type HealCliOptions } from './heal-options.js';

export interface RestartCliOptions extends HealCliOptions {
  stale?: boolean;
  missing?: boolean;
  maxInFlight: number;
  interval: number;
  timeout: number;
  dryRun?: boolean;
  yes?: boolean;
  output: 'text' | 'json' | 'yaml';
}

export async function runRestart(io: CliIO, opts: RestartCliOptions): Promise<void> {
  if (opts.stale !== true && opts.missing !== true) throw new InjectorError('SI_USAGE', 'say what to restart: --stale, --missing or both');
  if (opts.yes === true && opts.dryRun === true) throw new InjectorError('SI_USAGE', '--dry-run and --yes exclude each other');
  const { api, scan } = await scanFromCli(io, opts);
  if (opts.stale === true) {
    // Best effort: a user who may not read Deployments or ConfigMaps still gets the restart.
    const hint = await servedConfigHint(api, scan.env.config, webhookConfigName(opts), opts.revision).catch(() => undefined);
    if (hint !== undefined) io.stderr(`warning: ${hint}\n`);
  }
  const plan = planRestart(scan.report, { stale: opts.stale === true, missing: opts.missing === true });
  // A workload still rolling out its current template is not restarted again (that would only
  // restart the rollout); it is reported with the rest.
  const { ready, rolling, deleting } = await settledTargets(api, plan.restart);
  plan.restart = ready;
  for (const p of rolling) plan.reportOnly.push({ ...p, advice: 'still rolling out its current template: not restarted again (see kubectl rollout status)' });
  for (const p of deleting) plan.reportOnly.push({ ...p, advice: 'being deleted (or its namespace is): not restarted' });
  const dryRun = opts.yes !== true;
  if (dryRun) {
    if (opts.output !== 'text') io.stdout(await dataText({ kind: 'SidecarRestart', dryRun: true, plan }, opts.output));
    else io.stdout(`${describePlan(plan, true)}(dry run: nothing was changed; add --yes to restart)\n`);
    return;
  }
  io.stderr(describePlan(plan, false));
  const { env } = scan;
  const outcomes = await rollOut(
    plan.restart,
    {
      api,
      classify: (pod) => {
        const meta = (pod as { metadata?: { namespace?: string } }).metadata;
        return classifyPod(pod, { config: env.config, scopes: env.scopes, namespaceLabels: env.namespaceLabels.get(meta?.namespace ?? '') ?? {} });
      },
      now: () => new Date(),
      sleep: (ms) => sleep(ms),
      log: (line) => io.stderr(`${new Date().toISOString()} ${line}\n`),
    },
    { maxInFlight: opts.maxInFlight, intervalMs: opts.interval, timeoutMs: opts.timeout },
  );
  if (opts.output !== 'text') io.stdout(await dataText({ kind: 'SidecarRestart', dryRun: false, outcomes, reportOnly: plan.reportOnly }, opts.output));
  else io.stdout(formatOutcomes(outcomes));
  const bad = outcomes.filter((o) => o.result !== 'progressed');
  if (bad.length > 0) {
    throw new InjectorError(
      'SI_HEAL_RESTART_STALLED',
      `${bad.length} of ${outcomes.length} workloads did not progress: ${bad.map((o) => `${o.workload.kind.toLowerCase()}/${o.workload.name}: ${o.detail}`).join('; ')}`,
    );
  }
}

function formatOutcomes(outcomes: readonly RolloutOutcome[]): string {
  if (outcomes.length === 0) return 'nothing restarted\n';
  return outcomes.map((o) => `${o.result} ${o.workload.kind.toLowerCase()}/${o.workload.name} -n ${o.workload.namespace}: ${o.detail}\n`).join('');
}
