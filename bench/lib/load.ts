/**
 * @module bench/lib/load
 * The two measurements every server gets, with the same tools and settings:
 * - max throughput: wrk closed loop over keep-alive HTTPS (warm-up run, then the measured run),
 *   with the server's CPU share over the measured run (about 1.0 shows the server, not the
 *   generator, was the bottleneck);
 * - latency at a fixed rate: h2load `--h1 --rps` open loop, percentiles from its per-request
 *   log (microsecond resolution), the warm-up's requests dropped by start time.
 * The generator runs pinned to its own core (`taskset -c 1`) when possible. Without wrk or
 * h2load the Node client of test/support/load-client.ts stands in (in this process, unpinned).
 *
 * What is sent (`Bodies`): one body file, repeated (replica pods: the same pod every time), or a
 * list of body files sent in turn (every pod new: each request the next of N distinct pods,
 * cycling). wrk cycles them with a Lua script that formats every request once at start-up and
 * hands out the next on each call; h2load cannot vary its body, so the fixed rate for a list
 * (`listRate`) is vegeta (bench/lib/vegeta.ts) pinned like the other tools, or, without vegeta,
 * the Node open-loop client in a child process pinned the same way (`openLoopRate`,
 * bench/lib/open-loop-child.ts), for the anchor and ours alike; the result's `tool` says which.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuShare, procSample } from '../../test/support/proc-stats.js';
import { percentiles, runClosedLoop, runFixedRate, type LoadRequest } from '../../test/support/load-client.js';
import { pinned, REPO_ROOT } from '../../test/support/server-process.js';
import type { OpenLoopInput, OpenLoopOutput } from './open-loop-child.js';
import type { FixedRateResult, ThroughputResult } from './results.js';
import { latencyFields } from './stats.js';
import type { Tools } from './tools.js';
import { parseVegetaJson, summarizeVegeta, vegetaAttackArgs, vegetaTargets, type Vegeta, type VegetaRow } from './vegeta.js';

const GENERATOR_CPUS = '1';
export const WEBHOOK_PATH = '/inject?timeout=10s';

/** One body file repeated, or a list of body files sent in turn (see the module comment). */
export type Bodies = string | BodyList;

export interface BodyList {
  /** One body file per line, in the order they are sent (wrk's script reads it). */
  listFile: string;
  files: string[];
}

export function describeBodies(b: Bodies): string {
  return typeof b === 'string' ? 'one body, repeated' : `${b.files.length} bodies in turn`;
}

export interface Target {
  name: string;
  port: number;
  pid: number;
  /** Path of the POST (Pepr's differs). */
  path: string;
  /** https unless told (the tests point wrk at a plain HTTP recorder). */
  scheme?: 'http' | 'https';
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  const [c, a] = pinned(GENERATOR_CPUS, cmd, args);
  return new Promise((resolve, reject) => {
    const child = spawn(c, a, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** "3.29ms" / "812.00us" / "1.02s" to ms. */
function wrkDuration(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!m) return Number.NaN;
  const v = Number(m[1]);
  return m[2] === 'us' ? v / 1000 : m[2] === 'ms' ? v : m[2] === 's' ? v * 1000 : v * 60_000;
}

function parseWrk(out: string): Omit<ThroughputResult, 'serverCpu' | 'tool'> {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? Number.NaN);
  const p50 = /\s50%\s+(\S+)/.exec(out)?.[1];
  const p99 = /\s99%\s+(\S+)/.exec(out)?.[1];
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = sock ? sock.slice(1, 5).reduce((a, b) => a + Number(b), 0) : 0;
  return { rps, requests, p50Ms: p50 ? wrkDuration(p50) : Number.NaN, p99Ms: p99 ? wrkDuration(p99) : Number.NaN, errors: non2xx + socketErrors };
}

const WRK_SCRIPT = `-- POST the fixture named by BENCH_BODY to the webhook path named by BENCH_PATH.
local f = assert(io.open(os.getenv("BENCH_BODY"), "rb"))
wrk.body = f:read("*a")
f:close()
wrk.method = "POST"
wrk.path = os.getenv("BENCH_PATH")
wrk.headers["Content-Type"] = "application/json"
`;

/**
 * POST the body files listed in BENCH_BODIES (one path a line) in turn, to BENCH_PATH. Every
 * request is formatted once, in init (per thread; the bench runs wrk -t1, so one thread and one
 * sequence), and request() only hands out the next: a table lookup per request. A run starts
 * at body BENCH_START (0-based, default 0): the measured run goes on where its warm-up stopped.
 */
const WRK_CYCLE_SCRIPT = `-- POST the bodies listed in BENCH_BODIES in turn (pre-formatted once in init) to BENCH_PATH.
local requests = {}
local n = 0
local i = 0
function init(args)
  local path = os.getenv("BENCH_PATH")
  local headers = { ["Content-Type"] = "application/json" }
  for name in io.lines(os.getenv("BENCH_BODIES")) do
    if name ~= "" then
      local f = assert(io.open(name, "rb"))
      local body = f:read("*a")
      f:close()
      n = n + 1
      requests[n] = wrk.format("POST", path, headers, body)
    end
  end
  assert(n > 0, "no bodies listed in " .. os.getenv("BENCH_BODIES"))
  -- wrk asks for one request before the first it sends, and discards it: start one earlier.
  i = ((tonumber(os.getenv("BENCH_START") or "0") or 0) - 1) % n
end
function request()
  i = i % n + 1
  return requests[i]
end
`;

function reviewRequest(bodies: Buffer[], path: string): (i: number) => LoadRequest {
  return (i) => ({
    kind: 'valid',
    label: 'bench',
    path,
    headers: { 'Content-Type': 'application/json' },
    body: bodies[i % bodies.length],
    check: (status) => (status === 200 ? undefined : `HTTP ${status}`),
  });
}

function readBodies(b: Bodies): Buffer[] {
  return typeof b === 'string' ? [readFileSync(b)] : b.files.map((f) => readFileSync(f));
}

/** wrk's arguments and environment for `bodies` (the script is written into `workDir`). */
export function wrkSetup(target: Target, bodies: Bodies, workDir: string, connections: number): { args: string[]; env: NodeJS.ProcessEnv } {
  const cycle = typeof bodies !== 'string';
  const script = join(workDir, cycle ? 'post-cycle.lua' : 'post.lua');
  writeFileSync(script, cycle ? WRK_CYCLE_SCRIPT : WRK_SCRIPT);
  const env = { ...process.env, BENCH_PATH: target.path, ...(cycle ? { BENCH_BODIES: bodies.listFile } : { BENCH_BODY: bodies }) };
  const scheme = target.scheme ?? 'https';
  return { args: ['-t1', `-c${connections}`, '--latency', '-s', script, `${scheme}://127.0.0.1:${target.port}`], env };
}

export async function maxThroughput(
  tools: Tools,
  target: Target,
  bodies: Bodies,
  options: { connections: number; warmupS: number; durationS: number; workDir: string },
): Promise<ThroughputResult> {
  const what = typeof bodies === 'string' ? '' : `, ${bodies.files.length} bodies in turn`;
  if (tools.wrk) {
    const { args: common, env } = wrkSetup(target, bodies, options.workDir, options.connections);
    let start = 0;
    if (options.warmupS > 0) {
      const w = await run('wrk', [`-d${options.warmupS}s`, ...common], env);
      // The measured run goes on from the body after the warm-up's last (see WRK_CYCLE_SCRIPT).
      if (w.code === 0) start = parseWrk(w.stdout).requests;
    }
    const before = procSample(target.pid);
    const r = await run('wrk', [`-d${options.durationS}s`, ...common], { ...env, BENCH_START: String(start) });
    const after = procSample(target.pid);
    if (r.code !== 0) throw new Error(`wrk failed (${r.code}): ${r.stderr || r.stdout}`);
    return { ...parseWrk(r.stdout), serverCpu: cpuShare(before, after), tool: `wrk -t1${what}` };
  }
  const body = reviewRequest(readBodies(bodies), target.path);
  let offset = 0;
  const next = (i: number): LoadRequest => body(i + offset);
  if (options.warmupS > 0)
    offset = (await runClosedLoop({ port: target.port, connections: options.connections, durationMs: options.warmupS * 1000, next })).sent;
  const before = procSample(target.pid);
  const s = await runClosedLoop({ port: target.port, connections: options.connections, durationMs: options.durationS * 1000, next });
  const after = procSample(target.pid);
  const p = percentiles(s.validLatencies);
  return {
    rps: s.rate,
    p50Ms: p.p50,
    p99Ms: p.p99,
    requests: s.completed,
    errors: s.byKind.valid.failed,
    serverCpu: cpuShare(before, after),
    tool: `node closed loop${what}`,
  };
}

/** h2load's log: start (µs since epoch), status, duration (µs), one request per line. */
function parseH2loadLog(text: string, warmupS: number): { status: number; ms: number; start: number }[] {
  const rows = text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [start, status, us] = l.split('\t').map(Number);
      return { start, status, ms: us / 1000 };
    });
  if (rows.length === 0) return rows;
  const first = Math.min(...rows.map((r) => r.start));
  return rows.filter((r) => r.start >= first + warmupS * 1e6);
}

export async function fixedRate(
  tools: Tools,
  target: Target,
  bodyFile: string,
  options: { rate: number; connections: number; warmupS: number; durationS: number; workDir: string },
): Promise<FixedRateResult> {
  if (tools.h2load) {
    const log = join(options.workDir, `h2load-${target.name}.log`);
    rmSync(log, { force: true });
    const perClient = options.rate / options.connections;
    const args = h2loadArgs(options.connections, perClient, options.warmupS + options.durationS, log, bodyFile, target);
    let before: ReturnType<typeof procSample> | undefined;
    const timer = setTimeout(() => (before = procSample(target.pid)), options.warmupS * 1000);
    const r = await run('h2load', args);
    const after = procSample(target.pid);
    clearTimeout(timer);
    if (r.code !== 0) throw new Error(`h2load failed (${r.code}): ${r.stderr || r.stdout}`);
    return fromH2loadLog(readFileSync(log, 'utf8'), options, cpuShare(before, after), 'h2load --h1 --rps');
  }
  const next = reviewRequest(readBodies(bodyFile), target.path);
  if (options.warmupS > 0)
    await runFixedRate({ port: target.port, connections: options.connections, durationMs: options.warmupS * 1000, rate: options.rate, next });
  const before = procSample(target.pid);
  const s = await runFixedRate({ port: target.port, connections: options.connections, durationMs: options.durationS * 1000, rate: options.rate, next });
  const after = procSample(target.pid);
  return {
    targetRps: options.rate,
    achievedRps: s.rate,
    count: s.completed,
    non200: s.byKind.valid.failed,
    ...latencyFields(s.validLatencies),
    serverCpu: cpuShare(before, after),
    tool: 'node open loop',
  };
}

const OPEN_LOOP_CHILD = join(dirname(fileURLToPath(import.meta.url)), 'open-loop-child.ts');

/**
 * Latency at a fixed rate for a list of bodies, each request the next (h2load sends one body
 * only): the Node open-loop client in a child process pinned to the generator's core
 * (open-loop-child.ts), `connections` keep-alive connections, a request due every 1 / rate
 * (sent from a 1 ms timer, so arrivals are spread out, about one per millisecond at 1,000/s),
 * latency from the scheduled time. The warm-up's requests are not counted; the server's CPU share
 * covers the measured run. Use it for every server of a comparison (the anchor too). `listRate`
 * falls back to it when vegeta is not installed.
 */
export async function openLoopRate(
  target: Target,
  bodies: BodyList,
  options: { rate: number; connections: number; warmupS: number; durationS: number },
): Promise<FixedRateResult> {
  const input: OpenLoopInput = {
    port: target.port,
    path: target.path,
    listFile: bodies.listFile,
    rate: options.rate,
    connections: options.connections,
    warmupS: options.warmupS,
    durationS: options.durationS,
  };
  const [cmd, args] = pinned(GENERATOR_CPUS, process.execPath, ['--import', 'tsx', OPEN_LOOP_CHILD, JSON.stringify(input)]);
  let before: ReturnType<typeof procSample> | undefined;
  let after: ReturnType<typeof procSample> | undefined;
  const { code, stdout, stderr } = await new Promise<Run>((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      const had = out;
      out += d.toString();
      if (!had.includes('measuring\n') && out.includes('measuring\n')) before = procSample(target.pid);
      if (!had.includes('measured\n') && out.includes('measured\n')) after = procSample(target.pid);
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', reject);
    child.once('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
  });
  const line = stdout.trim().split('\n').pop() ?? '';
  if (code !== 0 || !line.startsWith('{')) throw new Error(`open-loop generator failed (${code}): ${stderr || stdout}`);
  const o = JSON.parse(line) as OpenLoopOutput;
  if (o.problems.length > 0) process.stderr.write(`open loop to ${target.name}: ${o.failed} failed, e.g. ${o.problems.join('; ')}\n`);
  // A few answers are always in flight at the end; more than 10 ms' worth is a backlog.
  if (o.late > Math.max(options.connections, options.rate / 100))
    process.stderr.write(`open loop to ${target.name}: ${o.late} answers came after the measured run ended (a backlog: the server fell behind)\n`);
  return {
    targetRps: options.rate,
    achievedRps: o.achievedRps,
    count: o.completed,
    non200: o.failed,
    p50Ms: o.p50,
    p90Ms: o.p90,
    p99Ms: o.p99,
    p999Ms: o['p99.9'],
    maxMs: o.max,
    serverCpu: cpuShare(before, after),
    tool: `node open loop (child process), ${o.bodies} bodies in turn`,
  };
}

export interface ListRateOptions {
  rate: number;
  connections: number;
  warmupS: number;
  durationS: number;
  workDir: string;
}

/**
 * Latency at a fixed rate for a list of bodies, each request the next: vegeta when it is
 * installed, else the Node open-loop child (its own latency floor is higher: see
 * bench/lib/vegeta.ts). The result's `tool` says which ran. The same client for every server
 * of a comparison (the tools are found once per run).
 */
export function listRate(tools: Pick<Tools, 'vegeta'>, target: Target, bodies: BodyList, options: ListRateOptions): Promise<FixedRateResult> {
  return tools.vegeta !== undefined ? vegetaRate(tools.vegeta, target, bodies, options) : openLoopRate(target, bodies, options);
}

/** The fixed-rate client `listRate` uses, for log lines. */
export function listRateClient(tools: Pick<Tools, 'vegeta'>): string {
  return tools.vegeta !== undefined ? 'vegeta open loop' : 'Node open loop';
}

/**
 * `listRate` with vegeta, pinned to the generator's core: a warm-up attack, then the measured
 * one, its target file rotated to start at the body after the warm-up's last (one request per
 * target handed out, so the warm-up's request count is where it stopped). Each attack opens its
 * own connections, as the Node child's runs do. Latency counts from when vegeta's pacer handed
 * the request to a worker (on schedule unless vegeta itself is starved: it never waits for a
 * free worker); the server's CPU share covers the measured attack.
 */
export async function vegetaRate(vegeta: Vegeta, target: Target, bodies: BodyList, options: ListRateOptions): Promise<FixedRateResult> {
  const url = `${target.scheme ?? 'https'}://127.0.0.1:${target.port}${target.path}`;
  const base = join(options.workDir, `vegeta-${target.name}`);
  const attack = async (seconds: number, start: number, what: string): Promise<void> => {
    writeFileSync(`${base}.targets`, vegetaTargets(url, bodies.files, start));
    rmSync(`${base}.bin`, { force: true });
    const r = await run(
      vegeta.path,
      vegetaAttackArgs({ targets: `${base}.targets`, output: `${base}.bin`, rate: options.rate, connections: options.connections, seconds }),
    );
    if (r.code !== 0) throw new Error(`vegeta attack (${what}) failed (${r.code}): ${r.stderr || r.stdout}`);
  };
  const results = async (): Promise<VegetaRow[]> => {
    const r = await run(vegeta.path, ['encode', '-to=json', `-output=${base}.jsonl`, `${base}.bin`]);
    if (r.code !== 0) throw new Error(`vegeta encode failed (${r.code}): ${r.stderr || r.stdout}`);
    return parseVegetaJson(readFileSync(`${base}.jsonl`, 'utf8'));
  };
  let start = 0;
  if (options.warmupS > 0) {
    await attack(options.warmupS, 0, 'warm-up');
    start = (await results()).length;
  }
  const before = procSample(target.pid);
  await attack(options.durationS, start, 'measured run');
  const after = procSample(target.pid);
  const { result, late, problems } = summarizeVegeta(await results(), options);
  if (problems.length > 0) process.stderr.write(`vegeta to ${target.name}: ${result.non200} failed, e.g. ${problems.join('; ')}\n`);
  // A few answers are always in flight at the end; more than 10 ms' worth is a backlog.
  if (late > Math.max(options.connections, options.rate / 100))
    process.stderr.write(`vegeta to ${target.name}: ${late} answers came after the measured run ended (a backlog: the server fell behind)\n`);
  return { ...result, serverCpu: cpuShare(before, after), tool: `${vegeta.version} open loop, ${bodies.files.length} bodies in turn` };
}

/**
 * Latency at a fixed rate with arrivals spread out: `connections` separate h2load processes,
 * one connection each at rate / connections, started 1 / rate apart, so their timers do not fire
 * together. (One h2load with 10 clients fires all 10 at once: bursts of 10 every 10 ms at
 * 1,000/s, and its percentiles include queueing behind the burst.) Same log, same warm-up cut.
 */
export async function pacedRate(
  tools: Tools,
  target: Target,
  bodyFile: string,
  options: { rate: number; connections: number; warmupS: number; durationS: number; workDir: string },
): Promise<FixedRateResult | undefined> {
  if (!tools.h2load) return undefined;
  const n = options.connections;
  const logs = Array.from({ length: n }, (_, i) => join(options.workDir, `h2load-paced-${target.name}-${i}.log`));
  for (const l of logs) rmSync(l, { force: true });
  const perClient = options.rate / n;
  let before: ReturnType<typeof procSample> | undefined;
  const timer = setTimeout(() => (before = procSample(target.pid)), options.warmupS * 1000);
  const runs = logs.map((log, i) =>
    new Promise<void>((resolve) => setTimeout(resolve, (i * 1000) / options.rate)).then(() =>
      run('h2load', h2loadArgs(1, perClient, options.warmupS + options.durationS, log, bodyFile, target)),
    ),
  );
  const results = await Promise.all(runs);
  const after = procSample(target.pid);
  clearTimeout(timer);
  const failed = results.find((r) => r.code !== 0);
  if (failed) throw new Error(`h2load failed (${failed.code}): ${failed.stderr || failed.stdout}`);
  return fromH2loadLog(logs.map((l) => readFileSync(l, 'utf8')).join('\n'), options, cpuShare(before, after), `${n} x h2load -c1, staggered`);
}

/** h2load over HTTP/1.1: `connections` clients at `perClient` requests/s each, POSTing the body. */
function h2loadArgs(connections: number, perClient: number, seconds: number, log: string, bodyFile: string, target: Target): string[] {
  return [
    '--h1',
    `-c${connections}`,
    '-t1',
    `--rps=${perClient}`,
    '-D',
    String(seconds),
    `--log-file=${log}`,
    '-H',
    'Content-Type: application/json',
    '-d',
    bodyFile,
    `https://127.0.0.1:${target.port}${target.path}`,
  ];
}

/** A fixed-rate result from h2load's per-request log, warm-up cut off. */
function fromH2loadLog(
  logText: string,
  options: { rate: number; warmupS: number; durationS: number },
  serverCpu: number | undefined,
  tool: string,
): FixedRateResult {
  const rows = parseH2loadLog(logText, options.warmupS);
  const ok = rows.filter((x) => x.status === 200).map((x) => x.ms);
  return {
    targetRps: options.rate,
    achievedRps: rows.length / options.durationS,
    count: rows.length,
    non200: rows.length - ok.length,
    ...latencyFields(ok),
    serverCpu,
    tool,
  };
}
