/**
 * @module e2e/lib/kube
 * Talking to the e2e control plane the way a user does: the real `kubectl` (v1.36, from the
 * build cache, first on PATH when `npm run e2e` runs the scenarios) with the admin kubeconfig
 * from `KUBECONFIG`, and our own CLI as it ships (`SI_E2E_CLI`, the built bundle).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../cluster/paths.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string;
  /** Resolve with a non-zero code instead of throwing. */
  allowFail?: boolean;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    // A child that exits (or never started) before reading its input closes the pipe: the write
    // fails with EPIPE. Its exit code and stderr, or the spawn error above, say why; EPIPE would
    // hide that (the CI run of 2026-11-28 failed on a bare "write EPIPE").
    child.stdin.on('error', () => {});
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const result = { code: code ?? (signal ? 128 : 1), stdout, stderr };
      if (result.code !== 0 && !options.allowFail) {
        reject(new Error(`${command} ${args.join(' ')} exited ${result.code}${signal ? ` (${signal})` : ''}: ${stderr.trim() || stdout.trim()}`));
      } else resolve(result);
    });
    child.stdin.end(options.input ?? '');
  });
}

export function kubectl(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  if (!process.env.KUBECONFIG) throw new Error('KUBECONFIG is not set: run the scenarios through npm run e2e, or eval "$(npm run -s cluster -- up | tail -1)"');
  return run('kubectl', args, options);
}

/* eslint-disable @typescript-eslint/no-explicit-any -- objects read back from the apiserver are loose JSON */
export type Obj = Record<string, any>;

export async function getJson(args: readonly string[]): Promise<Obj> {
  return JSON.parse((await kubectl(['get', ...args, '-o', 'json'])).stdout) as Obj;
}

/** Apply YAML or JSON given as text (server-side apply, as the issue asks). */
export async function apply(manifest: string, extra: readonly string[] = []): Promise<RunResult> {
  return kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=si-e2e', '-f', '-', ...extra], { input: manifest });
}

/** Our CLI as it ships: the bundle `npm ci` builds (prepare). */
export function cliPath(): string {
  return process.env.SI_E2E_CLI ?? join(repoRoot, 'dist/bin/sidecar-injector.mjs');
}

export function cli(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return run(process.execPath, [cliPath(), ...args], options);
}

export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 30_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`);
}

/** A namespace with labels, ready for pods (its default ServiceAccount exists). */
export async function createNamespace(name: string, labels: Record<string, string> = {}): Promise<void> {
  // A leftover of an earlier run (or one still terminating) goes first: each scenario starts clean.
  await kubectl(['delete', 'namespace', name, '--ignore-not-found', '--wait=true', '--timeout=120s']);
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
  await kubectl(['create', '-f', '-'], { input: JSON.stringify(ns) });
  await waitFor(
    `the default ServiceAccount in ${name}`,
    async () => (await kubectl(['-n', name, 'get', 'serviceaccount', 'default'], { allowFail: true })).code === 0,
  );
}

export async function deleteNamespaces(...names: string[]): Promise<void> {
  if (names.length === 0) return;
  await kubectl(['delete', 'namespace', ...names, '--ignore-not-found', '--wait=false'], { allowFail: true });
}

/** The pods of a namespace as the apiserver stored them, optionally by label selector. */
export async function pods(namespace: string, selector?: string): Promise<Obj[]> {
  const list = await getJson(['pods', '-n', namespace, ...(selector ? ['-l', selector] : [])]);
  return list.items as Obj[];
}

/**
 * A Node for the DaemonSet controller to put pods on: the real one when the cluster has a node
 * (left as the kubelet registered it), else a Node object with no kubelet behind it.
 */
export async function ensureNode(name = 'e2e-node'): Promise<void> {
  if ((await kubectl(['get', 'node', name], { allowFail: true })).code === 0) return;
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' } } };
  await kubectl(['apply', '-f', '-'], { input: JSON.stringify(node) });
  // The apiserver taints a new Node not-ready until a kubelet reports; none will, and the
  // DaemonSet controller does not tolerate that taint for scheduling, so lift it.
  await kubectl(['taint', 'node', name, 'node.kubernetes.io/not-ready:NoSchedule-'], { allowFail: true });
}
