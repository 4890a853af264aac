import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

test('a reader that closes early (`| head`) ends the CLI quietly with status 141, not a stack trace', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'si-epipe-'));
  const tpl = join(dir, 'big.tpl');
  writeFileSync(tpl, '{{ repeat 4000000 "x" }}');
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'template', 'render', tpl], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  assert.equal(code, 141);
  assert.equal(stderr, '');
});
