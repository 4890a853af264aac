/**
 * @module bench/lib/tools
 * The load generators: wrk (closed loop, max throughput) and h2load from nghttp2-client (open
 * loop at a fixed rate, per-request log in microseconds), installed from Debian when missing and
 * the script runs as root; vegeta (open loop at a fixed rate on a list of bodies, which h2load
 * cannot send), built with `go install` into the user's cache when missing (bench/lib/vegeta.ts).
 * `--no-install` installs neither. Without them the benchmark falls back to the Node client in
 * test/support/load-client.ts (and says so in the results).
 */
import { spawnSync } from 'node:child_process';
import { findVegeta, installVegeta, VEGETA_VERSION, vegetaBinDir, type Vegeta } from './vegeta.js';

export interface Tools {
  wrk: string | undefined;
  h2load: string | undefined;
  vegeta: Vegeta | undefined;
  taskset: boolean;
  notes: string[];
}

function version(cmd: string, args: string[]): string | undefined {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error) return undefined;
  const text = `${r.stdout}${r.stderr}`.split('\n')[0]?.trim();
  return text || cmd;
}

function findTools(): Pick<Tools, 'wrk' | 'h2load' | 'vegeta' | 'taskset'> {
  return {
    wrk: version('wrk', ['--version']),
    h2load: version('h2load', ['--version']),
    vegeta: findVegeta(),
    taskset: spawnSync('taskset', ['-c', '0', 'true']).status === 0,
  };
}

/** Find wrk, h2load, vegeta and taskset; install what is missing when allowed and possible. */
export function ensureTools(install: boolean): Tools {
  let found = findTools();
  const notes: string[] = [];
  const missing = [...(found.wrk ? [] : ['wrk']), ...(found.h2load ? [] : ['nghttp2-client'])];
  if (missing.length > 0 && install && process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0) {
    notes.push(`installing ${missing.join(', ')} with apt-get`);
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    spawnSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    found = findTools();
  }
  if (!found.vegeta && install) {
    notes.push(`installing vegeta ${VEGETA_VERSION} with go install into ${vegetaBinDir()}`);
    const r = installVegeta();
    found.vegeta = r.vegeta;
    if (r.note !== undefined) notes.push(r.note);
  }
  if (!found.wrk)
    notes.push('wrk not available: max throughput measured with the Node closed-loop client (slower than wrk; ratios still compare like with like)');
  if (!found.h2load) notes.push('h2load not available: fixed-rate latency measured with the Node open-loop client');
  if (!found.vegeta)
    notes.push(
      'vegeta not available: fixed-rate latency on a list of bodies (every pod new) measured with the Node open-loop client in a child process, whose own latency floor is higher (it adds to the anchor and ours alike)',
    );
  if (!found.taskset) notes.push('taskset not available: server and load generator are not pinned');
  return { ...found, notes };
}
