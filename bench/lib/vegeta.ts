/**
 * @module bench/lib/vegeta
 * vegeta (github.com/tsenart/vegeta, a Go open-loop HTTP load generator) as the fixed-rate tool
 * for a list of bodies (every pod new). h2load cannot vary its body, and the Node open-loop
 * client (open-loop-child.ts) has a latency floor of its own (its 1 ms timer, its event loop and
 * garbage collector), which lands in every server's p99, the anchor's too. vegeta reads the
 * bodies once at start-up, sends them in the order of its target file and paces requests from a
 * goroutine of its own.
 *
 * Here: finding or installing it (`go install` of a pinned version into the user's cache, outside
 * the repository), the target file (rotated, so a measured run goes on where its warm-up
 * stopped), the attack's flags, and reading its results (`vegeta encode -to=json`: one JSON
 * object per request, latency in nanoseconds) into a FixedRateResult. load.ts runs it.
 */
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FixedRateResult } from './results.js';
import { latencyFields } from './stats.js';

const VEGETA_MODULE = 'github.com/tsenart/vegeta/v12';
export const VEGETA_VERSION = 'v12.12.0';

export interface Vegeta {
  /** The binary to run. */
  path: string;
  /** What the report names it. */
  version: string;
}

/** Where `go install` puts the pinned build (SIDECAR_INJECTOR_CACHE, else XDG_CACHE_HOME, else ~/.cache, as e2e does). */
export function vegetaBinDir(): string {
  const root = process.env.SIDECAR_INJECTOR_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'sidecar-injector');
  // The version is in the path, so a change of the pin installs afresh instead of reusing an old build.
  return join(root, 'bench-tools', `vegeta-${VEGETA_VERSION}`, 'bin');
}

/** The pinned build in the cache, else a vegeta on PATH. */
export function findVegeta(): Vegeta | undefined {
  const cached = join(vegetaBinDir(), 'vegeta');
  if (spawnSync(cached, ['-version']).status === 0) return { path: cached, version: `vegeta ${VEGETA_VERSION}` };
  const r = spawnSync('vegeta', ['-version'], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) return undefined;
  // `go install` builds leave the version empty (it is set at link time by vegeta's Makefile only).
  const v = /Version:\s*(\S+)/.exec(r.stdout)?.[1];
  return { path: 'vegeta', version: `vegeta ${v ?? '(version unknown)'} from PATH` };
}

/** `go install` the pinned vegeta into vegetaBinDir(); on failure, why (for the run's notes). */
export function installVegeta(): { vegeta?: Vegeta; note?: string } {
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.error !== undefined || go.status !== 0) return { note: 'Go is not installed, so vegeta could not be built' };
  const r = spawnSync('go', ['install', `${VEGETA_MODULE}@${VEGETA_VERSION}`], {
    encoding: 'utf8',
    env: { ...process.env, GOBIN: vegetaBinDir() },
    timeout: 5 * 60_000,
  });
  if (r.status !== 0) {
    const why = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n').slice(-2).join(' ');
    return { note: `go install ${VEGETA_MODULE}@${VEGETA_VERSION} failed: ${why}` };
  }
  const vegeta = findVegeta();
  return vegeta ? { vegeta } : { note: `go install ${VEGETA_MODULE}@${VEGETA_VERSION} ran, but no working vegeta in ${vegetaBinDir()}` };
}

/**
 * vegeta's HTTP target format for the list: one POST target per body, in the list's order from
 * body `start` (mod N) on, a blank line between targets. vegeta hands the targets out in file
 * order and cycles, so a measured run written from the warm-up's request count goes on from
 * the body after the warm-up's last.
 */
export function vegetaTargets(url: string, files: readonly string[], start: number): string {
  const n = files.length;
  if (n === 0) throw new Error('vegeta: no bodies to send');
  const first = ((start % n) + n) % n;
  return Array.from({ length: n }, (_, k) => {
    const file = resolve(files[(first + k) % n]);
    // vegeta reads the `@file` line trimmed, up to the end of the line.
    if (/[\r\n]/.test(file) || file !== file.trim()) throw new Error(`vegeta cannot name the body file ${JSON.stringify(file)} in a target file`);
    return `POST ${url}\nContent-Type: application/json\n@${file}\n`;
  }).join('\n');
}

/** `-rate` as vegeta reads it: an integer count per duration. */
function rateFlag(rate: number): string {
  return Number.isInteger(rate) ? `${rate}/1s` : `${Math.round(rate * 1000)}/1000s`;
}

/**
 * The attack's flags. HTTP/1.1 over keep-alive (what the other rows compare), at most
 * `connections` connections as the Node client has. Workers start at `connections` and are not
 * capped: when all are busy vegeta starts another rather than hold back the next request, so
 * the pacer never waits (a capped pool would delay requests and leave the delay out of their
 * latency); a request beyond `connections` in flight waits for a connection, and that wait is
 * in its latency. Response bodies are not kept (`-max-body=0`); the status is.
 */
export function vegetaAttackArgs(o: { targets: string; output: string; rate: number; connections: number; seconds: number }): string[] {
  return [
    'attack',
    '-format=http',
    `-targets=${o.targets}`,
    `-output=${o.output}`,
    `-rate=${rateFlag(o.rate)}`,
    `-duration=${o.seconds}s`,
    '-insecure',
    '-http2=false',
    '-keepalive=true',
    `-connections=${o.connections}`,
    `-max-connections=${o.connections}`,
    `-workers=${o.connections}`,
    // The Node client's timeout.
    '-timeout=10s',
    '-max-body=0',
  ];
}

/** One request of vegeta's results. */
export interface VegetaRow {
  /** When vegeta handed the request to a worker, ms since the epoch. */
  startMs: number;
  /** Until the whole answer was read. */
  latencyMs: number;
  /** 0 when no answer came. */
  code: number;
  error: string;
}

/** RFC 3339 with up to nanoseconds (Go's time.Time in JSON) to ms since the epoch, keeping the fraction Date.parse drops. */
export function rfc3339Ms(s: string): number {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(s);
  if (!m) return Number.NaN;
  return Date.parse(`${m[1]}${m[3]}`) + Number(`0.${m[2] ?? '0'}`) * 1000;
}

/** `vegeta encode -to=json` output: one object a line (latency in nanoseconds). */
export function parseVegetaJson(text: string): VegetaRow[] {
  const rows: VegetaRow[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const o: unknown = JSON.parse(lines[i]);
    const r = (typeof o === 'object' && o !== null ? o : {}) as Record<string, unknown>;
    const startMs = typeof r.timestamp === 'string' ? rfc3339Ms(r.timestamp) : Number.NaN;
    const { latency, code, error } = r;
    if (!Number.isFinite(startMs) || typeof latency !== 'number' || typeof code !== 'number' || (error !== undefined && typeof error !== 'string')) {
      throw new Error(`vegeta result line ${i + 1} is not a result: ${lines[i].slice(0, 200)}`);
    }
    rows.push({ startMs, latencyMs: latency / 1e6, code, error: error ?? '' });
  }
  return rows;
}

/**
 * A measured run's results as the report shows fixed-rate rows: percentiles over the requests
 * answered HTTP 200 (as the h2load rows), the others counted as non-200, and the achieved rate
 * from answers within the measured window only (from the first request on): an overloaded
 * server's backlog, answered after it, does not count as keeping up (its latencies do count).
 */
export function summarizeVegeta(
  rows: VegetaRow[],
  options: { rate: number; durationS: number },
): { result: Omit<FixedRateResult, 'serverCpu' | 'tool'>; late: number; problems: string[] } {
  const ok = rows.filter((r) => r.code === 200 && r.error === '');
  const windowEnd = rows.reduce((m, r) => Math.min(m, r.startMs), Infinity) + options.durationS * 1000;
  const inWindow = ok.filter((r) => r.startMs + r.latencyMs <= windowEnd).length;
  const problems = [...new Set(rows.filter((r) => r.code !== 200 || r.error !== '').map((r) => r.error || `HTTP ${r.code}`))].slice(0, 5);
  return {
    result: {
      targetRps: options.rate,
      achievedRps: inWindow / options.durationS,
      count: rows.length,
      non200: rows.length - ok.length,
      ...latencyFields(ok.map((r) => r.latencyMs)),
    },
    late: ok.length - inWindow,
    problems,
  };
}
