/**
 * @module testing/serve-fake-main
 * A process entry running `sidecar-injector serve` with the fake core, for tests that need a
 * real process (signals, exit status) before the real core is part of the build.
 */
import { Command } from 'commander';
import { processIO } from '../cli/io.js';
import { registerWith } from '../cli/serve.js';
import { fakeConfig, fakeInject, loadFakeConfig } from './fake-inject.js';

const program = new Command('sidecar-injector').exitOverride();
registerWith(async () => ({ inject: fakeInject, config: { load: loadFakeConfig, builtin: () => fakeConfig(), describe: (c) => ({ hash: c.hash }) } }))(program, processIO());
try {
  await program.parseAsync(process.argv.slice(2), { from: 'user' });
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 2;
}
