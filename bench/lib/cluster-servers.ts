/**
 * @module bench/lib/cluster-servers
 * The webhook servers of the pod-create benchmark, each on its own loopback port that stays the
 * same across restarts (its MutatingWebhookConfiguration points at it): the Go floor
 * (e2e/build/floor.sh), Istio's handler (`istio-injector-server`, e2e/build/istio.sh) and our
 * `serve` as it ships, all with one certificate for 127.0.0.1. A server is ready when its
 * `/readyz` answers 200 to a GET, as the kubelet's readiness probe sees it: nothing is POSTed
 * before the apiserver's first call, so a fresh start meets its first pods cold (or as warm as
 * the server made itself).
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { builtCli, REPO_ROOT, spawnServer, type SpawnedServer } from '../../test/support/server-process.js';

/** The certificate every server presents (issued for 127.0.0.1 by `manifests --certs-dir`). */
export interface ClusterCerts {
  dir: string;
  cert: string;
  key: string;
  ca: string;
}

export function certsIn(dir: string): ClusterCerts {
  return { dir, cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key'), ca: join(dir, 'ca.crt') };
}

export interface HookServerSpec {
  /** Also the log file's name. */
  name: string;
  port: number;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Serves our metrics (`/metrics` on its TLS port) and logs a line per admission. */
  ours: boolean;
}

export interface HookServer {
  readonly spec: HookServerSpec;
  /** The log of the latest start (each start writes its own). */
  logFile(): string;
  /** The running process (undefined while stopped). */
  process(): SpawnedServer | undefined;
  /** Start, and resolve once `/readyz` answers 200: ms from spawn to ready. */
  start(): Promise<number>;
  stop(): Promise<void>;
  /** Bytes written to the log so far (an offset: what a block logged is what follows it). */
  logSize(): number;
  /** GET a path over TLS (verified against the CA): status and body. */
  get(path: string): Promise<{ status: number; body: string }>;
}

export function logDir(): string {
  const dir = join(REPO_ROOT, '.bench-tmp', 'cluster');
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function hookServer(spec: HookServerSpec, certs: ClusterCerts): HookServer {
  const ca = readFileSync(certs.ca, 'utf8');
  let running: SpawnedServer | undefined;
  let starts = 0;
  let file = join(logDir(), `${spec.name}.log`);
  const get = (path: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve) => {
      const r = request({ host: '127.0.0.1', port: spec.port, path, ca, agent: false, timeout: 5000 }, (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (body += c))
          .on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      r.on('timeout', () => r.destroy());
      r.on('error', () => resolve({ status: 0, body: '' }));
      r.end();
    });
  return {
    spec,
    logFile: () => file,
    process: () => running,
    async start() {
      // One log per start, so a restart's lines are its own.
      file = join(logDir(), `${spec.name}.${++starts}.log`);
      const t0 = performance.now();
      const s = spawnServer({ command: spec.command, args: spec.args, env: spec.env, cwd: REPO_ROOT, outputFile: file });
      s.port = spec.port;
      running = s;
      let exited = false;
      void s.exited.then(() => (exited = true));
      const deadline = t0 + 60_000;
      for (;;) {
        if ((await get('/readyz')).status === 200) return performance.now() - t0;
        if (exited) throw new Error(`${spec.name} exited before it was ready:\n${s.output()}`);
        if (performance.now() > deadline) throw new Error(`${spec.name} not ready within 60 s:\n${s.output()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      const s = running;
      running = undefined;
      if (s !== undefined) await s.stop(10_000);
    },
    logSize() {
      try {
        return statSync(file).size;
      } catch {
        return 0;
      }
    },
    get,
  };
}

/** Our `serve` on 127.0.0.1:port with the benchmark's certificate, config and flags. */
export function oursSpec(
  name: string,
  port: number,
  certs: ClusterCerts,
  configDir: string,
  flags: readonly string[],
  cli: string = builtCli(),
  nodeFlags: readonly string[] = [],
): HookServerSpec {
  return {
    name,
    port,
    command: process.execPath,
    args: [...nodeFlags, cli, 'serve', '--tls-dir', certs.dir, '--port', String(port), '--address', '127.0.0.1', '--config', configDir, ...flags],
    ours: true,
  };
}

export function floorSpec(name: string, port: number, certs: ClusterCerts, binary: string, extra: readonly string[] = []): HookServerSpec {
  return { name, port, command: binary, args: ['-port', String(port), '-cert', certs.cert, '-key', certs.key, ...extra], ours: false };
}

export interface IstioFiles {
  injectorServer: string;
  injectConfig: string;
  values: string;
  mesh: string;
}

export function istioSpec(name: string, port: number, certs: ClusterCerts, peer: IstioFiles): HookServerSpec {
  return {
    name,
    port,
    command: peer.injectorServer,
    args: ['-port', String(port), '-cert', certs.cert, '-key', certs.key, '-inject-config', peer.injectConfig, '-values', peer.values, '-mesh', peer.mesh],
    // Native sidecars on, as our config has them (istiod's "auto" on Kubernetes >= 1.33).
    env: { ...process.env, ENABLE_NATIVE_SIDECARS: 'true' },
    ours: false,
  };
}
