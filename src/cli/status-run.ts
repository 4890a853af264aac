/**
 * @module cli/status-run
 * The running part of `status` (loaded only when it runs: it brings the Kubernetes client).
 */
import { InjectorError } from '../errors.js';
import { connect } from '../kube/client.js';
import { type ClusterApi } from '../kube/cluster-api.js';
import { formatTable, needsAttention, type StatusReport } from '../heal/report.js';
import { scanCluster, type ScanResult } from '../heal/scan.js';
import type { CliIO } from './io.js';
import { withClusterHint } from './kube-options.js';
import { dataText } from './output.js';
import { loadInjectorConfig } from './manual-io.js';
import { webhookConfigName, type HealCliOptions } from './heal-options.js';

type StatusFormat = 'table' | 'json' | 'yaml';

export interface StatusCliOptions extends HealCliOptions {
  output: StatusFormat;
}

/** Connect, read and classify: what status and restart both start with. */
export async function scanFromCli(io: CliIO, opts: HealCliOptions): Promise<{ api: ClusterApi; scan: ScanResult; namespace: string | undefined }> {
  if (opts.allNamespaces === true && opts.namespace !== undefined) throw new InjectorError('SI_USAGE', '--namespace and --all-namespaces exclude each other');
  const config = await loadInjectorConfig(io, opts.config, false, false, opts.revision);
  const api = connect({ kubeconfig: opts.kubeconfig, context: opts.context });
  const namespace = opts.allNamespaces === true ? undefined : (opts.namespace ?? api.defaultNamespace);
  let scan: ScanResult;
  try {
    scan = await scanCluster(api, config, { namespace, webhookConfig: webhookConfigName(opts), injectorNamespace: opts.injectorNamespace });
  } catch (err) {
    throw await withClusterHint(err, opts);
  }
  for (const note of scan.notes) io.stderr(`note: ${note}\n`);
  return { api, scan, namespace };
}

export async function runStatus(io: CliIO, opts: StatusCliOptions): Promise<void> {
  const { scan, namespace } = await scanFromCli(io, opts);
  io.stdout(await formatReport(scan.report, opts.output, namespace === undefined));
  if (needsAttention(scan.report)) {
    const s = scan.report.summary;
    throw new InjectorError(
      'SI_HEAL_DRIFT',
      `${s.stale} pods with a stale sidecar, ${s.missing} without their sidecar; \`${restartCommand(opts, namespace)}\` restarts their workloads`,
    );
  }
}

/** The restart command for what status looked at: the same scope, config and cluster flags. */
export function restartCommand(opts: HealCliOptions, namespace: string | undefined): string {
  const words = ['sidecar-injector', 'restart', '--stale', '--missing', '--yes', ...(namespace === undefined ? ['-A'] : ['-n', namespace])];
  const flags: [string, string | undefined][] = [
    ['-c', opts.config],
    ['--kubeconfig', opts.kubeconfig],
    ['--context', opts.context],
    ['--webhook-config', opts.webhookConfig],
    ['--revision', opts.revision],
  ];
  for (const [flag, value] of flags) if (value !== undefined) words.push(flag, /^[\w./:@=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);
  return words.join(' ');
}

async function formatReport(report: StatusReport, format: StatusCliOptions['output'], allNamespaces: boolean): Promise<string> {
  return format === 'table' ? formatTable(report, allNamespaces) : dataText(report, format);
}
