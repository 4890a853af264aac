/**
 * @module cli/kube-options
 * `--kubeconfig` and `--context`, as kubectl takes them, on every command that reads the
 * cluster (status, restart, version, serve), and the words a failed cluster call ends with: which
 * server and context were tried and what to check. Light: the Kubernetes client loads only when
 * a command connects.
 */
import type { Command } from 'commander';
import { ClusterError } from '../errors.js';

export interface KubeCliOptions {
  kubeconfig?: string;
  context?: string;
}

export function addKubeOptions(cmd: Command, use = 'default: $KUBECONFIG, ~/.kube/config, or in-cluster credentials'): Command {
  return cmd.option('--kubeconfig <file>', `kubeconfig file (${use})`).option('--context <name>', 'kubeconfig context (default: its current context)');
}

/** `https://127.0.0.1:6443 (context "dev")`: where a cluster call went, for messages. */
async function describeTarget(opts: KubeCliOptions): Promise<string> {
  const { resolveEndpoint } = await import('../kube/endpoint.js');
  return resolveEndpoint(opts).description;
}

/**
 * A failed API call, said so that the user knows what to check: no answer (the cluster is down
 * or the kubeconfig points elsewhere), credentials refused, or RBAC. Other errors pass through.
 */
export async function withClusterHint(err: unknown, opts: KubeCliOptions): Promise<unknown> {
  if (!(err instanceof ClusterError) || err.code !== 'SI_CLUSTER_REQUEST') return err;
  const status = err.details?.status;
  let hint: string;
  if (status === undefined) hint = 'the cluster cannot be reached: check that it is running and that --kubeconfig/--context point at it (kubectl cluster-info)';
  else if (status === 401) hint = 'the cluster refused the credentials: log in again or choose another --context';
  else if (status === 403) hint = 'the kubeconfig user lacks the RBAC permission for this (kubectl auth can-i shows what it may do)';
  else return err;
  const target = await describeTarget(opts).catch(() => 'the cluster');
  return new ClusterError('SI_CLUSTER_REQUEST', `${err.message}; at ${target}: ${hint}`, { cause: err, details: err.details });
}
