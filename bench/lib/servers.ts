/**
 * @module bench/lib/servers
 * The servers under test, started the same way: the anchor (bench/anchor.js) and ours (the
 * built `sidecar-injector serve`), both with the same EC P-256 certificate from files, pinned to
 * core 0, each ready at its first HTTP 200 on a POST. Also the cold-start and idle-RSS probe.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { devCertificate } from '../../src/certs/index.js';
import { procSample } from '../../test/support/proc-stats.js';
import { builtCli, freePort, REPO_ROOT, spawnServer, waitReady, type SpawnedServer } from '../../test/support/server-process.js';
import { WEBHOOK_PATH } from './load.js';

export const SERVER_CPUS = '0';
const ANCHOR = join(dirname(fileURLToPath(import.meta.url)), '..', 'anchor.js');

export interface CertFiles {
  cert: string;
  key: string;
  ca: string;
}

export async function writeCertificate(dir: string): Promise<CertFiles> {
  mkdirSync(dir, { recursive: true });
  const dev = await devCertificate({ hosts: ['localhost'] });
  const files = { cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key'), ca: join(dir, 'ca.crt') };
  writeFileSync(files.cert, dev.certPem);
  writeFileSync(files.key, dev.keyPem);
  writeFileSync(files.ca, dev.caPem);
  return files;
}

type ServerKind = 'anchor' | 'ours';

export interface ServerSpec {
  kind: ServerKind;
  certs: CertFiles;
  /** Extra flags for ours (e.g. --log-level). */
  flags?: string[];
  /** Flags for node itself (e.g. --cpu-prof). */
  nodeFlags?: string[];
}

function commandFor(spec: ServerSpec, port: number): { command: string; args: string[] } {
  const node = spec.nodeFlags ?? [];
  if (spec.kind === 'anchor')
    return { command: process.execPath, args: [...node, ANCHOR, '--port', String(port), '--cert', spec.certs.cert, '--key', spec.certs.key] };
  return {
    command: process.execPath,
    args: [
      ...node,
      builtCli(),
      'serve',
      '--port',
      String(port),
      '--address',
      '127.0.0.1',
      '--tls-cert',
      spec.certs.cert,
      '--tls-key',
      spec.certs.key,
      ...(spec.flags ?? []),
    ],
  };
}

/** Where a benchmarked server's stdout and stderr go (git-ignored). */
export function serverLogFile(port: number): string {
  const dir = join(REPO_ROOT, '.bench-tmp', 'server-logs');
  mkdirSync(dir, { recursive: true });
  return join(dir, `${port}.log`);
}

/** Spawn pinned to core 0, wait for the first 200 to `body`; `readyMs` is the cold start. */
export async function startServer(spec: ServerSpec, body: Buffer, cpus: string | undefined = SERVER_CPUS): Promise<SpawnedServer> {
  return startCommand((port) => commandFor(spec, port), body, cpus);
}

/** Any server command (given its port), started and checked the same way as ours and the anchor. */
export async function startCommand(
  command: (port: number) => { command: string; args: string[]; env?: NodeJS.ProcessEnv },
  body: Buffer,
  cpus: string | undefined = SERVER_CPUS,
): Promise<SpawnedServer> {
  const port = await freePort();
  const { command: cmd, args, env } = command(port);
  const spawnedAt = performance.now();
  // Output to a file, as a container runtime takes it: a pipe to this (unpinned, often
  // descheduled) process filled up and stalled the server's per-request log writes.
  const server = spawnServer({ command: cmd, args, cpus, cwd: REPO_ROOT, env, outputFile: serverLogFile(port) });
  server.port = port;
  try {
    await waitReady(server, body, { spawnedAt, path: WEBHOOK_PATH, intervalMs: 2 });
  } catch (err) {
    await server.stop(1000);
    throw err;
  }
  return server;
}

export interface ColdStart {
  /** Spawn to first HTTP 200 on a POST, ms. */
  readyMs: number;
  /** RSS one second after that first answer, bytes. */
  idleRss: number | undefined;
}

/** One cold start: spawn, first 200, RSS after 1 s idle, stop. */
export async function coldStart(spec: ServerSpec, body: Buffer): Promise<ColdStart> {
  const server = await startServer(spec, body);
  try {
    await new Promise((r) => setTimeout(r, 1000));
    return { readyMs: server.readyMs ?? Number.NaN, idleRss: procSample(server.pid)?.rssBytes };
  } finally {
    await server.stop();
  }
}
