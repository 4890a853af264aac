/**
 * @module cli/policy
 * `sidecar-injector policy`: compile the config into a MutatingAdmissionPolicy and its
 * bindings (Kubernetes 1.36+, no webhook). Prints multi-document YAML for `kubectl apply -f`,
 * or refuses with SI_POLICY_UNSUPPORTED naming the template, line and construct it cannot
 * express. The work is in `policy/`.
 */
import type { Command } from 'commander';
import { oneOf } from './choices.js';
import { writeOutput, type CliIO } from './io.js';
import { fileFormat, formatOption, objectsText, outputFileOption, type DataFormat } from './output.js';
import { loadInjectorConfig } from './manual-io.js';

interface PolicyFlags {
  config?: string;
  name: string;
  failurePolicy: 'Fail' | 'Ignore';
  enableNamespacesByDefault?: boolean;
  output?: DataFormat;
  outputFile?: string;
}

export function register(program: Command, io: CliIO): void {
  program
    .command('policy')
    .description(
      'compile the config into a MutatingAdmissionPolicy + bindings (admissionregistration.k8s.io/v1, Kubernetes 1.36+): injection by the apiserver, no webhook',
    )
    .option('-c, --config <path>', 'injector config: a directory with "config" and "values", or one YAML file (default: built-in)')
    .option('--name <name>', 'name of the policy (bindings are <name>-namespace, <name>-object)', 'sidecar-injector')
    .option(
      '--failure-policy <policy>',
      'Fail (default): a pod the policy cannot mutate is rejected; Ignore: it starts without the sidecar',
      oneOf<'Fail' | 'Ignore'>('Fail', 'Ignore'),
      'Fail',
    )
    .option('--enable-namespaces-by-default', "also inject pods in namespaces without the injection label (Istio's enableNamespacesByDefault)")
    .addOption(formatOption(['yaml', 'json'] as const, undefined, 'default yaml, or as --output-file FILE.json/.yaml names it'))
    .addOption(outputFileOption())
    .action(async (flags: PolicyFlags) => {
      const config = await loadInjectorConfig(io, flags.config, false, true);
      const { compilePolicy } = await import('../policy/index.js');
      const compiled = compilePolicy(config, {
        name: flags.name,
        failurePolicy: flags.failurePolicy,
        enableNamespacesByDefault: flags.enableNamespacesByDefault === true,
      });
      await writeOutput(io, flags.outputFile, await objectsText([compiled.policy, ...compiled.bindings], fileFormat(flags.outputFile, flags.output) ?? 'yaml'));
    });
}
