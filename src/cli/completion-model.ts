/**
 * @module cli/completion-model
 * The command table as data for shell completion: every command path, its subcommands, its
 * flags and what each flag's value is (a file, a directory, one of fixed choices, or free text),
 * read from the commander tree the CLI runs with. Each shell's script is rendered from this
 * (completion-shells.ts), so a new command or flag completes in every shell with no edit.
 */
import type { Command, Option } from 'commander';
import { parserChoices } from './choices.js';

type ValueKind = 'none' | 'file' | 'dir' | 'word';

export interface FlagSpec {
  short?: string;
  long?: string;
  description: string;
  value: ValueKind;
  /** Fixed values (output formats, Fail/Ignore); with value 'file' a file name is allowed too. */
  choices: string[];
}

export interface CommandSpec {
  /** Command words from the root: [] for the root, ['config', 'check']. */
  path: string[];
  description: string;
  subcommands: { name: string; description: string }[];
  flags: FlagSpec[];
  /** Positional arguments: file names (template render TEMPLATE) and fixed choices (completion SHELL). */
  fileArgs: boolean;
  argChoices: string[];
}

/** `<format|file>` -> file too; `<file>`, `<path>`, `[file]` -> file; `<dir>` -> dir. */
function valueKind(option: Option): ValueKind {
  if (!option.required && !option.optional) return 'none';
  const placeholder = /[<[]([^>\]]*)[>\]]/.exec(option.flags)?.[1] ?? '';
  if (/\b(file|path)\b/.test(placeholder)) return 'file';
  if (/\bdir\b/.test(placeholder)) return 'dir';
  return 'word';
}

/** Fixed choices: commander's own, or those a parser carries (cli/choices, cli/output). */
function choicesOf(option: Option): string[] {
  return [...(option.argChoices ?? parserChoices((option as Option & { parseArg?: unknown }).parseArg) ?? [])];
}

function firstClause(text: string): string {
  return text.split(/[;(]/)[0].trim();
}

function flagSpec(option: Option): FlagSpec {
  return {
    ...(option.short !== undefined ? { short: option.short } : {}),
    ...(option.long !== undefined ? { long: option.long } : {}),
    description: firstClause(option.description),
    value: valueKind(option),
    choices: choicesOf(option),
  };
}

const HELP: FlagSpec = { short: '-h', long: '--help', description: 'display help', value: 'none', choices: [] };

/** Every command path of the program, root first, depth first. */
export function commandModel(program: Command): CommandSpec[] {
  const out: CommandSpec[] = [];
  const walk = (cmd: Command, path: string[]): void => {
    const visible = cmd.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden);
    out.push({
      path,
      description: firstClause(cmd.description()),
      subcommands: visible.map((c) => ({ name: c.name(), description: firstClause(c.description()) })),
      flags: [...cmd.options.filter((o) => !o.hidden).map(flagSpec), HELP],
      fileArgs: cmd.registeredArguments.some((a) => /file|path/.test(a.name())),
      argChoices: cmd.registeredArguments.flatMap((a) => a.argChoices ?? []),
    });
    for (const c of visible) walk(c, [...path, c.name()]);
  };
  walk(program, []);
  return out;
}
