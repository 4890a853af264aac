import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultConfig, parseConfig } from '../config/load.js';
import { productRuntime } from './serve.js';

test('serve logs the compatibility mode and why with the loaded config', async () => {
  const runtime = await productRuntime();
  assert.equal(runtime.config.describe?.(defaultConfig()).compatibility, 'none: the config says compatibility: none');
  const istio = parseConfig('policy: enabled', JSON.stringify({ global: { proxy: {} } }));
  assert.match(String(runtime.config.describe?.(istio).compatibility), /^istio: the values are shaped like Istio's/);
});
