/**
 * @module cli/completion
 * `sidecar-injector completion bash|zsh|fish`: prints a completion script made from the CLI's
 * own command tree (completion-model, completion-shells), as `kubectl completion` does.
 */
import { Argument, type Command } from 'commander';
import type { CliIO } from './io.js';
import { commandModel } from './completion-model.js';
import { bashScript, fishScript, zshScript } from './completion-shells.js';

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

export function register(program: Command, io: CliIO): void {
  program
    .command('completion')
    .description('print a shell completion script: bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(Object.keys(SHELLS)))
    .addHelpText(
      'after',
      '\nExamples:\n  source <(sidecar-injector completion bash)\n  source <(sidecar-injector completion zsh)      # after compinit\n  sidecar-injector completion fish | source\n',
    )
    .action((shell: string) => {
      io.stdout(SHELLS[shell as keyof typeof SHELLS](commandModel(program)));
    });
}
