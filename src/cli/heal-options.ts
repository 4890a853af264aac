/**
 * @module cli/heal-options
 * The flags `status` and `restart` share: where the cluster is, which pods, which config and
 * which webhook configuration decide. Light: the cluster client loads only when a command runs.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { revisionNameError } from '../config/k8s-names.js';
import { DEFAULT_NAME } from '../install/options.js';

export interface HealCliOptions {
  config?: string;
  namespace?: string;
  allNamespaces?: boolean;
  kubeconfig?: string;
  context?: string;
  /** Unset: `sidecar-injector`, or `sidecar-injector-<revision>` with --revision. */
  webhookConfig?: string;
  injectorNamespace: string;
  /** The revision whose view this is (its config and webhook configuration). */
  revision?: string;
}

export function addHealOptions(cmd: Command): Command {
  return cmd
    .option('-c, --config <path>', 'injector config (the one serve uses); default: the built-in one')
    .option('-n, --namespace <namespace>', "namespace to look at (default: the context's namespace)")
    .option('-A, --all-namespaces', 'look at every namespace')
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster credentials)')
    .option('--context <name>', 'kubeconfig context')
    .option('--webhook-config <name>', `MutatingWebhookConfiguration whose selectors decide which pods reach the webhook (default: ${DEFAULT_NAME}, or ${DEFAULT_NAME}-<revision> with --revision)`)
    .option('--revision <name>', 'judge as this revision\'s injector does (manifests --revision; give its --config too): pods another revision serves are foreign (other-revision)', parseRevisionName)
    .option('--injector-namespace <namespace>', 'where the injector runs, when the webhook configuration cannot be read', DEFAULT_NAME);
}

/** The webhook configuration `status` and `restart` read: as given, else the one manifests names for the revision. */
export function webhookConfigName(opts: Pick<HealCliOptions, 'webhookConfig' | 'revision'>): string {
  return opts.webhookConfig ?? (opts.revision === undefined ? DEFAULT_NAME : `${DEFAULT_NAME}-${opts.revision}`);
}

/** `30s`, `2m`, `1h`, `500ms` or plain seconds -> milliseconds. */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (m === null) throw new InvalidArgumentError('expected a duration such as 30s, 2m, 1h or 500ms');
  const n = Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  if (n > 24 * 3_600_000) throw new InvalidArgumentError('at most 24h');
  return Math.round(n);
}

export function parseRevisionName(value: string): string {
  const problem = revisionNameError(value);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return value;
}

export function parsePositive(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1000) throw new InvalidArgumentError('expected a whole number, 1-1000');
  return Number(value);
}
