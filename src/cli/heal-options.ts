/**
 * @module cli/heal-options
 * The flags `status` and `restart` share: where the cluster is, which pods, which config and
 * which webhook configuration decide. Light: the cluster client loads only when a command runs.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { revisionNameError } from '../config/k8s-names.js';
import { DEFAULT_NAME } from '../install/options.js';
import { addKubeOptions, type KubeCliOptions } from './kube-options.js';

export interface HealCliOptions extends KubeCliOptions {
  config?: string;
  namespace?: string;
  allNamespaces?: boolean;
  /** Undefined: `sidecar-injector-<revision>` with --revision; else the one named sidecar-injector, else the one labelled app.kubernetes.io/name=sidecar-injector (a Helm release). */
  webhookConfig?: string;
  injectorNamespace: string;
  /** The revision whose view this is (its config and webhook configuration). */
  revision?: string;
}

export function addHealOptions(cmd: Command): Command {
  cmd
    .option('-c, --config <path>', 'injector config (the one serve uses); default: the built-in one')
    .option('-n, --namespace <namespace>', "namespace to look at (default: the context's namespace)")
    .option('-A, --all-namespaces', 'look at every namespace');
  return addKubeOptions(cmd)
    .option(
      '--webhook-config <name>',
      `MutatingWebhookConfiguration whose selectors decide which pods reach the webhook (default: ${DEFAULT_NAME}-<revision> with --revision; else ${DEFAULT_NAME}, else the one labelled app.kubernetes.io/name=${DEFAULT_NAME}, as a Helm release names it)`,
    )
    .option(
      '--revision <name>',
      "judge as this revision's injector does (manifests --revision; give its --config too): pods another revision serves are foreign (other-revision)",
      parseRevisionName,
    )
    .option('--injector-namespace <namespace>', 'where the injector runs, when the webhook configuration cannot be read', DEFAULT_NAME);
}

/** The webhook configuration `status` and `restart` read: as given, else the one manifests names for the revision, else undefined (found by name or label). */
export function webhookConfigName(opts: Pick<HealCliOptions, 'webhookConfig' | 'revision'>): string | undefined {
  return opts.webhookConfig ?? (opts.revision === undefined ? undefined : `${DEFAULT_NAME}-${opts.revision}`);
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
