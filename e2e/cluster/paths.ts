/**
 * @module e2e/cluster/paths
 * Where the local control plane lives: binaries in the versioned build cache (built by
 * `e2e/build/build.sh`), state (PKI, etcd data, logs, kubeconfig) in one directory outside the
 * repository so that every clone and worktree on this machine shares one cluster.
 */
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export function cacheRoot(): string {
  const base = process.env.SIDECAR_INJECTOR_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'sidecar-injector');
  return join(base, 'e2e');
}

/** The cluster's state directory (override with SI_E2E_STATE for a second, private cluster). */
export function stateDir(): string {
  return process.env.SI_E2E_STATE ?? join(cacheRoot(), 'cluster');
}

/**
 * Runs a build script of e2e/build (it builds what is missing: seconds when the cache is warm)
 * and returns the directory it prints last. Its progress goes to our stderr.
 */
function runBuild(script: string, what: string): string {
  const path = join(repoRoot, 'e2e/build', script);
  let out: string;
  try {
    out = execFileSync('bash', [path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 });
  } catch (err) {
    throw new Error(`building ${what} failed (${path}); see the messages above. The build needs Go 1.26+ and the Go module proxy.`, { cause: err });
  }
  const lines = out.trim().split('\n');
  return lines[lines.length - 1]!;
}

/** The control-plane binaries (build.sh): their bin directory. */
export function ensureBinaries(): string {
  return runBuild('build.sh', 'the control-plane binaries');
}

/** Prometheus, promtool and prometheus-operator's CRDs (prometheus.sh): their cache directory (bin/, crds/). */
export function ensurePrometheus(): string {
  return runBuild('prometheus.sh', 'Prometheus');
}
