/**
 * @module e2e/cluster/process
 * Daemon processes that outlive `cluster up`: started detached with their output in a log
 * file, recognised later by pid *and* command line (a recycled pid is never killed), stopped
 * with SIGTERM and then SIGKILL.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';

export interface Daemon {
  name: string;
  pid: number;
  bin: string;
  log: string;
}

export interface DaemonOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export function startDaemon(name: string, bin: string, args: string[], log: string, options: DaemonOptions = {}): Daemon {
  const fd = openSync(log, 'a');
  try {
    const child = spawn(bin, args, { detached: true, stdio: ['ignore', fd, fd], cwd: options.cwd, env: options.env });
    if (child.pid === undefined) throw new Error(`${name} did not start (${bin})`);
    child.unref();
    return { name, pid: child.pid, bin, log };
  } finally {
    closeSync(fd);
  }
}

export function isRunning(d: Daemon): boolean {
  try {
    const cmdline = readFileSync(`/proc/${d.pid}/cmdline`, 'utf8');
    if (!cmdline.startsWith(d.bin)) return false;
    const stat = readFileSync(`/proc/${d.pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z /.test(stat); // a zombie has exited
  } catch {
    return false;
  }
}

export async function stopDaemon(d: Daemon, graceMs = 10_000): Promise<void> {
  if (!isRunning(d)) return;
  try {
    process.kill(d.pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isRunning(d)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    process.kill(d.pid, 'SIGKILL');
  } catch {
    /* gone already */
  }
}

export function logTail(file: string, lines = 25): string {
  if (!existsSync(file)) return '(no log)';
  const all = readFileSync(file, 'utf8').trimEnd().split('\n');
  return all.slice(-lines).join('\n');
}
