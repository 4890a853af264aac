/**
 * @module cli/usage-hints
 * What commander's usage errors leave out, said where a kubectl or istioctl user needs it:
 * `-v` after a command, istioctl kube-inject's command and flag names, a misspelt required
 * option (commander checks required options before unknown ones, so `--file` would only read
 * "required option -f not specified"), and an unknown command followed by `--help` (commander
 * prints the main help and exits 0 for it).
 */
import type { Command } from 'commander';
import { closest } from '../config/issues.js';

/** istioctl kube-inject's flags, and where their meaning lives here. */
const ISTIOCTL_FLAGS: Record<string, string> = {
  '--injectConfigFile': 'the injector config is -c/--config FILE (a config file, a config directory, or the istio-sidecar-injector ConfigMap manifest)',
  '--valuesFile': 'values go in the config: -c DIR with a values file beside config, or the ConfigMap manifest with its values key',
  '--meshConfigFile': 'the mesh config goes in the config: -c DIR with a mesh file beside config, or the ConfigMap manifest',
  '--injectConfigMapName': 'read the ConfigMap from a file: kubectl get cm NAME -n istio-system -o yaml > cm.yaml, then -c cm.yaml',
  '--meshConfigMapName': 'read the ConfigMap from a file: kubectl get cm NAME -n istio-system -o yaml > cm.yaml, then -c cm.yaml',
};

/** Commands of other tools, and ours that do the same. */
const OTHER_COMMANDS: Record<string, string> = {
  'kube-inject': "istioctl's kube-inject is sidecar-injector inject (-f FILE, -c CONFIG)",
};

/**
 * The message commander printed, with what it left out added. `argv`: the command line, for the
 * option the user typed; `known`: every long option of the program, which is never a misspelling.
 */
export function usageHint(message: string, argv: readonly string[], known: ReadonlySet<string>): string {
  const version = /^(Error \[SI_USAGE\]: unknown option '(-v|--version)')/.exec(message);
  if (version !== null) {
    return `${version[1]}: -v and --version print the version only before a command (sidecar-injector --version), or use sidecar-injector version\n`;
  }
  const option = /^(Error \[SI_USAGE\]: unknown option '([^']+)')/.exec(message);
  if (option !== null && ISTIOCTL_FLAGS[option[2]] !== undefined) return `${option[1]}: ${ISTIOCTL_FLAGS[option[2]]}\n`;
  const command = /^(Error \[SI_USAGE\]: unknown command '([^']+)')/.exec(message);
  if (command !== null && OTHER_COMMANDS[command[2]] !== undefined) return `${command[1]}: ${OTHER_COMMANDS[command[2]]}\n`;
  const required = /^Error \[SI_USAGE\]: required option '(?:-\w, )?(--[\w-]+)[^']*' not specified/.exec(message);
  if (required !== null) {
    const typed = misspeltOption(argv, required[1], known);
    if (typed !== undefined) return `Error [SI_USAGE]: unknown option '${typed}' (did you mean ${required[1]}?)\n`;
  }
  return message;
}

/** A long option on the command line close to `wanted` (`--file` for `--filename`), if any. */
function misspeltOption(argv: readonly string[], wanted: string, known: ReadonlySet<string>): string | undefined {
  for (const arg of argv) {
    if (arg === '--') break;
    if (!arg.startsWith('--')) continue;
    const name = arg.split('=')[0];
    if (known.has(name)) continue;
    if (wanted.startsWith(name) || closest(name, [wanted]) !== undefined) return name;
  }
  return undefined;
}

/** Every long option name of the program and its commands. */
export function longOptions(program: Command): Set<string> {
  const out = new Set<string>();
  const walk = (cmd: Command): void => {
    for (const o of cmd.options) if (o.long !== undefined) out.add(o.long);
    for (const c of cmd.commands) walk(c);
  };
  walk(program);
  return out;
}

/**
 * The command line with `-h`/`--help` taken out when it names a command that does not exist,
 * so commander reports the unknown command (with its "did you mean") instead of printing the
 * main help and exiting 0.
 */
export function withoutHelpForUnknownCommand(program: Command, argv: readonly string[]): readonly string[] {
  let cmd = program;
  for (const arg of argv) {
    if (arg === '--') break;
    if (arg.startsWith('-')) continue;
    if (cmd.commands.length === 0) return argv;
    const sub = cmd.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (sub === undefined) return arg === 'help' ? argv : argv.filter((a) => a !== '-h' && a !== '--help');
    cmd = sub;
  }
  return argv;
}
