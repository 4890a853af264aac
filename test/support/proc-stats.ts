/**
 * @module test/support/proc-stats
 * What a server process costs, read from Linux `/proc` (benchmarks, soak, slowloris): CPU time
 * (utime + stime from `/proc/PID/stat`), resident memory now and at its peak (`VmRSS`, `VmHWM`
 * from `/proc/PID/status`), open file descriptors and how many of them are sockets. Other
 * platforms get `undefined`, and callers report "not measured".
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

export interface ProcSample {
  /** Monotonic time of the sample, ms (performance.now()). */
  at: number;
  /** User + system CPU consumed since the process started, seconds. */
  cpuSeconds: number;
  rssBytes: number;
  /** Peak resident set size so far (VmHWM). */
  hwmBytes: number;
  fds: number;
  sockets: number;
}

let clockTicks: number | undefined;

/** `getconf CLK_TCK` (100 almost everywhere). */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

function statusKb(status: string, key: string): number {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

/** One sample of `pid`, or undefined when /proc is not there or the process is gone. */
export function procSample(pid: number): ProcSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; the fields after its closing paren are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15)
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    let fds = 0;
    let sockets = 0;
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      fds++;
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets++;
      } catch {
        // closed between readdir and readlink
      }
    }
    return {
      at: performance.now(),
      cpuSeconds: ticks / ticksPerSecond(),
      rssBytes: statusKb(status, 'VmRSS'),
      hwmBytes: statusKb(status, 'VmHWM'),
      fds,
      sockets,
    };
  } catch {
    return undefined;
  }
}

/** CPU used between two samples as a share of one core (1.0 = one core busy all the time). */
export function cpuShare(a: ProcSample | undefined, b: ProcSample | undefined): number | undefined {
  if (a === undefined || b === undefined || b.at <= a.at) return undefined;
  return (b.cpuSeconds - a.cpuSeconds) / ((b.at - a.at) / 1000);
}

export const MiB = 1024 * 1024;

export function mib(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a' : (bytes / MiB).toFixed(1);
}
