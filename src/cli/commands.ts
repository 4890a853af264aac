/**
 * @module cli/commands
 * The list of subcommands. Add one line per command file.
 */
import type { Command } from 'commander';
import type { CliIO } from './io.js';
import { register as registerCerts } from './certs.js';
import { register as registerTemplateRender } from './template-render.js';
import { register as registerServe } from './serve.js';
import { register as registerInject } from './inject-command.js';
import { register as registerUninject } from './uninject-command.js';
import { register as registerExplain } from './explain-command.js';
import { register as registerManifests } from './install-manifests.js';
import { register as registerConfigCheck } from './config-check.js';

import { register as registerStatus } from './status-command.js';
import { register as registerRestart } from './restart.js';
import { register as registerRollout } from './rollout-command.js';
import { register as registerPolicy } from './policy.js';
import { register as registerVersion } from './version.js';
import { register as registerCompletion } from './completion.js';

export type RegisterCommand = (program: Command, io: CliIO) => void;

export const COMMANDS: RegisterCommand[] = [
  registerCerts,
  registerTemplateRender,
  registerServe,
  registerInject,
  registerUninject,
  registerExplain,
  registerManifests,
  registerConfigCheck,

  registerStatus,
  registerRestart,
  registerRollout,
  registerPolicy,
  registerVersion,
  // Last: it describes every command registered before it.
  registerCompletion,
];
