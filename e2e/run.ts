/**
 * @module e2e/run
 * `npm run e2e [-- FILTER...]`: build the control-plane binaries (seconds when cached) and our
 * CLI bundle (SI_E2E_NO_BUILD=1 skips that when it exists), start
 * the local control plane (or reuse a running one, and then leave it running), run every
 * `e2e/scenarios/*.e2e.ts` file against it one at a time, print a table of scenarios, and clean
 * up: the test process group is killed (no stray webhook servers) and a cluster this run
 * started is torn down, also on Ctrl-C.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { down, exportLine, healthy, readState, up } from './cluster/cluster.js';
import { ensureBinaries, ensurePrometheus, repoRoot } from './cluster/paths.js';

async function main(filters: string[]): Promise<number> {
  const binDir = ensureBinaries();
  const prometheusDir = ensurePrometheus();
  const cliPath = join(repoRoot, 'dist/bin/sidecar-injector.mjs');
  // The scenarios run the CLI as it ships (the bundle), built from this tree, never a stale one.
  if (process.env.SI_E2E_NO_BUILD !== '1' || !existsSync(cliPath)) {
    const built = spawnSync('npm', ['run', '-s', 'build'], { cwd: repoRoot, stdio: 'inherit' });
    if (built.status !== 0) return 2;
  }
  const dir = join(repoRoot, 'e2e/scenarios');
  const files = readdirSync(dir).filter((f) => f.endsWith('.e2e.ts')).sort()
    .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x))).map((f) => join(dir, f));
  if (files.length === 0) {
    process.stderr.write(`e2e: no scenario file matches ${filters.join(' ')}\n`);
    return 2;
  }
  const existing = readState();
  const reuse = existing !== undefined && existing.webhookClientDir !== undefined && await healthy(existing);
  const t0 = Date.now();
  const state = reuse ? existing! : await up();
  process.stderr.write(`e2e: control plane ${reuse ? 'reused' : 'started'} (${exportLine(state)}) in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
  const env = { ...process.env, KUBECONFIG: state.kubeconfig, SI_E2E_WEBHOOK_CLIENT_DIR: state.webhookClientDir, PATH: `${binDir}:${process.env.PATH ?? ''}`, SI_E2E_CLI: cliPath, SI_PROMETHEUS_DIR: prometheusDir };
  const args = ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-timeout=900000',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    `--test-reporter=${join(repoRoot, 'e2e/lib/table-reporter.mjs')}`, '--test-reporter-destination=stdout', ...files];
  // Its own process group, so that every server a scenario started dies with it.
  const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: 'inherit', detached: true });
  const killGroup = (signal: NodeJS.Signals): void => { try { process.kill(-child.pid!, signal); } catch { /* gone */ } };
  let interrupted = false;
  const onSignal = (): void => { interrupted = true; killGroup('SIGTERM'); setTimeout(() => killGroup('SIGKILL'), 10_000).unref(); };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await new Promise<number>((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 130 : 1))));
  killGroup('SIGKILL');
  if (!reuse) await down();
  else process.stderr.write('e2e: left the reused control plane running\n');
  return interrupted ? 130 : code;
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err: unknown) => {
  process.stderr.write(`e2e: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
