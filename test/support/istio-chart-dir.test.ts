import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const module = fileURLToPath(new URL('./istio-chart.ts', import.meta.url));
const dirWith = (env: Record<string, string>) =>
  execFileSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', `const m = await import(${JSON.stringify(module)}); process.stdout.write(m.ISTIO_CONFORMANCE_DIR)`],
    {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    },
  );

test('the Istio conformance data path comes from SI_ISTIO_CONFORMANCE_DIR, else ../shared', () => {
  assert.equal(dirWith({ SI_ISTIO_CONFORMANCE_DIR: '/data/istio' }), '/data/istio/');
  assert.match(dirWith({ SI_ISTIO_CONFORMANCE_DIR: '' }), /\/shared\/conformance\/istio\/$/);
});
