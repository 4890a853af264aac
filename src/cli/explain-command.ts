/**
 * @module cli/explain-command
 * `sidecar-injector explain -f FILE`: for each pod or pod template, would it be injected and
 * why, step by step through the webhook configuration (namespace label, object selector) and
 * the injector's rules, with warnings for the classic mistakes. The webhook flags mirror those of
 * `manifests`, so explain evaluates the configuration that command writes. Informational: exits 0 whatever
 * the verdicts; only unreadable input or config fails.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_NAME as DEFAULT_INJECTOR_NAMESPACE } from '../install/options.js';
import { type CliIO } from './io.js';
import { collectFiles } from './manifest-sources.js';
import { MANUAL_HELP } from './manual-help.js';
import { dataText, formatOption } from './output.js';
import { setOwn } from '../util/own.js';

interface ExplainCliOptions {
  filename: string[];
  config?: string;
  namespace?: string;
  namespaceLabels?: Record<string, string>;
  injectorNamespace: string;
  enableNamespacesByDefault?: boolean;
  excludeNamespace?: string[];
  matchConditions: boolean;
  output: 'text' | 'json' | 'yaml';
}

export function register(program: Command, io: CliIO): void {
  program
    .command('explain')
    .description('explain, for each pod or pod template, whether the webhook would inject it and why')
    .requiredOption(
      '-f, --filename <file>',
      'manifest to explain (YAML or JSON, multi-document), or - for stdin; repeat -f for more, a directory reads its .yaml, .yml and .json files, an http(s) URL is fetched',
      collectFiles,
    )
    .option('-c, --config <path>', 'injector config (as for inject); default: the built-in one')
    .option('-n, --namespace <namespace>', 'namespace for objects without metadata.namespace', 'default')
    .option('--namespace-labels <k=v,...>', 'labels of that namespace ("" for none); default: assume it is labelled for injection', parseLabels)
    .option('--injector-namespace <namespace>', 'namespace the injector runs in (excluded from the webhook)', DEFAULT_INJECTOR_NAMESPACE)
    .option('--enable-namespaces-by-default', 'the webhook configuration also injects pods in unlabelled namespaces (the auto. entry)')
    .option('--exclude-namespace <namespace...>', 'more namespaces the webhook configuration excludes (as given to manifests)')
    .option('--no-match-conditions', 'the webhook configuration has no CEL matchConditions (manifests --no-match-conditions)')
    .addOption(formatOption(['text', 'json', 'yaml'] as const, 'text'))
    .addHelpText('after', MANUAL_HELP.explain)
    .action(async (opts: ExplainCliOptions) => {
      // Loaded when the command runs, not at CLI start-up.
      const [{ explainManifest, formatExplainJson, formatExplainText }, { loadInjectorConfig }, { readManifestSources }] = await Promise.all([
        import('../manual-inject/index.js'),
        import('./manual-io.js'),
        import('./manifest-sources.js'),
      ]);
      const sources = await readManifestSources(io, opts.filename);
      const config = await loadInjectorConfig(io, opts.config, false);
      const entries = sources.flatMap((s) =>
        explainManifest(s.bytes, s.name, config, {
          namespace: opts.namespace,
          namespaceLabels: opts.namespaceLabels,
          injectorNamespace: opts.injectorNamespace,
          enableNamespacesByDefault: opts.enableNamespacesByDefault === true,
          excludedNamespaces: opts.excludeNamespace ?? [],
          matchConditions: opts.matchConditions,
        }),
      );
      io.stdout(
        opts.output === 'json'
          ? formatExplainJson(entries)
          : opts.output === 'yaml'
            ? await dataText(JSON.parse(formatExplainJson(entries)), 'yaml')
            : formatExplainText(entries),
      );
    });
}

/** `a=b,c=d` -> {a: 'b', c: 'd'}; `""` -> {} (a namespace with no labels). */
export function parseLabels(value: string): Record<string, string> {
  const labels: Record<string, string> = {};
  if (value.trim() === '') return labels;
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    const key = eq === -1 ? '' : part.slice(0, eq).trim();
    if (key === '') throw new InvalidArgumentError(`"${part}" is not key=value (example: istio-injection=enabled,team=shop)`);
    setOwn(labels, key, part.slice(eq + 1).trim());
  }
  return labels;
}
