/**
 * @module test/support/server-process
 * Run a webhook server as a child process, the way it runs in production (the benchmarks and
 * the soak, reload-storm and slowloris scripts measure the built `dist/`, not tsx): optionally
 * pinned to CPU cores with `taskset`, ready when a POST of a review gets HTTP 200, stopped with
 * SIGTERM (SIGKILL after a grace period). Output is kept (the tail) for error messages.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:https';

export interface SpawnedServer {
  readonly child: ChildProcess;
  readonly pid: number;
  port: number;
  /** ms from spawn to the first HTTP 200 on a POST (set by `waitReady`). */
  readyMs?: number;
  /** Last lines of stdout and stderr. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  stop(graceMs?: number): Promise<number | string>;
}

export interface SpawnOptions {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** `taskset -c <cpus>` when taskset exists (e.g. "0"). */
  cpus?: string;
  /** Keep this many characters of output. */
  keep?: number;
  /** Send the output here as well (e.g. to a log file stream). */
  tee?: (chunk: string) => void;
  /**
   * Write stdout and stderr straight to this file instead of a pipe to this process (`output()`
   * reads its tail). For load tests: a server logging a line per request must not be slowed by a
   * reader that a busy machine deschedules (a full pipe blocks Node's synchronous stderr writes).
   */
  outputFile?: string;
}

let tasksetChecked: boolean | undefined;

export function hasTaskset(): boolean {
  tasksetChecked ??= spawnSync('taskset', ['-c', '0', 'true']).status === 0;
  return tasksetChecked;
}

/** The command line with a `taskset -c` prefix when pinning is asked for and possible. */
export function pinned(cpus: string | undefined, command: string, args: string[]): [string, string[]] {
  if (cpus === undefined || !hasTaskset()) return [command, args];
  return ['taskset', ['-c', cpus, command, ...args]];
}

export function spawnServer(options: SpawnOptions): SpawnedServer {
  const [cmd, args] = pinned(options.cpus, options.command, options.args);
  const keep = options.keep ?? 8000;
  const fd = options.outputFile !== undefined ? openSync(options.outputFile, 'w') : undefined;
  const child = spawn(cmd, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', fd ?? 'pipe', fd ?? 'pipe'] });
  if (fd !== undefined) closeSync(fd);
  let out = '';
  const collect = (chunk: Buffer): void => {
    const text = chunk.toString('utf8');
    out = (out + text).slice(-keep);
    options.tee?.(text);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  // Never leave a server behind when the script dies of an uncaught error.
  const orphanGuard = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', orphanGuard);
  child.once('exit', () => process.removeListener('exit', orphanGuard));
  const server: SpawnedServer = {
    child,
    pid: child.pid ?? -1,
    port: 0,
    output: () => (options.outputFile !== undefined ? readFileSync(options.outputFile, 'utf8').slice(-keep) : out),
    exited,
    async stop(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  return server;
}

/** A port that was free a moment ago, outside the ephemeral range (10000-29999). */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * 20_000);
    const ok = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (ok) return port;
  }
  throw new Error('no free port found in 10000-29999');
}

/** POST `body` to https://127.0.0.1:port/path once; resolves with the status (0 on a connection error). */
export function postOnce(port: number, body: Buffer | string, path = '/inject', agent?: Agent): Promise<number> {
  return new Promise((resolve) => {
    const r = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        agent: agent ?? false,
        rejectUnauthorized: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    r.setTimeout(5000, () => r.destroy());
    r.on('error', () => resolve(0));
    r.end(body);
  });
}

/**
 * Poll with a POST every `intervalMs` until HTTP 200; sets `readyMs` (from `spawnedAt`).
 * Throws with the server's output when it exits or `timeoutMs` passes.
 */
export async function waitReady(
  server: SpawnedServer,
  body: Buffer | string,
  options: { spawnedAt: number; path?: string; timeoutMs?: number; intervalMs?: number },
): Promise<number> {
  const deadline = options.spawnedAt + (options.timeoutMs ?? 30_000);
  let exited = false;
  void server.exited.then(() => (exited = true));
  for (;;) {
    if (server.port !== 0) {
      const status = await postOnce(server.port, body, options.path);
      if (status === 200) {
        server.readyMs = performance.now() - options.spawnedAt;
        return server.readyMs;
      }
    }
    if (exited) throw new Error(`server exited before answering:\n${server.output()}`);
    if (performance.now() > deadline) throw new Error(`server did not answer 200 within ${options.timeoutMs ?? 30_000} ms:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 5));
  }
}

/** Repository root (this file is test/support/server-process.ts). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The built CLI as it ships: package.json's `bin` (the bundle) when built, else
 * `dist/cli/main.js`; throws with what to do when neither exists.
 */
export function builtCli(): string {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin ?? {})[0];
  const candidates = [...(bin !== undefined ? [join(REPO_ROOT, bin)] : []), join(REPO_ROOT, 'dist', 'cli', 'main.js')];
  const found = candidates.find((c) => existsSync(c));
  if (found === undefined) throw new Error(`${candidates.join(' and ')} missing: run \`npm run build\` first (the scripts measure the built server)`);
  return found;
}

/** Build the project (`npm run build`); throws with the compiler output when it fails to emit. */
export function buildProject(): void {
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: REPO_ROOT, encoding: 'utf8' });
  // tsc emits even with type errors in files still being written by others; only a missing
  // output is fatal here.
  try {
    builtCli();
  } catch {
    throw new Error(`npm run build produced no CLI:\n${r.stdout}\n${r.stderr}`);
  }
}

export interface ServeProcessOptions {
  /** Extra `serve` flags (--config, --tls-cert, ...). */
  flags?: string[];
  cpus?: string;
  /** Run the TypeScript sources with tsx instead of dist (tests; never for measurements). */
  fromSource?: boolean;
  /** A review that gets 200 (used to detect readiness). */
  readyBody: Buffer | string;
  port?: number;
  env?: NodeJS.ProcessEnv;
  tee?: (chunk: string) => void;
}

/** Start `sidecar-injector serve` and wait for its first 200. */
export async function startServeProcess(options: ServeProcessOptions): Promise<SpawnedServer> {
  const port = options.port ?? (await freePort());
  const entry = options.fromSource ? ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'main.ts')] : [builtCli()];
  const spawnedAt = performance.now();
  const server = spawnServer({
    command: process.execPath,
    args: [...entry, 'serve', '--port', String(port), '--address', '127.0.0.1', ...(options.flags ?? [])],
    cwd: REPO_ROOT,
    cpus: options.cpus,
    env: options.env,
    tee: options.tee,
  });
  server.port = port;
  try {
    await waitReady(server, options.readyBody, { spawnedAt, timeoutMs: options.fromSource ? 60_000 : 30_000 });
  } catch (err) {
    await server.stop(1000);
    throw err;
  }
  return server;
}
