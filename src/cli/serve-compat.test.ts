import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultConfig, parseConfig } from '../profiles/index.js';
import { productRuntime } from './serve.js';

test('serve logs the compatibility mode and why with the loaded config', async () => {
  const runtime = await productRuntime();
  assert.equal(runtime.config.describe?.(defaultConfig()).compatibility, 'none: the config says compatibility: none');
  const istio = parseConfig('policy: enabled', JSON.stringify({ global: { proxy: {} } }));
  assert.match(String(runtime.config.describe?.(istio).compatibility), /^istio: the values are shaped like Istio's/);
});

test('-c is --config on every command that takes a config', async () => {
  const { Command } = await import('commander');
  const { COMMANDS } = await import('./commands.js');
  const { memoryIO } = await import('../../test/support/memory-io.js');
  const program = new Command('sidecar-injector');
  for (const register of COMMANDS) register(program, memoryIO());
  const all = program.commands.flatMap((c) => [c, ...c.commands]);
  const withConfig = all.filter((c) => c.options.some((o) => o.long === '--config'));
  assert.ok(withConfig.map((c) => c.name()).includes('serve') && withConfig.map((c) => c.name()).includes('manifests'));
  for (const c of withConfig) assert.equal(c.options.find((o) => o.long === '--config')?.short, '-c', c.name());
});
