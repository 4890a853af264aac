/**
 * @module cli/commands
 * The list of subcommands. Add one line per command file.
 */
import type { Command } from 'commander';
import type { CliIO } from './io.js';

export type RegisterCommand = (program: Command, io: CliIO) => void;

export const COMMANDS: RegisterCommand[] = [];
