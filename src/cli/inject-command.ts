/**
 * @module cli/inject-command
 * `sidecar-injector inject -f FILE|-`: manual injection, as `istioctl kube-inject` does it,
 * through the same core as the webhook. Reads a manifest stream, writes it back with every pod
 * template injected; untouched documents byte for byte. Nothing is written unless the whole
 * stream succeeded. A ResourceList on the input switches to KRM function mode.
 */
import type { Command } from 'commander';
import type { CliIO } from './io.js';
import { registerManualCommand } from './manual-command.js';

export function register(program: Command, io: CliIO): void {
  registerManualCommand(program, io, {
    operation: 'inject',
    description: 'inject sidecars into the pod templates of a manifest (like istioctl kube-inject), offline',
    filenameHelp: 'manifest to inject (YAML or JSON, multi-document), or - for stdin',
    configHelp:
      'injector config: a directory with config and values files (a mounted ConfigMap), one YAML file, or a ConfigMap manifest; default: the built-in Istio-style proxy',
    namespaceHelp: 'namespace for objects without metadata.namespace',
    quietHelp: 'do not print skipped pods and warnings on stderr (errors are always printed)',
  });
}
