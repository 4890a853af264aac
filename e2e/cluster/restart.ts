/**
 * @module e2e/cluster/restart
 * Stop and start the kube-apiserver of a running control plane (issue 30: a reconciler must
 * survive it). The new process gets exactly the command line of the old one, read from
 * /proc, so nothing has to be kept in sync with `up`; `args` can change it (e.g. add an audit
 * log), and `whileDown` runs while no apiserver answers. The state file gets the new pid.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiGet, type ClusterState } from './cluster.js';
import { stateDir } from './paths.js';
import { createPki } from './pki.js';
import { isRunning, logTail, startDaemon, stopDaemon } from './process.js';

export interface RestartOptions {
  /** The new command-line arguments, from the current ones (default: the same). */
  args?: (current: string[]) => string[];
  whileDown?: () => Promise<void>;
  timeoutMs?: number;
}

export async function restartApiserver(state: ClusterState, options: RestartOptions = {}): Promise<ClusterState> {
  const index = state.daemons.findIndex((d) => d.name === 'kube-apiserver');
  const old = state.daemons[index];
  if (old === undefined || !isRunning(old)) throw new Error('restartApiserver: the cluster has no running kube-apiserver');
  const argv = readFileSync(`/proc/${old.pid}/cmdline`, 'utf8')
    .split('\0')
    .filter((a) => a !== '');
  const args = (options.args ?? ((a) => a))(argv.slice(1));
  await stopDaemon(old);
  await options.whileDown?.();
  const started = startDaemon(old.name, old.bin, args, old.log);
  const next: ClusterState = { ...state, daemons: state.daemons.map((d, i) => (i === index ? started : d)) };
  writeFileSync(join(stateDir(), 'state.json'), `${JSON.stringify(next, null, 2)}\n`);
  const pki = createPki(join(stateDir(), 'pki'));
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  while (Date.now() < deadline) {
    if (!isRunning(started)) throw new Error(`kube-apiserver exited after the restart:\n${logTail(started.log)}`);
    if ((await apiGet(next, pki, '/readyz')).status === 200) return next;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`kube-apiserver not ready ${(options.timeoutMs ?? 120_000) / 1000}s after the restart:\n${logTail(started.log)}`);
}

/**
 * Move etcd's revision on (a key outside the apiserver's `/registry`), e.g. while the apiserver
 * is down: its watch cache then starts after every resourceVersion a client holds, and a watch
 * resuming from one gets `410 Gone`, deterministically. Through etcd's JSON gateway on loopback.
 */
export async function bumpEtcdRevision(state: ClusterState): Promise<number> {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const res = await fetch(`http://127.0.0.1:${state.ports.etcd}/v3/kv/put`, {
    method: 'POST',
    body: JSON.stringify({ key: b64('/sidecar-injector-e2e/bump'), value: b64(new Date().toISOString()) }),
  });
  const body = (await res.json()) as { header?: { revision?: string } };
  if (!res.ok || body.header?.revision === undefined) throw new Error(`etcd put: HTTP ${res.status}`);
  return Number(body.header.revision);
}
