/**
 * @module cli/serve-reconcile-options
 * The `serve --reconcile` flags (self-healing in the injector Deployment). Parsing only: the
 * reconciler and the Kubernetes client load in serve-run, and only with --reconcile.
 */
import { Option, type Command } from 'commander';
import { DEFAULT_NAME } from '../install/options.js';
import { parsePositive } from './heal-options.js';
import { durationFlag } from './duration-flag.js';

export interface ReconcileCliOptions {
  reconcile?: boolean;
  reconcileRestart?: boolean;
  reconcileNamespace?: string[];
  reconcileLease: string;
  reconcileLeaseNamespace?: string;
  reconcileWebhookConfig?: string;
  reconcileMaxInFlight: number;
  reconcileRestartTimeout: number;
}

const DEFAULT_RECONCILE_LEASE = `${DEFAULT_NAME}-reconcile`;

export function addReconcileOptions(cmd: Command): Command {
  return cmd
    .option('--reconcile', 'also watch pods and report stale and missing sidecars (metrics sidecar_injector_pods, Events); one replica acts, chosen by a Lease')
    .option('--reconcile-restart', 'with --reconcile: restart the workloads with stale or missing sidecars (as restart --yes)')
    .option('--reconcile-namespace <namespace...>', 'with --reconcile: only these namespaces (default: all)')
    .option('--reconcile-lease <name>', 'the coordination.k8s.io Lease for leader election', DEFAULT_RECONCILE_LEASE)
    .option('--reconcile-lease-namespace <namespace>', "the Lease's namespace (default: the injector's own)")
    .option(
      '--reconcile-webhook-config <name>',
      'MutatingWebhookConfiguration whose selectors decide which pods reach the webhook (default: --webhook-config, else sidecar-injector)',
    )
    .option('--reconcile-max-in-flight <n>', 'with --reconcile-restart: workloads rolling at once', parsePositive, 1)
    .addOption(
      new Option('--reconcile-restart-timeout <duration>', 'with --reconcile-restart: stop restarting when a rollout shows no progress in this time')
        .argParser(durationFlag({ minMs: 1000, maxMs: 86_400_000 }))
        .default(300_000, '5m'),
    );
}
