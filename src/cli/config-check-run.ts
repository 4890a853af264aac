/** The running part of `config check` (loaded only when the command runs). */
import { readFile } from 'node:fs/promises';
import { checkConfig, formatFinding, formatReport } from '../check/check.js';
import { representativePods, type CheckPod } from '../check/pods.js';
import { ConfigError, InputError } from '../errors.js';
import { podTemplates, readManifest } from '../manifest-io/index.js';
import { ownerFor, podInput } from '../manual-inject/pod-templates.js';
import type { JsonObject } from '../util/json.js';
import { type CliIO } from './io.js';
import { readManifestSources } from './manifest-sources.js';
import { loadInjectorConfig } from './manual-io.js';
import { dataText, type DataFormat } from './output.js';

export async function runConfigCheck(io: CliIO, opts: { config?: string; filename?: string[]; output: 'text' | DataFormat }): Promise<void> {
  const config = await loadInjectorConfig(io, opts.config, false);
  const pods: CheckPod[] = representativePods(config);
  for (const { name: file, bytes } of await readManifestSources(io, opts.filename ?? [])) {
    for (const doc of readManifest(bytes, file)) {
      if (doc.value === null) continue;
      for (const ref of podTemplates(doc.value, { file, document: doc.index, line: doc.line })) {
        const pod = podInput(doc.value, ref) as JsonObject;
        const owner = ownerFor(ref);
        const name = `${file} ${ref.owner.kind}/${ref.owner.name}`;
        pods.push({
          name,
          source: { file, line: doc.line },
          pod:
            owner === undefined
              ? pod
              : ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: ref.owner.name, ...(pod.metadata as object) }, spec: pod.spec } as JsonObject),
        });
      }
    }
  }
  const file = configFile(config.source);
  const text = file === undefined ? undefined : await readFile(file, 'utf8').catch(() => undefined);
  const report = checkConfig(config, pods, { source: file !== undefined && text !== undefined ? { file, text } : undefined });
  io.stdout(opts.output === 'text' ? formatReport(report) : await dataText(report, opts.output));
  const configFailures = report.failures.filter((f) => f.blame !== 'pod');
  if (configFailures.length > 0) {
    throw new ConfigError(
      'SI_CONFIG_INVALID',
      `config check: ${configFailures.length} injection(s) give a pod the API server would refuse; first: ${formatFinding(configFailures[0])}`,
    );
  }
  if (report.failures.length > 0) {
    const first = report.failures[0];
    throw new InputError(
      'SI_INPUT_OBJECT',
      `config check: the config passed, but ${report.failures.length} of the pods given with -f cannot be injected because of the pod itself; first: ${formatFinding(first)}; fix the pod`,
    );
  }
}

function configFile(source: { kind: string; path?: string; files: string[] }): string | undefined {
  if (source.kind === 'directory' || source.kind === 'file') return source.files[0];
  if (source.kind === 'builtin') return source.files[0];
  return undefined;
}
