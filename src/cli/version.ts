/**
 * @module cli/version
 * `sidecar-injector version`, as `kubectl version` reads: the client's version, then, when a
 * cluster is configured, the apiserver's (its /version) and the installed webhook's build (the
 * version label and image of the Deployment behind the injector's MutatingWebhookConfiguration).
 * `--client` (and the root `-v`) print the client only and never touch the network. A cluster
 * that is configured but cannot be read is an error (exit 8), as with kubectl; no kubeconfig at
 * all is not (the client version is still useful), it is said on stderr.
 */
import type { Command } from 'commander';
import { InjectorError } from '../errors.js';
import { packageVersion } from '../install/options.js';
import type { CliIO } from './io.js';
import { addKubeOptions, withClusterHint, type KubeCliOptions } from './kube-options.js';
import { dataText, formatOption, type DataFormat } from './output.js';
import type { WebhookBuild } from './version-webhook.js';

interface VersionFlags extends KubeCliOptions {
  client?: boolean;
  output: 'text' | DataFormat;
  webhookConfig?: string;
}

interface VersionReport {
  clientVersion: { version: string; nodeVersion: string; platform: string };
  serverVersion?: Record<string, unknown>;
  webhook?: WebhookBuild;
}

function clientVersion(): VersionReport['clientVersion'] {
  return { version: packageVersion(), nodeVersion: process.version, platform: `${process.platform}/${process.arch}` };
}

export function register(program: Command, io: CliIO): void {
  addKubeOptions(
    program
      .command('version')
      .description("print the client's version, and the cluster's and the installed webhook's when a cluster is configured")
      .option('--client', 'the client version only (no cluster access)'),
  )
    .option(
      '--webhook-config <name>',
      "the injector's MutatingWebhookConfiguration (default: sidecar-injector, else the one labelled app.kubernetes.io/name=sidecar-injector)",
    )
    .addOption(formatOption(['text', 'json', 'yaml'] as const, 'text'))
    .action(async (flags: VersionFlags) => {
      const report: VersionReport = { clientVersion: clientVersion() };
      if (flags.client !== true) await addServer(io, report, flags);
      io.stdout(flags.output === 'text' ? formatVersion(report) : await dataText(report, flags.output));
    });
}

async function addServer(io: CliIO, report: VersionReport, flags: VersionFlags): Promise<void> {
  const { connect } = await import('../kube/client.js');
  let api;
  try {
    api = connect(flags);
  } catch (err) {
    // Nothing configured and nothing asked for: the client version alone, said why.
    if (flags.kubeconfig === undefined && flags.context === undefined && err instanceof InjectorError && /^no kubeconfig/.test(err.message)) {
      io.stderr(`note: no server version: ${err.message}\n`);
      return;
    }
    throw err;
  }
  try {
    const server = await api.find('/version');
    if (server !== null && typeof server === 'object') report.serverVersion = server as Record<string, unknown>;
    const notes: string[] = [];
    const { webhookBuild } = await import('./version-webhook.js');
    report.webhook = await webhookBuild(api, flags.webhookConfig, notes);
    for (const note of notes) io.stderr(`note: ${note}\n`);
  } catch (err) {
    // The client version is printed before the error, as kubectl does.
    io.stdout(formatVersion(report));
    throw await withClusterHint(err, flags);
  }
}

function formatVersion(r: VersionReport): string {
  const lines = [`Client Version: v${r.clientVersion.version} (Node.js ${r.clientVersion.nodeVersion}, ${r.clientVersion.platform})`];
  if (r.serverVersion !== undefined) lines.push(`Server Version: ${String(r.serverVersion.gitVersion ?? '?')}`);
  const w = r.webhook;
  if (w !== undefined) {
    const build = w.version !== undefined || w.image !== undefined ? `version ${w.version ?? '?'}, image ${w.image ?? '?'}` : (w.note ?? 'build unknown');
    lines.push(
      `Webhook: MutatingWebhookConfiguration ${w.configuration} -> ${w.endpoint}${w.deployment !== undefined ? ` (Deployment ${w.deployment})` : ''}: ${build}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
