/**
 * @module bench/lib/pepr
 * Pepr 1.1.4 for the side-by-side run, without a cluster (performance.md section 3): installed
 * with npm into a folder under the system temp dir (never a dependency of this project; reused
 * when already there), a fake API server for its PeprStore, a kubeconfig pointing at it, and a
 * module doing the same F1 mutation as our injector. `startPepr` resolves when
 * `POST /mutate/bench` answers 200 (Pepr binds it only after its store is ready).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnServer, waitReady, type SpawnedServer } from '../../test/support/server-process.js';
import { podF1 } from '../fixtures.js';
import { serverLogFile, type CertFiles } from './servers.js';

export const PEPR_VERSION = '1.1.4';
export const PEPR_PATH = '/mutate/bench';
const SOURCES = join(dirname(fileURLToPath(import.meta.url)), '..', 'pepr');

export interface PeprInstall {
  dir: string;
  /** Seconds npm install took (undefined when an earlier install was reused). */
  installSeconds?: number;
}

/** `npm install pepr@1.1.4` into `dir` (default: $TMPDIR/sidecar-injector-bench-pepr-1.1.4). */
export function installPepr(dir = join(tmpdir(), `sidecar-injector-bench-pepr-${PEPR_VERSION}`)): PeprInstall {
  const pkg = join(dir, 'node_modules', 'pepr', 'package.json');
  if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version === PEPR_VERSION) return { dir };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'sidecar-injector-bench-pepr', private: true }, null, 2));
  const s = performance.now();
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', `pepr@${PEPR_VERSION}`], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0 || !existsSync(pkg)) throw new Error(`npm install pepr@${PEPR_VERSION} failed in ${dir}:\n${r.stdout}\n${r.stderr}`);
  return { dir, installSeconds: (performance.now() - s) / 1000 };
}

/** What our injector adds to F1, as the Pepr module's input: the same containers, volumes and annotations. */
async function f1Mutation(): Promise<Record<string, unknown>> {
  const { injectPod } = await import('../../src/inject/index.js');
  const { defaultConfig } = await import('../../src/profiles/index.js');
  const pod = podF1();
  const r = injectPod(pod, { namespace: 'shop', mode: 'webhook' }, defaultConfig());
  if (r.kind !== 'injected') throw new Error('F1 is not injected by the built-in config');
  type Named = { name: string };
  const spec = r.pod.spec as unknown as { initContainers?: Named[]; containers: Named[]; volumes?: Named[] };
  const pick = (list: Named[] | undefined, names: string[] | null): Named[] => (list ?? []).filter((x) => (names ?? []).includes(x.name));
  const before = ((pod.metadata as Record<string, unknown>).annotations ?? {}) as Record<string, string>;
  const after = ((r.pod.metadata as unknown as Record<string, unknown>).annotations ?? {}) as Record<string, string>;
  const annotations = Object.fromEntries(Object.entries(after).filter(([k, v]) => before[k] !== v));
  return {
    initContainers: pick(spec.initContainers, r.status.initContainers),
    containers: pick(spec.containers, r.status.containers),
    volumes: pick(spec.volumes, r.status.volumes),
    annotations,
  };
}

export interface PeprProcesses {
  apiserver: SpawnedServer;
  pepr: SpawnedServer;
  stop(): Promise<void>;
}

/** Fake apiserver + the module, pinned like ours; resolves at the first 200 (readyMs = cold start). */
export async function startPepr(install: PeprInstall, certs: CertFiles, body: Buffer, cpus: string | undefined): Promise<PeprProcesses> {
  const { dir } = install;
  for (const f of ['fake-apiserver.cjs', 'module.cjs']) copyFileSync(join(SOURCES, f), join(dir, f));
  writeFileSync(join(dir, 'mutation.json'), JSON.stringify(await f1Mutation()));
  const apiPort = await freePort();
  writeFileSync(
    join(dir, 'kubeconfig.yaml'),
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: fake',
      '  cluster:',
      `    server: http://127.0.0.1:${apiPort}`,
      '    insecure-skip-tls-verify: true',
      'users:',
      '- name: bench',
      '  user:',
      '    token: bench',
      'contexts:',
      '- name: fake',
      '  context: {cluster: fake, user: bench}',
      'current-context: fake',
      '',
    ].join('\n'),
  );
  const apiserver = spawnServer({ command: process.execPath, args: [join(dir, 'fake-apiserver.cjs'), String(apiPort), join(dir, 'apiserver.log')], cwd: dir });
  apiserver.port = apiPort;
  await new Promise((r) => setTimeout(r, 300));
  const port = await freePort();
  const spawnedAt = performance.now();
  const pepr = spawnServer({
    command: process.execPath,
    args: [join(dir, 'module.cjs')],
    cwd: dir,
    cpus,
    outputFile: serverLogFile(port),
    env: {
      ...process.env,
      KUBECONFIG: join(dir, 'kubeconfig.yaml'),
      PEPR_API_PATH: 'bench',
      SSL_KEY_PATH: certs.key,
      SSL_CERT_PATH: certs.cert,
      BENCH_MUTATION: join(dir, 'mutation.json'),
      PORT: String(port),
    },
  });
  pepr.port = port;
  const stop = async (): Promise<void> => {
    await pepr.stop(2000);
    await apiserver.stop(2000);
  };
  try {
    await waitReady(pepr, body, { spawnedAt, path: PEPR_PATH, timeoutMs: 60_000, intervalMs: 5 });
  } catch (err) {
    await stop();
    throw err;
  }
  return { apiserver, pepr, stop };
}
