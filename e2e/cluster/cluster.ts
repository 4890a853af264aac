/**
 * @module e2e/cluster/cluster
 * A real Kubernetes control plane on loopback, without Docker: etcd, kube-apiserver (RBAC,
 * service-account keys, client-certificate authentication) and kube-controller-manager, from
 * the binaries `e2e/build/build.sh` builds. There is no scheduler and no kubelet: pods stay
 * Pending, which is enough, since admission happens when a pod is created and the controllers
 * create ReplicaSets, Pods and Jobs as in any cluster.
 *
 * `up` is idempotent (a healthy cluster is reused; a half-started one is torn down with the
 * failing component's log tail); `down` stops what `up` started and removes its state.
 */
import { request } from 'node:https';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../../src/testing/server-process.js';
import { join } from 'node:path';
import { ensureBinaries, stateDir } from './paths.js';
import { createPki, type Pki } from './pki.js';
import { kubeconfigYaml } from './kubeconfig.js';
import { isRunning, logTail, startDaemon, stopDaemon, type Daemon } from './process.js';

export interface ClusterState {
  version: 1;
  binDir: string;
  kubeconfig: string;
  server: string;
  ports: { etcd: number; etcdPeer: number; apiserver: number; controllerManager: number };
  daemons: Daemon[];
  /** Extra apiserver arguments this cluster was started with (e.g. an admission config). */
  apiserverExtraArgs: string[];
  /** The client certificate the apiserver presents to webhooks (ca.crt, client.crt, client.key). */
  webhookClientDir: string;
  /** Sizing for a large cluster (`UpOptions.sizing`), when it was started with one. */
  sizing?: Sizing;
}

/** Extra flags for a large or instrumented control plane (the scale bench). */
export interface Sizing {
  etcdArgs?: string[];
  apiserverArgs?: string[];
  /** kube-controller-manager's `--controllers` (default: all but the node and volume ones). */
  controllers?: string;
}

export interface UpOptions {
  /**
   * `--admission-control-config-file` for the apiserver. By default the cluster's own, which
   * presents the client certificate in `webhookClientDir` to every webhook.
   */
  admissionConfigFile?: string;
  sizing?: Sizing;
  log?: (line: string) => void;
}

const statePath = (): string => join(stateDir(), 'state.json');

export function readState(): ClusterState | undefined {
  if (!existsSync(statePath())) return undefined;
  try {
    return JSON.parse(readFileSync(statePath(), 'utf8')) as ClusterState;
  } catch {
    return undefined;
  }
}

export function exportLine(state: ClusterState): string {
  return `export KUBECONFIG=${state.kubeconfig}`;
}

/** GET a path of the apiserver as the admin; resolves with the status code and body. */
export function apiGet(state: ClusterState, pki: Pki, path: string, timeoutMs = 5000): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(`${state.server}${path}`, {
      ca: readFileSync(pki.caCert), cert: readFileSync(pki.admin.cert), key: readFileSync(pki.admin.key), timeout: timeoutMs,
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ status: 0, body: String(err) }));
    req.end();
  });
}

async function waitUntil(what: string, timeoutMs: number, daemons: Daemon[], check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dead = daemons.find((d) => !isRunning(d));
    if (dead) throw new ComponentError(dead, `${dead.name} exited while waiting for ${what}`);
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
}

export class ComponentError extends Error {
  constructor(readonly daemon: Daemon, message: string) { super(message); }
}

/** Is the recorded cluster up and answering? */
export async function healthy(state: ClusterState): Promise<boolean> {
  if (!state.daemons.every(isRunning)) return false;
  const res = await apiGet(state, createPki(join(stateDir(), 'pki')), '/readyz');
  return res.status === 200;
}

export async function up(options: UpOptions = {}): Promise<ClusterState> {
  const log = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const custom = options.admissionConfigFile ? [`--admission-control-config-file=${options.admissionConfigFile}`] : [];
  const existing = readState();
  if (existing) {
    // A cluster from before the webhook client certificate existed lacks what the scenarios need.
    const sameArgs = (options.admissionConfigFile === undefined
      ? existing.webhookClientDir !== undefined
      : JSON.stringify(existing.apiserverExtraArgs ?? []) === JSON.stringify(custom))
      && JSON.stringify(existing.sizing ?? {}) === JSON.stringify(options.sizing ?? {});
    if (sameArgs && await healthy(existing)) {
      log(`cluster: reusing the running control plane at ${existing.server}`);
      return existing;
    }
    log(sameArgs ? 'cluster: the recorded control plane is not healthy; tearing it down' :
      'cluster: the running control plane has other apiserver arguments; restarting it');
    await down({ log });
  }
  const binDir = ensureBinaries();
  const dir = stateDir();
  mkdirSync(dir, { recursive: true });
  const pki = createPki(join(dir, 'pki'));
  const extra = options.admissionConfigFile ? custom : [`--admission-control-config-file=${pki.admissionConfig}`];
  const ports = { etcd: await freePort(), etcdPeer: await freePort(), apiserver: await freePort(), controllerManager: await freePort() };
  const server = `https://127.0.0.1:${ports.apiserver}`;
  const kubeconfig = join(dir, 'admin.kubeconfig');
  writeFileSync(kubeconfig, kubeconfigYaml(server, pki.caCert, pki.admin.cert, pki.admin.key, 'e2e-admin'), { mode: 0o600 });
  const kcmKubeconfig = join(dir, 'kube-controller-manager.kubeconfig');
  writeFileSync(kcmKubeconfig, kubeconfigYaml(server, pki.caCert, pki.controllerManager.cert, pki.controllerManager.key, 'kube-controller-manager'), { mode: 0o600 });
  const sizing = options.sizing ?? {};
  const state: ClusterState = { version: 1, binDir, kubeconfig, server, ports, daemons: [], apiserverExtraArgs: extra, webhookClientDir: pki.webhookClientDir, ...(options.sizing ? { sizing } : {}) };
  const save = (): void => writeFileSync(statePath(), `${JSON.stringify(state, null, 2)}\n`);
  try {
    const etcdUrl = `http://127.0.0.1:${ports.etcd}`;
    const peerUrl = `http://127.0.0.1:${ports.etcdPeer}`;
    state.daemons.push(startDaemon('etcd', join(binDir, 'etcd'), [
      `--data-dir=${join(dir, 'etcd')}`, `--listen-client-urls=${etcdUrl}`, `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`, `--initial-advertise-peer-urls=${peerUrl}`, `--initial-cluster=default=${peerUrl}`,
      '--unsafe-no-fsync', '--log-level=warn', ...(sizing.etcdArgs ?? []),
    ], join(dir, 'etcd.log')));
    save();
    log(`cluster: etcd on 127.0.0.1:${ports.etcd}`);
    state.daemons.push(startDaemon('kube-apiserver', join(binDir, 'kube-apiserver'), [
      `--etcd-servers=${etcdUrl}`, '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1',
      `--secure-port=${ports.apiserver}`, `--tls-cert-file=${pki.serverCert}`, `--tls-private-key-file=${pki.serverKey}`,
      `--client-ca-file=${pki.caCert}`,
      `--service-account-issuer=${server}`, `--service-account-key-file=${pki.saPub}`,
      `--service-account-signing-key-file=${pki.saKey}`, '--api-audiences=https://kubernetes.default.svc',
      '--service-cluster-ip-range=10.0.0.0/24', '--authorization-mode=Node,RBAC', '--allow-privileged=true',
      '--endpoint-reconciler-type=none', '--profiling=false', `--cert-dir=${join(dir, 'apiserver-certs')}`,
      ...extra, ...(sizing.apiserverArgs ?? []),
    ], join(dir, 'kube-apiserver.log')));
    save();
    log(`cluster: kube-apiserver on ${server}; waiting for /readyz`);
    await waitUntil('the apiserver /readyz', 120_000, state.daemons, async () => (await apiGet(state, pki, '/readyz')).status === 200);
    state.daemons.push(startDaemon('kube-controller-manager', join(binDir, 'kube-controller-manager'), [
      `--kubeconfig=${kcmKubeconfig}`, `--authentication-kubeconfig=${kcmKubeconfig}`, `--authorization-kubeconfig=${kcmKubeconfig}`,
      '--leader-elect=false', '--bind-address=127.0.0.1', `--secure-port=${ports.controllerManager}`,
      `--service-account-private-key-file=${pki.saKey}`, `--root-ca-file=${pki.caCert}`,
      '--use-service-account-credentials=true', `--cert-dir=${join(dir, 'kcm-certs')}`,
      `--controllers=${sizing.controllers ?? '*,-nodeipam,-nodelifecycle,-route,-cloud-node-lifecycle,-service-lb-controller,-persistentvolume-binder,-attachdetach,-persistentvolume-expander'}`,
    ], join(dir, 'kube-controller-manager.log')));
    save();
    log('cluster: kube-controller-manager started; waiting for the default ServiceAccount');
    await waitUntil('the default ServiceAccount', 120_000, state.daemons,
      async () => (await apiGet(state, pki, '/api/v1/namespaces/default/serviceaccounts/default')).status === 200);
    return state;
  } catch (err) {
    const failed = err instanceof ComponentError ? err.daemon : state.daemons[state.daemons.length - 1];
    if (failed) log(`cluster: ${failed.name} log (last lines of ${failed.log}):\n${logTail(failed.log)}`);
    await down({ log, keepLogs: true });
    throw err;
  }
}

export async function down(options: { log?: (line: string) => void; keepLogs?: boolean } = {}): Promise<void> {
  const log = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const state = readState();
  if (state) {
    // Reverse order: controllers first, etcd last, so nothing logs about a vanished store.
    for (const d of [...state.daemons].reverse()) await stopDaemon(d);
    log('cluster: stopped');
  }
  const dir = stateDir();
  if (!existsSync(dir)) return;
  if (options.keepLogs) {
    for (const f of ['state.json', 'etcd', 'pki', 'admin.kubeconfig', 'kube-controller-manager.kubeconfig']) {
      rmSync(join(dir, f), { recursive: true, force: true });
    }
  } else {
    rmSync(dir, { recursive: true, force: true });
  }
}
